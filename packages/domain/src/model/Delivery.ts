/**
 * Webhook deliveries and their attempts (spec part 3, "Webhook delivery";
 * part 6, "Retry and idempotency"), as the outbox stores them and the
 * dashboard and API list them. A delivery is one event addressed to one rule.
 * Its `delivery_id` is kept across every attempt and re-fire, because
 * receivers dedupe on it; its `body` is the exact JSON text signed and sent,
 * so a retry sends the same bytes. Signing keys are never part of these
 * shapes. Status: `pending`, `delivered` (a 2xx within the receiver timeout)
 * or `failed` (the initial attempt and 5 retries failed; re-fired only by
 * hand). `cycle` counts re-fires, `attempts` those of the current cycle.
 */
import { Schema } from "effect"
import { IsoDateTime, isoTimestamp, NonNegativeInt, Uuid } from "./Primitives.ts"
import { WebhookEventKind } from "./WebhookEvent.ts"

const Count = (description: string) =>
  Schema.Int.annotate({ description }).check(Schema.isGreaterThanOrEqualTo(0))

export const DeliveryStatuses = ["pending", "delivered", "failed"] as const
export type DeliveryStatus = (typeof DeliveryStatuses)[number]
export const DeliveryStatus = Schema.Literals(DeliveryStatuses)

export const Delivery = Schema.Struct({
  delivery_id: Uuid,
  rule_id: Uuid,
  event: WebhookEventKind,
  body: Schema.String.annotate({ description: "The raw JSON body, exactly as signed and sent" }),
  status: DeliveryStatus,
  cycle: Count("Manual re-fires so far; 0 for the original run"),
  attempts: Count("Attempts made in the current cycle (initial + retries)"),
  next_attempt_at: Schema.NullOr(IsoDateTime),
  /** Start of the initial attempt of the current cycle; retry offsets count from it. */
  first_attempt_at: Schema.NullOr(IsoDateTime),
  last_error: Schema.NullOr(Schema.String),
  created_at: IsoDateTime
})
export type Delivery = typeof Delivery.Type

/**
 * How an attempt ended, as recorded:
 * - `delivered`: 2xx within the receiver timeout;
 * - `http_error`: a non-2xx status;
 * - `late_response`: a 2xx after the receiver timeout, which counts as no
 *   response (the receiver may well have processed it: hence dedupe);
 * - `timeout`: no response within the timeout;
 * - `network_error`: refused, reset, DNS, TLS or a target the transport
 *   would not call.
 */
export const AttemptOutcomes = [
  "delivered",
  "http_error",
  "late_response",
  "timeout",
  "network_error"
] as const
export type AttemptOutcome = (typeof AttemptOutcomes)[number]
export const AttemptOutcome = Schema.Literals(AttemptOutcomes)

export const DeliveryAttempt = Schema.Struct({
  delivery_id: Uuid,
  cycle: NonNegativeInt,
  attempt: Schema.Int.annotate({ description: "0 for the initial attempt, 1 to 5 for retries" }).check(
    Schema.isBetween({ minimum: 0, maximum: 5 })
  ),
  started_at: IsoDateTime,
  status_code: Schema.NullOr(Schema.Int),
  outcome: AttemptOutcome,
  error: Schema.NullOr(Schema.String),
  duration_ms: NonNegativeInt
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type

export const DeliveryWithAttempts = Schema.Struct({
  ...Delivery.fields,
  attempt_log: Schema.Array(DeliveryAttempt)
})
export type DeliveryWithAttempts = typeof DeliveryWithAttempts.Type

/** Why a transport got no HTTP response. */
export const TransportFailureReasons = [
  "timeout",
  "connection_refused",
  "connection_reset",
  "dns",
  "tls",
  "target_refused",
  "other"
] as const
export type TransportFailureReason = (typeof TransportFailureReasons)[number]

/**
 * What a transport reports for one POST: the status of a response and how
 * long it took, or why there was none. Classifying it against the receiver
 * timeout is the state machine's job, not the transport's.
 */
export type TransportOutcome =
  | { readonly _tag: "Response"; readonly status: number; readonly elapsed_ms: number }
  | {
      readonly _tag: "NoResponse"
      readonly reason: TransportFailureReason
      readonly message: string
      readonly elapsed_ms: number
    }

export const responded = (status: number, elapsed_ms: number): TransportOutcome => ({
  _tag: "Response",
  status,
  elapsed_ms
})

export const noResponse = (
  reason: TransportFailureReason,
  elapsed_ms: number,
  message: string = reason
): TransportOutcome => ({ _tag: "NoResponse", reason, message, elapsed_ms })

export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()("DeliveryNotFound", {
  delivery_id: Schema.String
}) {}

/** A transition the state machine refuses (attempt on a terminal delivery, re-fire of a non-failed one ...). */
export class DeliveryTransitionRejected extends Schema.TaggedError<DeliveryTransitionRejected>()(
  "DeliveryTransitionRejected",
  {
    delivery_id: Schema.String,
    status: DeliveryStatus,
    reason: Schema.String
  }
) {}

/** Epoch milliseconds as the ISO string the model stores, in the form this service writes (`isoTimestamp`). */
export const isoOf = (epochMillis: number): string => isoTimestamp(epochMillis)

let lastParsedIso = ""
let lastParsedMillis = Number.NaN

/**
 * An ISO date-time as epoch milliseconds. The last text parsed is
 * remembered: the deliveries of one claim mostly share their due time, and
 * the dispatcher reads it for every attempt it records.
 */
export const millisOf = (iso: string): number => {
  if (iso === lastParsedIso) return lastParsedMillis
  const millis = Date.parse(iso)
  lastParsedIso = iso
  lastParsedMillis = millis
  return millis
}
