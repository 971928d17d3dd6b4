import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { decodeDeliveryRows, deliveryOfRow } from "../src/PgDeliveryOutbox/ClaimedRows.ts"
import { DeliveryRow } from "../src/PgDeliveryOutbox/Rows.ts"

const bySchema = Schema.decodeUnknownExit(DeliveryRow)

const row = {
  delivery_id: "00000000-0000-4000-8000-000000000001",
  rule_id: "00000000-0000-4000-8000-0000000000aa",
  event: "rating.changed",
  body: '{"a":1}',
  status: "pending",
  cycle: 0,
  attempts: 2,
  next_attempt_at: new Date(Date.UTC(2026, 7, 1, 12, 0, 0, 123)),
  first_attempt_at: null,
  last_error: null,
  created_at: new Date(Date.UTC(2026, 7, 1))
}

const valid: ReadonlyArray<Record<string, unknown>> = [
  row,
  { ...row, first_attempt_at: new Date(0), last_error: 'HTTP 502 "bad"', status: "failed", cycle: 3 },
  { ...row, next_attempt_at: null, status: "delivered", event: "webhook.test" },
  { ...row, delivery_id: "00000000-0000-0000-0000-000000000000", body: "" },
  { ...row, seq: "12", leased_until: new Date(), claim_token: "t" }
]

const invalid: ReadonlyArray<unknown> = [
  null,
  "row",
  { ...row, delivery_id: "not-a-uuid" },
  { ...row, rule_id: 7 },
  { ...row, event: "rating.unknown" },
  { ...row, body: null },
  { ...row, status: "sent" },
  { ...row, cycle: -1 },
  { ...row, attempts: 1.5 },
  { ...row, attempts: "2" },
  { ...row, next_attempt_at: new Date(Number.NaN) },
  { ...row, next_attempt_at: "2026-08-01T00:00:00+00:00" },
  { ...row, first_attempt_at: undefined },
  { ...row, last_error: 5 },
  { ...row, created_at: null }
]

describe("the claim's hand-written row decoder", () => {
  it("builds exactly the Delivery the DeliveryRow schema decodes", () => {
    for (const r of valid) {
      const expected = bySchema(r)
      assert.isTrue(Exit.isSuccess(expected))
      assert.deepStrictEqual(deliveryOfRow(r), Exit.isSuccess(expected) ? expected.value : undefined)
    }
  })

  it("refuses every row the schema refuses", () => {
    for (const r of invalid) {
      assert.isTrue(Exit.isFailure(bySchema(r)), `the schema refuses ${JSON.stringify(r)}`)
      assert.isUndefined(deliveryOfRow(r), `the decoder refuses ${JSON.stringify(r)}`)
    }
  })

  it.effect("a batch with one bad row is a StoreError defect naming the operation and the rule broken", () =>
    Effect.gen(function* () {
      const decode = decodeDeliveryRows("claimDue")
      assert.deepStrictEqual(
        yield* decode(valid),
        valid.map((r) => deliveryOfRow(r)!)
      )
      const exit = yield* Effect.exit(decode([row, { ...row, status: "sent" }]))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const defect = Cause.squash(exit.cause)
        assert.instanceOf(defect, StoreError)
        assert.include((defect as StoreError).message, "claimDue")
        assert.include((defect as StoreError).message, "status")
      }
    })
  )
})
