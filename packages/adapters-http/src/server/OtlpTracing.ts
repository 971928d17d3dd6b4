/**
 * Spans exported over OTLP/HTTP (JSON) with Effect's OTLP exporter: every span
 * the code declares (and the server span per request) goes to
 * `<endpoint>/v1/traces`, batched, and is flushed when the layer closes (at
 * most `shutdownTimeout` later). Headers are written the OpenTelemetry way
 * (`OTEL_EXPORTER_OTLP_HEADERS`): `key=value,key2=value2`, values
 * percent-decoded.
 */
import { Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

/** Headers text in the OpenTelemetry convention: `key=value` pairs separated by commas. */
export const OtlpHeadersText = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      value.split(",").every((pair) => /^\s*[^=\s]+\s*=.*$/.test(pair)) ||
      "must be key=value pairs separated by commas"
  )
)

/** The headers of a checked `OtlpHeadersText`, values percent-decoded. */
export const headersOf = (value: string): Record<string, string> =>
  Object.fromEntries(
    value.split(",").map((pair) => {
      const at = pair.indexOf("=")
      return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())]
    })
  )

export interface OtlpTracingOptions {
  /** The collector's base URL: spans go to its `/v1/traces`. */
  readonly endpoint: URL
  readonly serviceName: string
  readonly serviceVersion: string
  /** `OtlpHeadersText`, such as `authorization=Bearer%20abc`. */
  readonly headers?: string | undefined
}

/** The tracer that exports every span to the collector. */
export const layer = (options: OtlpTracingOptions): Layer.Layer<never> =>
  OtlpTracer.layer({
    url: new URL(`${options.endpoint.pathname.replace(/\/$/, "")}/v1/traces`, options.endpoint).href,
    resource: { serviceName: options.serviceName, serviceVersion: options.serviceVersion },
    headers: options.headers === undefined ? undefined : headersOf(options.headers),
    shutdownTimeout: "3 seconds"
  }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
