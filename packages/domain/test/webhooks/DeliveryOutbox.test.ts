import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { millisOf, responded } from "../../src/model/Delivery.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { delivery, HOUR, OTHER_RULE, RULE, SECOND, T0 } from "../support/contract/events-delivery-outbox.ts"

describe("DeliveryOutboxMemory.layer", () => {
  it.effect("claims due deliveries, earliest first, up to the limit; not yet due ones wait", () =>
    Effect.gen(function* () {
      const outbox = yield* DeliveryOutbox
      yield* outbox.enqueue([delivery(1, T0 + 2), delivery(2, T0), delivery(3, T0 + HOUR)])
      const claimed = yield* outbox.claimDue({ at: T0 + 10, limit: 10 })
      assert.deepStrictEqual(
        claimed.map((d) => d.body),
        ['{"n":2}', '{"n":1}']
      )
      assert.lengthOf(yield* outbox.claimDue({ at: T0 + 10, limit: 1 }), 0)
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )

  it.effect("no delivery is claimed twice at once, even by concurrent claims", () =>
    Effect.gen(function* () {
      const outbox = yield* DeliveryOutbox
      yield* outbox.enqueue(Array.from({ length: 50 }, (_, i) => delivery(i)))
      const batches = yield* Effect.all(
        Array.from({ length: 8 }, () => outbox.claimDue({ at: T0, limit: 10 })),
        { concurrency: "unbounded" }
      )
      const ids = batches.flat().map((d) => d.delivery_id)
      assert.strictEqual(ids.length, 50)
      assert.strictEqual(new Set(ids).size, 50)
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )

  it.effect("a claim is a lease: once it expires the delivery can be claimed again", () =>
    Effect.gen(function* () {
      const outbox = yield* DeliveryOutbox
      yield* outbox.enqueue([delivery(1)])
      assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 1, leaseMs: 60 * SECOND }), 1)
      assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND - 1, limit: 1 }), 0)
      assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND, limit: 1 }), 1)
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )

  it.effect("recording an attempt applies the state machine, logs the attempt and releases the claim", () =>
    Effect.gen(function* () {
      const outbox = yield* DeliveryOutbox
      yield* outbox.enqueue([delivery(1)])
      const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
      const { delivery: after } = yield* outbox.recordAttempt(claimed!, {
        at: T0,
        outcome: responded(500, 12)
      })
      assert.strictEqual(millisOf(after.next_attempt_at!), T0 + 30 * SECOND)
      assert.lengthOf(yield* outbox.claimDue({ at: T0 + 30 * SECOND - 1, limit: 1 }), 0)
      const [retry] = yield* outbox.claimDue({ at: T0 + 30 * SECOND, limit: 1 })
      assert.strictEqual(retry!.delivery_id, claimed!.delivery_id)
      const stale = yield* Effect.flip(
        outbox.recordAttempt(claimed!, { at: T0 + 30 * SECOND, outcome: responded(200, 1) })
      )
      assert.strictEqual(stale._tag, "DeliveryTransitionRejected", "an attempt is never counted twice")
      yield* outbox.recordAttempt(retry!, { at: T0 + 30 * SECOND, outcome: responded(200, 8) })
      const [listed] = yield* outbox.listByRule(RULE)
      assert.strictEqual(listed!.status, "delivered")
      assert.deepStrictEqual(
        listed!.attempt_log.map((a) => [a.attempt, a.outcome]),
        [
          [0, "http_error"],
          [1, "delivered"]
        ]
      )
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )

  it.effect("failed deliveries are listed, never claimed again, and can be re-fired by hand", () =>
    Effect.gen(function* () {
      const outbox = yield* DeliveryOutbox
      yield* outbox.enqueue([delivery(1), delivery(2, T0, OTHER_RULE)])
      for (let i = 0; i < 6; i++) {
        const due = yield* outbox.claimDue({ at: T0 + 13 * HOUR, limit: 10 })
        for (const d of due) {
          yield* outbox.recordAttempt(d, { at: millisOf(d.next_attempt_at!), outcome: responded(503, 5) })
        }
      }
      assert.lengthOf(
        yield* outbox.claimDue({ at: T0 + 1_000 * HOUR, limit: 10 }),
        0,
        "not replayed automatically"
      )
      assert.lengthOf(yield* outbox.listFailed(), 2)
      const failed = yield* outbox.listFailed({ ruleIds: [RULE] })
      assert.lengthOf(failed, 1)
      const refired = yield* outbox.refire(failed[0]!.delivery_id, T0 + 48 * HOUR)
      assert.strictEqual(refired.delivery_id, failed[0]!.delivery_id)
      assert.strictEqual(refired.cycle, 1)
      const [again] = yield* outbox.claimDue({ at: T0 + 48 * HOUR, limit: 10 })
      assert.strictEqual(again!.delivery_id, failed[0]!.delivery_id)
      const notFailed = yield* Effect.flip(outbox.refire(again!.delivery_id, T0 + 49 * HOUR))
      assert.strictEqual(notFailed._tag, "DeliveryTransitionRejected")
      const missing = yield* Effect.flip(outbox.refire("00000000-0000-4000-8000-999999999999", T0))
      assert.strictEqual(missing._tag, "DeliveryNotFound")
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )
})
