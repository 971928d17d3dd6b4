import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import {
  MaxRetries,
  nextAttemptAt,
  ReceiverTimeoutMs,
  RetryOffsetsMs,
  retryPolicy,
  retrySchedule
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
    "the Schedule runs attempts at exactly 0, 30 s, 5 min, 30 min, 2 h, 12 h after the initial attempt",
    () =>
      Effect.gen(function* () {
        const starts: Array<number> = []
        const t0 = yield* Clock.currentTimeMillis
        // Each attempt waits out the whole receiver timeout before failing: the
        // offsets must still count from the initial attempt.
        const attempt = Effect.gen(function* () {
          starts.push((yield* Clock.currentTimeMillis) - t0)
          yield* Effect.sleep(ReceiverTimeoutMs)
          return yield* Effect.fail("no response within 10 seconds" as const)
        })
        const fiber = yield* Effect.forkChild(Effect.retry(attempt, retrySchedule()))
        yield* Effect.yieldNow
        assert.deepStrictEqual(starts, [0])

        let elapsed = 0
        for (const [i, offset] of specOffsets.entries()) {
          yield* TestClock.adjust(offset - 1 - elapsed)
          elapsed = offset - 1
          assert.strictEqual(starts.length, i + 1, `retry ${i + 1} must not run a millisecond early`)
          yield* TestClock.adjust(1)
          elapsed = offset
          assert.strictEqual(starts.length, i + 2, `retry ${i + 1} runs at its offset`)
          assert.strictEqual(starts[i + 1], offset)
        }

        yield* TestClock.adjust(ReceiverTimeoutMs)
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(exit), "the final retry failing ends the loop with the failure")
        yield* TestClock.adjust(24 * HOUR)
        assert.deepStrictEqual(starts, [0, ...specOffsets], "nothing runs after retry 5")
      })
  )

  it.effect("a scaled Schedule keeps the same shape", () =>
    Effect.gen(function* () {
      const starts: Array<number> = []
      const t0 = yield* Clock.currentTimeMillis
      const attempt = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        starts.push(now - t0)
        return Effect.fail("refused" as const)
      })
      const fiber = yield* Effect.forkChild(
        Effect.retry(attempt, retrySchedule(retryPolicy({ scale: 0.001 })))
      )
      yield* TestClock.adjust(HOUR)
      yield* Fiber.await(fiber)
      assert.deepStrictEqual(starts, [0, 30, 300, 1_800, 7_200, 43_200])
    })
  )
})
