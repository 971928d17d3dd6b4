/**
 * The webhook transport with each send counted by outcome, for /metrics:
 * `ratings_webhook_attempts_total{outcome}`, where the outcome is
 * `delivered` (a 2xx), `http_error` (any other status) or the reason no
 * response came (`timeout`, `network_error`, ...). Installed only when
 * metrics are on; the transport it wraps is unchanged.
 */
import type { TransportOutcome } from "@ratings/domain/model/Delivery"
import { WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Effect, Layer, Metric } from "effect"

export const WebhookAttempts = Metric.counter("ratings_webhook_attempts_total", {
  description:
    "Webhook sends by the dispatcher, by outcome (delivered, http_error, timeout, network_error, ...)",
  incremental: true
})

/** The `outcome` label of a send. */
export const outcomeOf = (outcome: TransportOutcome): string =>
  outcome._tag === "NoResponse"
    ? outcome.reason
    : outcome.status >= 200 && outcome.status < 300
      ? "delivered"
      : "http_error"

/** The counter of each outcome label, made once per label rather than on every send. */
const countersByOutcome = new Map<string, Metric.Counter<number>>()
const counterOf = (outcome: TransportOutcome): Metric.Counter<number> => {
  const label = outcomeOf(outcome)
  let counter = countersByOutcome.get(label)
  if (counter === undefined) {
    counter = Metric.withAttributes(WebhookAttempts, { outcome: label })
    countersByOutcome.set(label, counter)
  }
  return counter
}

/** Wraps the WebhookTransport it is given. */
export const layer: Layer.Layer<WebhookTransport, never, WebhookTransport> = Layer.effect(
  WebhookTransport,
  Effect.gen(function* () {
    const transport = yield* WebhookTransport
    const context = yield* Effect.context<never>()
    const { start } = transport
    return WebhookTransport.of({
      send: (request) =>
        Effect.tap(transport.send(request), (outcome) => Metric.update(counterOf(outcome), 1)),
      // Counted as the outcome is handed on, in the context the layer was built in (its metrics registry).
      start:
        start === undefined
          ? undefined
          : (request, done) =>
              start(request, (outcome, warning) => {
                counterOf(outcome).updateUnsafe(1, context)
                done(outcome, warning)
              })
    })
  })
)
