import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Fraction, IsoDateTime, isIsoDateTime, Percent, Slug, Uuid } from "../../src/model/Primitives.ts"

const accepts = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, input: unknown) =>
  Schema.is(schema)(input)

describe("Primitives", () => {
  it("date-times are ISO 8601 strings with a time zone, kept as their wire text", () => {
    for (const ok of [
      "2026-08-01T00:00:00+00:00",
      "2026-08-01T00:00:00Z",
      "2026-08-01T12:34:56.123456-05:30",
      "2024-02-29T23:59:59Z"
    ]) {
      assert.isTrue(isIsoDateTime(ok), ok)
      assert.strictEqual(Schema.encodeSync(IsoDateTime)(Schema.decodeUnknownSync(IsoDateTime)(ok)), ok)
    }
    for (const bad of [
      "2026-08-01",
      "2026-08-01T00:00:00",
      "2026-08-01 00:00:00+00:00",
      "2026-02-30T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-08-01T23:60:00Z",
      "yesterday"
    ]) {
      assert.isFalse(isIsoDateTime(bad), bad)
      assert.isFalse(accepts(IsoDateTime, bad), bad)
    }
  })

  it("a slug is kebab-case: lowercase a-z and 0-9 with single hyphens", () => {
    for (const ok of ["aave-v4", "usdc", "layer-zero-v2", "1inch"]) assert.isTrue(accepts(Slug, ok), ok)
    for (const bad of ["Aave", "aave--v4", "-aave", "aave-", "aave_v4", "aave v4", "", "ÿ"]) {
      assert.isFalse(accepts(Slug, bad), bad)
    }
  })

  it("ids are UUID strings", () => {
    assert.isTrue(accepts(Uuid, "3f1c2a9e-8b7d-4c1e-9a2b-5d6e7f8a9b0c"))
    assert.isFalse(accepts(Uuid, "aave-v4"))
  })

  it("composites are 0 to 100 and domain scores are fractions from 0 to 1", () => {
    assert.isTrue(accepts(Percent, 0) && accepts(Percent, 100) && accepts(Percent, 78.4))
    assert.isFalse(accepts(Percent, 100.1) || accepts(Percent, -1) || accepts(Percent, Number.NaN))
    assert.isTrue(accepts(Fraction, 0) && accepts(Fraction, 1) && accepts(Fraction, 0.8125))
    assert.isFalse(accepts(Fraction, 1.01) || accepts(Fraction, 81.25))
  })
})
