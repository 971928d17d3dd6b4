/**
 * The OTLP headers text, written the OpenTelemetry way
 * (OTEL_EXPORTER_OTLP_HEADERS): `key=value` pairs separated by commas, keys
 * and values trimmed, values percent-decoded; anything else is refused.
 * (The export itself is checked end to end by apps/server Observability.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { headersOf, OtlpHeadersText } from "../src/server/OtlpTracing.ts"

describe("OTLP headers", () => {
  it("key=value pairs are split on commas, trimmed, and their values percent-decoded", () => {
    assert.deepStrictEqual(headersOf("authorization=Bearer%20abc, x-tenant = ratings"), {
      authorization: "Bearer abc",
      "x-tenant": "ratings"
    })
  })

  it("text that is not key=value pairs is refused", () => {
    const valid = Schema.is(OtlpHeadersText)
    assert.isTrue(valid("a=1,b=2"))
    assert.isTrue(valid("a="))
    assert.isFalse(valid("a"))
    assert.isFalse(valid("a=1,,b=2"))
    assert.isFalse(valid("=1"))
  })
})
