/**
 * The webhook retry schedule (spec part 3 and part 6, "Retry and
 * idempotency"; part 8, "Limits"): retries at 30 s, 5 min, 30 min, 2 h and
 * 12 h (final) after the start of the initial attempt, not after the previous
 * one; a receiver has 10 s to answer. The policy in force is the
 * `RetryPolicy` reference: its default is the spec's schedule, and the app
 * provides it once (`RetryPolicy.layer`) from its configuration. The outbox
 * (which applies the offsets through the state machine) and the dispatcher
 * (which reads the receiver timeout and wakes at the retry times) both read
 * it, so they cannot disagree.
 */
import { Context, Layer } from "effect"

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/** Offsets of retries 1 to 5 from the start of the initial attempt, in ms. */
export const RetryOffsetsMs: ReadonlyArray<number> = [
  30 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  12 * HOUR
]

export const MaxRetries = RetryOffsetsMs.length

/** A receiver must answer with a 2xx within this many ms; a later 2xx counts as no response. */
export const ReceiverTimeoutMs = 10 * SECOND

export interface RetryPolicy {
  /** Offsets of retries 1..n from the start of the initial attempt, ascending. */
  readonly offsetsMs: ReadonlyArray<number>
  readonly receiverTimeoutMs: number
}

export interface RetryPolicyOptions {
  /** Factor applied to the offsets (tests and chaos runs only), > 0. */
  readonly scale?: number | undefined
}

/**
 * The policy, with the offsets scaled. Scaled offsets are whole ms, at least
 * 1, still ascending. `scale` shrinks the offsets for tests and chaos runs and
 * is applied only here; the receiver timeout is not scaled: it is a promise to
 * receivers, not a pacing choice.
 */
export const retryPolicy = (options: RetryPolicyOptions = {}): RetryPolicy => {
  const scale = options.scale ?? 1
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`retry schedule scale must be a finite number > 0, got ${scale}`)
  }
  return {
    offsetsMs:
      scale === 1 ? RetryOffsetsMs : RetryOffsetsMs.map((offset) => Math.max(1, Math.ceil(offset * scale))),
    receiverTimeoutMs: ReceiverTimeoutMs
  }
}

export const DefaultRetryPolicy: RetryPolicy = retryPolicy()

/**
 * The retry policy as a service: read it with `yield* RetryPolicy`; without a
 * provider it is the spec's schedule (`DefaultRetryPolicy`).
 */
const retryPolicyReference = Context.Reference<RetryPolicy>(
  "@ratings/domain/webhooks/RetrySchedule/RetryPolicy",
  {
    defaultValue: () => DefaultRetryPolicy
  }
)

export const RetryPolicy = Object.assign(retryPolicyReference, {
  /** The policy of these options (a scale, for tests), provided once for everything that reads it. */
  layer: (options: RetryPolicyOptions = {}): Layer.Layer<never> =>
    Layer.succeed(retryPolicyReference, retryPolicy(options))
})

/**
 * When the next attempt is due, given when the initial attempt started (epoch
 * ms) and how many attempts have been made (initial included): after the
 * initial attempt, retry 1 at +30 s; after retry 4, retry 5 at +12 h; after
 * retry 5, undefined: there is none.
 */
export const nextAttemptAt = (
  firstAttemptAt: number,
  attemptsMade: number,
  policy: RetryPolicy = DefaultRetryPolicy
): number | undefined => {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) return undefined
  const offset = policy.offsetsMs[attemptsMade - 1]
  return offset === undefined ? undefined : firstAttemptAt + offset
}
