import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import {
  type Delivery,
  type DeliveryAttempt,
  isoOf,
  millisOf,
  noResponse,
  responded,
  type TransportOutcome
} from "../../src/model/Delivery.ts"
import {
  type AttemptRecorded,
  classify,
  isDue,
  newDelivery,
  recordAttempt,
  refire
} from "../../src/webhooks/DeliveryStateMachine.ts"
import { retryPolicy } from "../../src/webhooks/RetrySchedule.ts"

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const T0 = Date.UTC(2026, 7, 1, 12, 0, 0)
const DELIVERY_ID = "6f1c9a52-8d4e-4b7a-9c31-2f5e8a0d7b14"
const RULE_ID = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
const BODY = '{"event":"rating.changed"}'

const fresh = (at = T0): Delivery =>
  newDelivery({ delivery_id: DELIVERY_ID, rule_id: RULE_ID, event: "rating.changed", body: BODY, at })

const ok = (delivery: Delivery, at: number, outcome: TransportOutcome): AttemptRecorded => {
  const result = recordAttempt(delivery, { at, outcome })
  if (Result.isFailure(result)) throw new Error(`unexpected rejection: ${result.failure.reason}`)
  return result.success
}

const dueAt = (delivery: Delivery): number => millisOf(delivery.next_attempt_at!)

/** Drives a delivery through failing attempts, each made exactly when due. */
const failRepeatedly = (times: number, outcome: TransportOutcome = responded(500, 40)) => {
  let delivery = fresh()
  const log: Array<DeliveryAttempt> = []
  for (let i = 0; i < times; i++) {
    const recorded = ok(delivery, dueAt(delivery), outcome)
    delivery = recorded.delivery
    log.push(recorded.attempt)
  }
  return { delivery, log }
}

describe("DeliveryStateMachine", () => {
  it("a new delivery is pending and due at once", () => {
    const delivery = fresh()
    assert.strictEqual(delivery.status, "pending")
    assert.strictEqual(delivery.attempts, 0)
    assert.strictEqual(delivery.next_attempt_at, isoOf(T0))
    assert.isTrue(isDue(delivery, T0))
  })

  it("2xx within 10 seconds: delivered", () => {
    for (const status of [200, 201, 204, 299]) {
      const { delivery, attempt } = ok(fresh(), T0, responded(status, 10 * SECOND))
      assert.strictEqual(delivery.status, "delivered")
      assert.isNull(delivery.next_attempt_at)
      assert.strictEqual(attempt.outcome, "delivered")
      assert.strictEqual(attempt.status_code, status)
      assert.strictEqual(attempt.attempt, 0)
      assert.strictEqual(attempt.duration_ms, 10 * SECOND)
    }
  })

  it("a 2xx after 10 seconds counts as no response: waiting for retry", () => {
    const { delivery, attempt } = ok(fresh(), T0, responded(200, 10 * SECOND + 1))
    assert.strictEqual(delivery.status, "pending")
    assert.strictEqual(attempt.outcome, "late_response")
    assert.strictEqual(delivery.next_attempt_at, isoOf(T0 + 30 * SECOND))
  })

  it("non-2xx triggers retries", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }).filter((s) => s < 200 || s > 299),
        fc.integer({ min: 0, max: 10 * SECOND }),
        (status, elapsed) => {
          const { delivery, attempt } = ok(fresh(), T0, responded(status, elapsed))
          assert.strictEqual(delivery.status, "pending")
          assert.strictEqual(delivery.next_attempt_at, isoOf(T0 + 30 * SECOND))
          assert.strictEqual(attempt.outcome, "http_error")
          assert.strictEqual(delivery.last_error, `HTTP ${status}`)
        }
      )
    )
  })

  it("no response within 10 seconds (timeout, refused, reset) triggers retries", () => {
    const cases: ReadonlyArray<[TransportOutcome, string]> = [
      [noResponse("timeout", 10 * SECOND), "timeout"],
      [noResponse("connection_refused", 3, "ECONNREFUSED"), "network_error"],
      [noResponse("connection_reset", 900), "network_error"]
    ]
    for (const [outcome, recorded] of cases) {
      const { delivery, attempt } = ok(fresh(), T0, outcome)
      assert.strictEqual(delivery.status, "pending")
      assert.strictEqual(attempt.outcome, recorded)
      assert.isNull(attempt.status_code)
      assert.strictEqual(delivery.next_attempt_at, isoOf(T0 + 30 * SECOND))
    }
    assert.strictEqual(
      classify(noResponse("connection_refused", 3, "ECONNREFUSED")).error,
      "connection_refused: ECONNREFUSED"
    )
  })

  it("retry 1 at 30 seconds after the initial attempt, 2 at 5 min, 3 at 30 min, 4 at 2 h, 5 at 12 h (final)", () => {
    const { log } = failRepeatedly(6)
    assert.deepStrictEqual(
      log.map((a) => [a.attempt, millisOf(a.started_at) - T0]),
      [
        [0, 0],
        [1, 30 * SECOND],
        [2, 5 * MINUTE],
        [3, 30 * MINUTE],
        [4, 2 * HOUR],
        [5, 12 * HOUR]
      ]
    )
  })

  it("retry offsets count from the initial attempt even when a retry ran late", () => {
    let delivery = ok(fresh(), T0, noResponse("timeout", 10 * SECOND)).delivery
    // Retry 1 runs three minutes late (a worker was down) and takes its full 10 s.
    delivery = ok(delivery, T0 + 3 * MINUTE + 30 * SECOND, noResponse("timeout", 10 * SECOND)).delivery
    assert.strictEqual(delivery.next_attempt_at, isoOf(T0 + 5 * MINUTE))
    assert.strictEqual(delivery.first_attempt_at, isoOf(T0))
  })

  it("a retry never runs before it is due", () => {
    const delivery = ok(fresh(), T0, responded(503, 20)).delivery
    const early = recordAttempt(delivery, { at: T0 + 30 * SECOND - 1, outcome: responded(200, 5) })
    assert.isTrue(Result.isFailure(early))
    assert.isFalse(isDue(delivery, T0 + 30 * SECOND - 1))
    assert.isTrue(isDue(delivery, T0 + 30 * SECOND))
  })

  it("after 5 failed retries the delivery is marked failed and not replayed automatically", () => {
    const { delivery, log } = failRepeatedly(6)
    assert.strictEqual(delivery.status, "failed")
    assert.strictEqual(delivery.attempts, 6)
    assert.strictEqual(log.length, 6)
    assert.isNull(delivery.next_attempt_at)
    assert.strictEqual(delivery.last_error, "HTTP 500")
    for (const later of [T0 + 12 * HOUR + 1, T0 + 365 * 24 * HOUR]) {
      assert.isFalse(isDue(delivery, later))
      assert.isTrue(Result.isFailure(recordAttempt(delivery, { at: later, outcome: responded(200, 1) })))
    }
  })

  it("after 4 failed retries the delivery still waits for retry 5", () => {
    const { delivery } = failRepeatedly(5)
    assert.strictEqual(delivery.status, "pending")
    assert.strictEqual(delivery.next_attempt_at, isoOf(T0 + 12 * HOUR))
  })

  it("the final retry succeeding delivers", () => {
    const { delivery } = failRepeatedly(5)
    const { delivery: done, attempt } = ok(delivery, dueAt(delivery), responded(200, 80))
    assert.strictEqual(done.status, "delivered")
    assert.strictEqual(attempt.attempt, 5)
    assert.isNull(done.last_error)
  })

  it("delivery_id is stable across attempts, and the body is unchanged", () => {
    const { delivery, log } = failRepeatedly(6)
    assert.strictEqual(delivery.delivery_id, DELIVERY_ID)
    assert.strictEqual(delivery.body, BODY)
    assert.isTrue(log.every((a) => a.delivery_id === DELIVERY_ID && a.cycle === 0))
  })

  it("delivered is terminal", () => {
    const { delivery } = ok(fresh(), T0, responded(200, 5))
    assert.isTrue(Result.isFailure(recordAttempt(delivery, { at: T0 + HOUR, outcome: responded(200, 5) })))
    assert.isTrue(Result.isFailure(refire(delivery, T0 + HOUR)))
    assert.isFalse(isDue(delivery, T0 + HOUR))
  })

  it("manual re-fire of a failed delivery: a fresh attempt cycle with the same delivery_id", () => {
    const failed = failRepeatedly(6).delivery
    const at = T0 + 2 * 24 * HOUR
    const refired = Result.getOrThrow(refire(failed, at))
    assert.strictEqual(refired.status, "pending")
    assert.strictEqual(refired.delivery_id, DELIVERY_ID)
    assert.strictEqual(refired.body, BODY)
    assert.strictEqual(refired.cycle, 1)
    assert.strictEqual(refired.attempts, 0)
    assert.isTrue(isDue(refired, at))
    // The new cycle has its own initial attempt and the full schedule from it.
    const { delivery, attempt } = ok(refired, at + 7, responded(502, 30))
    assert.strictEqual(attempt.attempt, 0)
    assert.strictEqual(attempt.cycle, 1)
    assert.strictEqual(attempt.delivery_id, DELIVERY_ID)
    assert.strictEqual(delivery.next_attempt_at, isoOf(at + 7 + 30 * SECOND))
  })

  it("only a failed delivery can be re-fired", () => {
    assert.isTrue(Result.isFailure(refire(fresh(), T0)))
    assert.isTrue(Result.isFailure(refire(ok(fresh(), T0, responded(500, 1)).delivery, T0 + HOUR)))
  })

  it("any run of outcomes: at most 6 attempts, failed only after 6 failures, attempts numbered 0..5", () => {
    const outcome = fc.oneof(
      fc
        .integer({ min: 100, max: 599 })
        .chain((s) => fc.integer({ min: 0, max: 20 * SECOND }).map((e) => responded(s, e))),
      fc.constantFrom<TransportOutcome>(noResponse("timeout", 10 * SECOND), noResponse("connection_reset", 1))
    )
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 10 }), (outcomes) => {
        let delivery = fresh()
        const numbers: Array<number> = []
        let failures = 0
        for (const o of outcomes) {
          if (delivery.status !== "pending") break
          const recorded = ok(delivery, dueAt(delivery), o)
          numbers.push(recorded.attempt.attempt)
          if (recorded.attempt.outcome !== "delivered") failures++
          delivery = recorded.delivery
        }
        assert.deepStrictEqual(
          numbers,
          numbers.map((_, i) => i)
        )
        assert.isAtMost(delivery.attempts, 6)
        assert.strictEqual(delivery.status === "failed", failures === 6)
        if (delivery.status === "delivered") assert.strictEqual(failures, delivery.attempts - 1)
      })
    )
  })

  it("a scaled policy moves every retry by the same factor", () => {
    const policy = retryPolicy({ scale: 0.01 })
    let delivery = fresh()
    const starts: Array<number> = []
    for (let i = 0; i < 6; i++) {
      const at = dueAt(delivery)
      starts.push(at - T0)
      const recorded = recordAttempt(delivery, { at, outcome: responded(500, 1) }, policy)
      delivery = Result.getOrThrow(recorded).delivery
    }
    assert.deepStrictEqual(starts, [0, 300, 3_000, 18_000, 72_000, 432_000])
    assert.strictEqual(delivery.status, "failed")
  })
})
