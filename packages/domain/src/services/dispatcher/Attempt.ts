/**
 * One attempt of a claimed delivery: sign, send, record, log. Traced as
 * `WebhookDispatcher.attempt`, but without the call-site stack trace
 * `Effect.fn` captures: this runs for every delivery. Logs carry
 * delivery_id, rule_id, outcome and error only.
 */
import { Cause, Clock, Duration, Effect } from "effect"
import {
  type Delivery,
  type DeliveryNotFound,
  type DeliveryTransitionRejected,
  noResponse,
  type TransportOutcome
} from "../../model/Delivery.ts"
import type { AttemptToRecord } from "../../ports/DeliveryOutbox.ts"
import type { RuleDestination } from "../../ports/AlertRuleRepository.ts"
import type { WebhookRequest } from "../../ports/WebhookTransport.ts"
import type { AttemptRecorded } from "../../webhooks/DeliveryStateMachine.ts"
import { deliveryHeaders } from "../../webhooks/WebhookSignature.ts"
import {
  type Claimed,
  type DispatcherPorts,
  EndpointDisabledMessage,
  RuleDeletedMessage,
  TransportGraceMs
} from "./Settings.ts"

/** How an attempt's outcome is recorded: with the next batch (the loop) or alone (`deliverNow`). */
export type RecordAttempt = (
  attempt: AttemptToRecord
) => Effect.Effect<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>

/** The outcome of a send the transport did not end within its timeout and the grace. */
export const overran = (elapsedMs: number): TransportOutcome =>
  noResponse("timeout", elapsedMs, "the transport did not stop at the receiver timeout")

/** The request of an attempt of a delivery with a destination, started at `at` (epoch ms), signed. */
export const requestOf = (
  ports: DispatcherPorts,
  delivery: Delivery,
  destination: RuleDestination,
  at: number
): WebhookRequest => ({
  url: destination.webhook_url,
  headers: deliveryHeaders(
    delivery,
    destination.signing_key,
    at / 1_000,
    ports.signer,
    destination.previous_signing_key
  ),
  body: delivery.body,
  timeoutMs: ports.policy.receiverTimeoutMs
})

/** Health counts what the endpoint answered: a failure, or a delivery that ends a failing run. */
export const healthOf = (
  ports: DispatcherPorts,
  delivery: Delivery,
  destination: RuleDestination | undefined,
  at: number,
  delivered: boolean
) =>
  destination !== undefined && (!delivered || destination.failing)
    ? ports.health({ rule_id: delivery.rule_id, at, delivered })
    : Effect.void

/** The error log of an attempt whose outcome could not be recorded. */
export const notRecorded = (delivery: Delivery, cause: Cause.Cause<unknown>) =>
  Effect.logError("webhook attempt not recorded; the delivery returns when its claim expires", cause).pipe(
    Effect.annotateLogs({ delivery_id: delivery.delivery_id, rule_id: delivery.rule_id })
  )

/** The transport's answer, or a timeout if it overruns its own timeout by the grace. */
const send = (ports: DispatcherPorts, request: WebhookRequest, startedAt: number) =>
  ports.transport.send(request).pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(request.timeoutMs + TransportGraceMs),
      orElse: () => Effect.map(Clock.currentTimeMillis, (now) => overran(now - startedAt))
    })
  )

/** The log line of a recorded attempt: delivered, failed for good, or to be retried. */
export const logRecorded = ({ delivery, attempt }: AttemptRecorded) => {
  const annotations = {
    delivery_id: delivery.delivery_id,
    rule_id: delivery.rule_id,
    cycle: attempt.cycle,
    attempt: attempt.attempt,
    outcome: attempt.outcome
  }
  if (delivery.status === "delivered")
    return Effect.logDebug("webhook delivered").pipe(Effect.annotateLogs(annotations))
  if (delivery.status === "failed")
    return Effect.logWarning("webhook delivery failed: retries exhausted").pipe(
      Effect.annotateLogs({ ...annotations, error: attempt.error })
    )
  return Effect.logInfo("webhook attempt failed; retry scheduled").pipe(
    Effect.annotateLogs({
      ...annotations,
      error: attempt.error,
      next_attempt_at: delivery.next_attempt_at
    })
  )
}

/** One attempt of a claimed delivery: sign, send, record. A deleted rule's delivery is recorded unsent. */
export const attempt = Effect.fnUntraced(
  function* (ports: DispatcherPorts, claimedOne: Claimed, record: RecordAttempt) {
    const { delivery: claimed, destination } = claimedOne
    const at = yield* Clock.currentTimeMillis
    const outcome: TransportOutcome = yield* destination === undefined
      ? Effect.succeed(noResponse("target_refused", 0, RuleDeletedMessage))
      : send(ports, requestOf(ports, claimed, destination, at), at)
    const recorded = yield* record({ claimed, input: { at, outcome } })
    yield* logRecorded(recorded)
    yield* healthOf(ports, claimed, destination, at, recorded.attempt.outcome === "delivered")
    return recorded
  },
  (effect) => Effect.withSpan(effect, "WebhookDispatcher.attempt", { captureStackTrace: false })
)

/** How a claimed delivery ended: an attempt recorded, or held unsent (its endpoint is disabled). */
export type Settled = AttemptRecorded | { readonly delivery: Delivery; readonly held: true }

/** A claimed delivery of a disabled endpoint: recorded as not sent, failed at once, no attempt counted. */
const holdDisabled = (ports: DispatcherPorts, claimed: Delivery) =>
  ports.outbox.hold(claimed, EndpointDisabledMessage).pipe(
    Effect.map((delivery): Settled => ({ delivery, held: true })),
    Effect.tap(() =>
      Effect.logDebug("webhook delivery held: the endpoint is disabled").pipe(
        Effect.annotateLogs({ delivery_id: claimed.delivery_id, rule_id: claimed.rule_id })
      )
    )
  )

/**
 * An attempt of the loop (or of `runOnce`) that never fails: anything but
 * interruption is logged and reported as undefined, and the delivery comes
 * back when its lease ends. A disabled endpoint's delivery is held, not sent.
 */
export const attemptSafely = (
  ports: DispatcherPorts,
  claimed: Claimed,
  record: RecordAttempt
): Effect.Effect<Settled | undefined> =>
  (claimed.destination?.disabled === true
    ? holdDisabled(ports, claimed.delivery)
    : attempt(ports, claimed, record)
  ).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.as(notRecorded(claimed.delivery, cause), undefined)
    )
  )
