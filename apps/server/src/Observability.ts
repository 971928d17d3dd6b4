/**
 * Observability settings and layers (README "Observability"):
 *
 * - OTEL_EXPORTER_OTLP_ENDPOINT set: every span the code declares (and a
 *   server span per request) is exported over OTLP/HTTP (JSON) to
 *   `<endpoint>/v1/traces`, as service OTEL_SERVICE_NAME (default
 *   `ratings-service`), with the headers of OTEL_EXPORTER_OTLP_HEADERS
 *   (`key=value,key2=value2`). Unset: no tracer is installed.
 * - RATINGS_METRICS=true, or a RATINGS_METRICS_TOKEN: `ratings serve` counts
 *   requests, cache hits, rate-limit refusals and webhook attempts, and
 *   serves them at GET /metrics (Metrics.ts of the HTTP adapter). Off by
 *   default: nothing is installed.
 */
import type { MetricsOptions } from "@ratings/adapters-http/server/Metrics"
import * as PgMetricsProbe from "@ratings/adapters-sql/PgMetricsProbe"
import type { TransportOutcome } from "@ratings/domain/model/Delivery"
import { WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Config, Effect, Layer, Metric, Option, type Redacted, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { booleanSetting } from "./Config.ts"

export const MetricsTokenSetting = "RATINGS_METRICS_TOKEN"

const Token = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      /^[\x21-\x7e]{16,}$/.test(value) || "must be at least 16 printable characters, no spaces"
  )
)

const OtlpEndpoint = Schema.URL.check(
  Schema.makeFilter(
    (url: URL) => url.protocol === "http:" || url.protocol === "https:" || "must be an http or https URL"
  )
)

/** `key=value,key2=value2`, values percent-decoded (the OpenTelemetry convention). */
const OtlpHeaders = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      value.split(",").every((pair) => /^\s*[^=\s]+\s*=.*$/.test(pair)) ||
      "must be key=value pairs separated by commas"
  )
)

const headersOf = (value: string): Record<string, string> =>
  Object.fromEntries(
    value.split(",").map((pair) => {
      const at = pair.indexOf("=")
      return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())]
    })
  )

export interface ObservabilitySettings {
  readonly otlpEndpoint: Option.Option<URL>
  readonly serviceName: string
  readonly otlpHeaders: Option.Option<string>
  /** Metrics on: RATINGS_METRICS (default: on when a token is set). */
  readonly metrics: boolean
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>
}

export const ObservabilityConfig: Config.Config<ObservabilitySettings> = Config.all({
  otlpEndpoint: Config.option(Config.schema(OtlpEndpoint, "OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("ratings-service")),
  otlpHeaders: Config.option(Config.schema(OtlpHeaders, "OTEL_EXPORTER_OTLP_HEADERS")),
  metricsToken: Config.option(Config.schema(Schema.Redacted(Token), MetricsTokenSetting))
}).pipe(
  Config.flatMap((settings) =>
    Config.map(booleanSetting("RATINGS_METRICS", Option.isSome(settings.metricsToken)), (metrics) => ({
      ...settings,
      metrics
    }))
  )
)

/** Spans exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export const TracingLayer = Layer.unwrap(
  Effect.map(ObservabilityConfig, (settings) =>
    Option.match(settings.otlpEndpoint, {
      onNone: () => Layer.empty,
      onSome: (endpoint) =>
        OtlpTracer.layer({
          url: new URL(`${endpoint.pathname.replace(/\/$/, "")}/v1/traces`, endpoint).href,
          resource: { serviceName: settings.serviceName, serviceVersion: "0.1.0" },
          headers: Option.getOrUndefined(Option.map(settings.otlpHeaders, headersOf)),
          shutdownTimeout: "3 seconds"
        }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
    })
  )
)

export const WebhookAttempts = Metric.counter("ratings_webhook_attempts_total", {
  description:
    "Webhook sends by the dispatcher, by outcome (delivered, http_error, timeout, network_error, ...)",
  incremental: true
})

export const WebhookQueueDepth = Metric.gauge("ratings_webhook_queue_depth", {
  description: "Webhook deliveries pending in the outbox (due now or waiting for a retry), at scrape time"
})

export const Publications = Metric.gauge("ratings_publications", {
  description:
    "Publications ever recorded (rating history rows, from any process: publish, import, demo load)"
})

const outcomeOf = (outcome: TransportOutcome): string =>
  outcome._tag === "NoResponse"
    ? outcome.reason
    : outcome.status >= 200 && outcome.status < 300
      ? "delivered"
      : "http_error"

/** The webhook transport with each send counted by outcome. */
export const countedTransport = Layer.effect(
  WebhookTransport,
  Effect.gen(function* () {
    const transport = yield* WebhookTransport
    return WebhookTransport.of({
      send: (request) =>
        Effect.tap(transport.send(request), (outcome) =>
          Metric.update(Metric.withAttributes(WebhookAttempts, { outcome: outcomeOf(outcome) }), 1)
        )
    })
  })
)

/** The options of /metrics: the token, and the outbox and publication figures read at each scrape. */
export const metricsOptions = (settings: ObservabilitySettings) =>
  Effect.gen(function* () {
    const probe = yield* PgMetricsProbe.MetricsProbe
    const beforeScrape = probe.read.pipe(
      Effect.flatMap((figures) =>
        Effect.andThen(
          Metric.update(WebhookQueueDepth, figures.webhookQueueDepth),
          Metric.update(Publications, figures.publications)
        )
      ),
      Effect.catchCause((cause) => Effect.logWarning("metrics: the outbox figures could not be read", cause))
    )
    return { token: Option.getOrUndefined(settings.metricsToken), beforeScrape } satisfies MetricsOptions
  }).pipe(Effect.provide(PgMetricsProbe.layer))
