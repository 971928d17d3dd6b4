/**
 * Stores store (issue 14): the domain computes every delivery transition on the
 * RetryPolicy it is given and hands the store guarded writes; the store decides
 * nothing. These tests run the recording over a store that only keeps rows and
 * applies a write where its guard holds, and look at what it was handed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { type Delivery, isoOf, responded } from "../../src/model/Delivery.ts"
import { newDelivery, recordAttempt } from "../../src/webhooks/DeliveryStateMachine.ts"
import {
  type GuardedWrite,
  recordAttempts,
  refireStored,
  sameState,
  type TransitionStore
} from "../../src/webhooks/DeliveryTransitions.ts"
import { retryPolicy } from "../../src/webhooks/RetrySchedule.ts"

const T0 = Date.UTC(2026, 7, 1)

const successOf = <A>(result: Result.Result<A, unknown>): A => {
  if (Result.isFailure(result)) throw new Error("expected a success")
  return result.success
}
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const delivery = (n: number): Delivery =>
  newDelivery({ delivery_id: id(n), rule_id: id(999), event: "rating.changed", body: "{}", at: T0 })

/** A store that keeps rows and applies guarded writes, logging every batch it is handed. */
const plainStore = (rows: ReadonlyArray<Delivery>) => {
  const stored = new Map(rows.map((d) => [d.delivery_id, d]))
  const batches: Array<ReadonlyArray<GuardedWrite>> = []
  const store: TransitionStore = {
    read: (deliveryId) => Effect.sync(() => stored.get(deliveryId)),
    writeGuarded: (writes) =>
      Effect.sync(() => {
        batches.push(writes)
        return writes.map(({ from, to }) => {
          const current = stored.get(from.delivery_id)
          if (current === undefined || !sameState(current, from)) return undefined
          stored.set(to.delivery_id, to)
          return to
        })
      })
  }
  return { store, stored, batches }
}

describe("DeliveryTransitions", () => {
  it.effect(
    "the store is handed the transition the state machine computes on the policy given, in one batch",
    () =>
      Effect.gen(function* () {
        const policy = retryPolicy({ scale: 0.001 })
        const { store, batches } = plainStore([delivery(1), delivery(2)])
        const inputs = [1, 2].map((n) => ({
          claimed: delivery(n),
          input: { at: T0, outcome: responded(503, 1) }
        }))
        const results = yield* recordAttempts(store, policy, inputs)
        assert.lengthOf(batches, 1, "one batch of writes for the whole group")
        for (const [i, write] of batches[0]!.entries()) {
          const expected = successOf(recordAttempt(inputs[i]!.claimed, inputs[i]!.input, policy))
          assert.deepStrictEqual(write.to, expected.delivery)
          assert.strictEqual(write.to.next_attempt_at, isoOf(T0 + 30), "the scaled first offset")
        }
        assert.isTrue(results.every(Result.isSuccess))
      })
  )

  it.effect(
    "a write whose guard fails is judged again on the stored row: a stale claim is refused alone",
    () =>
      Effect.gen(function* () {
        const { store, stored } = plainStore([delivery(1), delivery(2)])
        // Delivery 1 was recorded elsewhere since it was claimed.
        const elsewhere = recordAttempt(delivery(1), { at: T0, outcome: responded(500, 1) }, retryPolicy())
        stored.set(id(1), successOf(elsewhere).delivery)
        const [stale, fine] = yield* recordAttempts(store, retryPolicy(), [
          { claimed: delivery(1), input: { at: T0, outcome: responded(200, 1) } },
          { claimed: delivery(2), input: { at: T0, outcome: responded(200, 1) } }
        ])
        assert.isTrue(Result.isFailure(stale!) && stale.failure._tag === "DeliveryTransitionRejected")
        assert.isTrue(Result.isSuccess(fine!))
        assert.strictEqual(stored.get(id(2))!.status, "delivered")
      })
  )

  it.effect("a re-fire is computed on the stored delivery and written guarded by that read", () =>
    Effect.gen(function* () {
      const failed: Delivery = { ...delivery(1), status: "failed", attempts: 6, next_attempt_at: null }
      const { store, batches, stored } = plainStore([failed])
      const result = yield* refireStored(store, id(1), T0 + 5)
      assert.isTrue(Result.isSuccess(result))
      assert.deepStrictEqual(batches[0]![0]!.from, failed)
      assert.strictEqual(stored.get(id(1))!.cycle, 1)
      const missing = yield* refireStored(store, id(7), T0)
      assert.isTrue(Result.isFailure(missing) && missing.failure._tag === "DeliveryNotFound")
    })
  )
})
