/**
 * The webhook delivery state machine (spec part 3, "Webhook delivery"), as
 * pure transitions over `Delivery` values:
 *
 *   pending --2xx within 10 s--------------------------> delivered (terminal)
 *   pending --non-2xx / no response in 10 s, retries left--> pending, next_attempt_at from the schedule
 *   pending --failure of retry 5 (the final)-------------> failed
 *   pending --endpoint disabled: recorded, not sent--------> failed, no attempt counted
 *   failed  --manual re-fire-----------------------------> pending, new cycle, same delivery_id
 *
 * Nothing here reads a clock: the caller passes `at` (epoch ms).
 */
import { Result } from "effect"
import {
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  DeliveryTransitionRejected,
  isoOf,
  millisOf,
  type TransportOutcome
} from "../model/Delivery.ts"
import type { WebhookEventKind } from "../model/WebhookEvent.ts"
import { DefaultRetryPolicy, nextAttemptAt, type RetryPolicy } from "./RetrySchedule.ts"

export interface NewDelivery {
  readonly delivery_id: string
  readonly rule_id: string
  readonly event: WebhookEventKind
  readonly body: string
  /** Epoch ms; the initial attempt is due from this instant. */
  readonly at: number
}

/** A delivery as enqueued: pending, no attempt yet, due at once. */
export const newDelivery = (input: NewDelivery): Delivery => ({
  delivery_id: input.delivery_id,
  rule_id: input.rule_id,
  event: input.event,
  body: input.body,
  status: "pending",
  cycle: 0,
  attempts: 0,
  next_attempt_at: isoOf(input.at),
  first_attempt_at: null,
  last_error: null,
  created_at: isoOf(input.at)
})

/** Whether a worker may attempt the delivery at `at` (epoch ms). */
export const isDue = (delivery: Delivery, at: number): boolean =>
  delivery.status === "pending" &&
  delivery.next_attempt_at !== null &&
  millisOf(delivery.next_attempt_at) <= at

export interface Classified {
  readonly delivered: boolean
  readonly outcome: AttemptOutcome
  readonly status_code: number | null
  readonly error: string | null
}

const isSuccessStatus = (status: number): boolean => status >= 200 && status <= 299

/**
 * What a transport outcome means for the delivery. Only a 2xx within the
 * receiver timeout delivers; a 2xx after it counts as no response.
 */
export const classify = (outcome: TransportOutcome, policy: RetryPolicy = DefaultRetryPolicy): Classified => {
  if (outcome._tag === "NoResponse") {
    return {
      delivered: false,
      outcome: outcome.reason === "timeout" ? "timeout" : "network_error",
      status_code: null,
      error: outcome.message === outcome.reason ? outcome.reason : `${outcome.reason}: ${outcome.message}`
    }
  }
  if (outcome.elapsed_ms > policy.receiverTimeoutMs) {
    return {
      delivered: false,
      outcome: isSuccessStatus(outcome.status) ? "late_response" : "timeout",
      status_code: outcome.status,
      error: `HTTP ${outcome.status} after ${Math.round(outcome.elapsed_ms)} ms, beyond the ${policy.receiverTimeoutMs} ms receiver timeout`
    }
  }
  if (isSuccessStatus(outcome.status)) {
    return { delivered: true, outcome: "delivered", status_code: outcome.status, error: null }
  }
  return {
    delivered: false,
    outcome: "http_error",
    status_code: outcome.status,
    error: `HTTP ${outcome.status}`
  }
}

export interface AttemptInput {
  /** When the attempt started, epoch ms. */
  readonly at: number
  readonly outcome: TransportOutcome
}

export interface AttemptRecorded {
  readonly delivery: Delivery
  readonly attempt: DeliveryAttempt
}

const rejected = (delivery: Delivery, reason: string) =>
  Result.fail(
    new DeliveryTransitionRejected({ delivery_id: delivery.delivery_id, status: delivery.status, reason })
  )

/**
 * Applies one attempt's outcome. Refused for delivered and failed deliveries
 * (terminal until a manual re-fire) and for an attempt started before the
 * delivery was due: a retry never runs early.
 */
export const recordAttempt = (
  delivery: Delivery,
  input: AttemptInput,
  policy: RetryPolicy = DefaultRetryPolicy
): Result.Result<AttemptRecorded, DeliveryTransitionRejected> => {
  if (delivery.status !== "pending")
    return rejected(delivery, `a ${delivery.status} delivery takes no attempts`)
  if (!isDue(delivery, input.at)) {
    return rejected(
      delivery,
      `attempt at ${isoOf(input.at)} is before next_attempt_at ${delivery.next_attempt_at}`
    )
  }
  const attemptNumber = delivery.attempts
  if (attemptNumber > policy.offsetsMs.length) return rejected(delivery, "no attempts left")
  const result = classify(input.outcome, policy)
  const firstAttemptAt = delivery.first_attempt_at === null ? input.at : millisOf(delivery.first_attempt_at)
  const attemptsMade = attemptNumber + 1
  const attempt: DeliveryAttempt = {
    delivery_id: delivery.delivery_id,
    cycle: delivery.cycle,
    attempt: attemptNumber,
    started_at: isoOf(input.at),
    status_code: result.status_code,
    outcome: result.outcome,
    error: result.error,
    duration_ms: Math.max(0, Math.round(input.outcome.elapsed_ms))
  }
  const first_attempt_at = isoOf(firstAttemptAt)
  // One copy of the delivery per outcome: the dispatcher records every attempt through here.
  if (result.delivered) {
    return Result.succeed({
      delivery: {
        ...delivery,
        attempts: attemptsMade,
        first_attempt_at,
        status: "delivered",
        next_attempt_at: null,
        last_error: null
      },
      attempt
    })
  }
  const next = nextAttemptAt(firstAttemptAt, attemptsMade, policy)
  return Result.succeed({
    delivery: {
      ...delivery,
      attempts: attemptsMade,
      first_attempt_at,
      status: next === undefined ? "failed" : "pending",
      next_attempt_at: next === undefined ? null : isoOf(next),
      last_error: result.error
    },
    attempt
  })
}

/**
 * Manual re-fire (dashboard or API) of a failed delivery: a fresh cycle of
 * an initial attempt at `at` plus the full retry schedule, with the same
 * delivery_id and body. Only failed deliveries can be re-fired: a delivered
 * one was acknowledged, a pending one is still in its cycle. Receivers ignore
 * a delivery_id they have seen (spec part 6), so one that did process a late
 * attempt takes the re-fire as a duplicate, and one that never saw it
 * processes it once; a new id would defeat that. Each attempt still gets a
 * fresh `webhook-timestamp`, so the receiver's replay protection holds.
 */
export const refire = (
  delivery: Delivery,
  at: number
): Result.Result<Delivery, DeliveryTransitionRejected> => {
  if (delivery.status !== "failed") return rejected(delivery, `only a failed delivery can be re-fired`)
  return Result.succeed({
    ...delivery,
    status: "pending",
    cycle: delivery.cycle + 1,
    attempts: 0,
    next_attempt_at: isoOf(at),
    first_attempt_at: null
  })
}

/**
 * A due delivery of a disabled endpoint, recorded but not sent: failed at
 * once with `reason`, no attempt counted, so that enabling the endpoint (or
 * any re-fire) sends it with a full cycle. Only a pending delivery is held.
 */
export const hold = (
  delivery: Delivery,
  reason: string
): Result.Result<Delivery, DeliveryTransitionRejected> => {
  if (delivery.status !== "pending") return rejected(delivery, `a ${delivery.status} delivery is not held`)
  return Result.succeed({ ...delivery, status: "failed", next_attempt_at: null, last_error: reason })
}
