import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { type Delivery, millisOf, responded } from "../../src/model/Delivery.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import {
  MaxRetries,
  nextAttemptAt,
  ReceiverTimeoutMs,
  RetryOffsetsMs,
  RetryPolicy,
  retryPolicy
} from "../../src/webhooks/RetrySchedule.ts"

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const specOffsets = [30 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR]

describe("RetrySchedule", () => {
  it("webhook retries: 5, at 30 s, 5 min, 30 min, 2 h, 12 h; receiver timeout 10 seconds", () => {
    assert.deepStrictEqual([...RetryOffsetsMs], specOffsets)
    assert.strictEqual(MaxRetries, 5)
    assert.strictEqual(ReceiverTimeoutMs, 10 * SECOND)
  })

  it("retry 1 at 30 seconds after the initial attempt ... retry 5 at 12 hours (final)", () => {
    const first = Date.UTC(2026, 7, 1)
    assert.strictEqual(nextAttemptAt(first, 1), first + 30 * SECOND)
    assert.strictEqual(nextAttemptAt(first, 2), first + 5 * MINUTE)
    assert.strictEqual(nextAttemptAt(first, 3), first + 30 * MINUTE)
    assert.strictEqual(nextAttemptAt(first, 4), first + 2 * HOUR)
    assert.strictEqual(nextAttemptAt(first, 5), first + 12 * HOUR)
    assert.isUndefined(nextAttemptAt(first, 6), "no attempt after the 5th retry")
    assert.isUndefined(nextAttemptAt(first, 0), "attempts made counts the initial attempt")
  })

  it("offsets count from the initial attempt, not between attempts", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 41 }), fc.integer({ min: 1, max: 5 }), (first, made) => {
        assert.strictEqual(nextAttemptAt(first, made), first + specOffsets[made - 1]!)
      })
    )
  })

  it("scale shrinks every offset by the same factor and leaves the receiver timeout alone", () => {
    const policy = retryPolicy({ scale: 0.001 })
    assert.deepStrictEqual([...policy.offsetsMs], [30, 300, 1_800, 7_200, 43_200])
    assert.strictEqual(policy.receiverTimeoutMs, 10 * SECOND)
    assert.strictEqual(nextAttemptAt(1_000, 2, policy), 1_300)
    assert.throws(() => retryPolicy({ scale: 0 }))
    assert.throws(() => retryPolicy({ scale: Number.NaN }))
  })

  it.effect(
    "the outbox runs attempts at exactly 0, 30 s, 5 min, 30 min, 2 h, 12 h after the initial attempt",
    () =>
      Effect.gen(function* () {
        // Each attempt waits out the whole receiver timeout before failing: the
        // offsets must still count from the initial attempt.
        const starts = yield* runToTheEnd(ReceiverTimeoutMs, (start, outbox) =>
          Effect.gen(function* () {
            // Not a millisecond early: nothing is claimable before the offset.
            if (start > T0) assert.lengthOf(yield* outbox.claimDue({ at: start - 1, limit: 1 }), 0)
          })
        )
        assert.deepStrictEqual(starts, [0, ...specOffsets], "nothing runs after retry 5")
      }).pipe(Effect.provide(DeliveryOutboxMemory.layer))
  )

  it.effect("a scaled RetryPolicy, provided once, keeps the same shape", () =>
    Effect.gen(function* () {
      const starts = yield* runToTheEnd(0, () => Effect.void)
      assert.deepStrictEqual(starts, [0, 30, 300, 1_800, 7_200, 43_200])
    }).pipe(Effect.provide(DeliveryOutboxMemory.layer), Effect.provide(RetryPolicy.layer({ scale: 0.001 })))
  )
})

const T0 = Date.UTC(2026, 7, 1)

/**
 * Runs one delivery through the outbox until it fails: each attempt is made
 * as soon as it is claimable and takes `elapsedMs`, answering 503. Returns
 * when each attempt started, from the initial one.
 */
const runToTheEnd = (
  elapsedMs: number,
  beforeEach: (start: number, outbox: DeliveryOutbox["Service"]) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox
    yield* outbox.enqueue([
      newDelivery({
        delivery_id: "00000000-0000-4000-8000-000000000001",
        rule_id: "00000000-0000-4000-8000-00000000000a",
        event: "rating.changed",
        body: "{}",
        at: T0
      })
    ])
    const starts: Array<number> = []
    let due: number | undefined = T0
    while (due !== undefined) {
      yield* beforeEach(due, outbox)
      const [claimed]: ReadonlyArray<Delivery> = yield* outbox.claimDue({ at: due, limit: 1 })
      assert.isDefined(claimed, "the delivery is claimable at its offset")
      starts.push(due - T0)
      const { delivery }: { readonly delivery: Delivery } = yield* outbox.recordAttempt(claimed!, {
        at: due,
        outcome: responded(503, elapsedMs)
      })
      due = delivery.next_attempt_at === null ? undefined : millisOf(delivery.next_attempt_at)
      if (due === undefined) assert.strictEqual(delivery.status, "failed")
    }
    return starts
  })
