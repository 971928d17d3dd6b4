/**
 * The delivery outbox's indexes after every migration: each one serves a
 * query (claims, a rule's deliveries, failed ones, the retention sweep), and
 * `seq` has no index of its own (migration 0012), while staying unique and
 * in enqueue order as an identity column.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { delivery } from "@ratings/domain/test-support/contract/events-delivery-outbox"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { TestDatabase } from "./TestDatabase.ts"

describe("PgDeliveryOutbox indexes", () => {
  it.layer(PgDeliveryOutbox.layer.pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("webhook_deliveries keeps the indexes its queries use, and none on seq alone", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly indexname: string }>`
          SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' ORDER BY indexname
        `
        assert.deepStrictEqual(
          rows.map((r) => r.indexname),
          [
            "webhook_deliveries_due",
            "webhook_deliveries_failed",
            "webhook_deliveries_finished",
            "webhook_deliveries_pkey",
            "webhook_deliveries_rule"
          ]
        )
      })
    )

    it.effect("seq still numbers deliveries uniquely in enqueue order", () =>
      Effect.gen(function* () {
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([1, 2, 3].map((n) => delivery(n)))
        yield* outbox.enqueue([4, 5].map((n) => delivery(n)))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{
          readonly seq: string
        }>`SELECT seq::text FROM webhook_deliveries ORDER BY seq`
        const seqs = rows.map((r) => Number(r.seq))
        assert.lengthOf(seqs, 5)
        assert.strictEqual(new Set(seqs).size, 5)
        const [listed] = yield* outbox.listByRule(delivery(1).rule_id, { limit: 1 })
        assert.strictEqual(listed!.delivery_id, delivery(5).delivery_id, "newest first by seq")
      })
    )
  })
})
