/**
 * Observability settings and wiring (README "Observability"): spans exported
 * over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (`TracingLayer`),
 * and counts of requests, cache hits, rate-limit refusals and webhook
 * attempts served at GET /metrics when RATINGS_METRICS=true or a
 * RATINGS_METRICS_TOKEN is set. Both are off by default: nothing is
 * installed. The layers themselves are the adapters': the OTLP tracer
 * (adapters-http `server/OtlpTracing.ts`), the counted webhook transport
 * (adapters-webhook `CountedTransport.ts`) and the gauges read at each scrape
 * (adapters-sql `PgMetricsProbe.ts`).
 */
import type { MetricsOptions } from "@ratings/adapters-http/server/Metrics"
import * as OtlpTracing from "@ratings/adapters-http/server/OtlpTracing"
import * as PgMetricsProbe from "@ratings/adapters-sql/PgMetricsProbe"
import * as CountedTransport from "@ratings/adapters-webhook/CountedTransport"
import { Config, Effect, Layer, Option, Schema } from "effect"
import { booleanSetting, HttpUrl } from "./ConfigValues.ts"

export const MetricsTokenSetting = "RATINGS_METRICS_TOKEN"

const Token = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      /^[\x21-\x7e]{16,}$/.test(value) || "must be at least 16 printable characters, no spaces"
  )
)

export const ObservabilityConfig = Config.all({
  otlpEndpoint: Config.option(Config.schema(HttpUrl, "OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("ratings-service")),
  otlpHeaders: Config.option(Config.schema(OtlpTracing.OtlpHeadersText, "OTEL_EXPORTER_OTLP_HEADERS")),
  metricsToken: Config.option(Config.schema(Schema.Redacted(Token), MetricsTokenSetting))
}).pipe(
  // Metrics on: RATINGS_METRICS (default: on when a token is set).
  Config.flatMap((settings) =>
    Config.map(booleanSetting("RATINGS_METRICS", Option.isSome(settings.metricsToken)), (metrics) => ({
      ...settings,
      metrics
    }))
  )
)

export type ObservabilitySettings = Config.Success<typeof ObservabilityConfig>

/**
 * Spans exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces` when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, every span the code declares and a
 * server span per request, as service OTEL_SERVICE_NAME with the headers of
 * OTEL_EXPORTER_OTLP_HEADERS (`key=value,key2=value2`); nothing otherwise.
 */
export const TracingLayer = Layer.unwrap(
  Effect.map(ObservabilityConfig, (settings) =>
    Option.match(settings.otlpEndpoint, {
      onNone: () => Layer.empty,
      onSome: (endpoint) =>
        OtlpTracing.layer({
          endpoint,
          serviceName: settings.serviceName,
          serviceVersion: "0.1.0",
          headers: Option.getOrUndefined(settings.otlpHeaders)
        })
    })
  )
)

/** The webhook transport with each send counted by outcome (installed only when metrics are on). */
export const countedTransport = CountedTransport.layer

/** The options of /metrics: the token, and the outbox and publication figures read at each scrape. */
export const metricsOptions = (settings: ObservabilitySettings) =>
  Effect.gen(function* () {
    const beforeScrape = PgMetricsProbe.refreshGauges(yield* PgMetricsProbe.MetricsProbe)
    return { token: Option.getOrUndefined(settings.metricsToken), beforeScrape } satisfies MetricsOptions
  }).pipe(Effect.provide(PgMetricsProbe.layer))
