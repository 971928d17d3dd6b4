import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  CanonicalTimestampPattern,
  canonicalTimestamp,
  Fraction,
  IsoDateTime,
  isIsoDateTime,
  isoTimestamp,
  isoTimestampOf,
  NulMessage,
  nulPaths,
  Percent,
  Slug,
  Text,
  Uuid
} from "../../src/model/Primitives.ts"

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

  // api-facts: the live service writes `"last_rated_at": "2026-08-01T00:00:00+00:00"` (Python's isoformat).
  const wireForm = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/
  const years1970To9999 = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) })

  it("timestamps are written as Python's isoformat writes UTC: +00:00, and a fraction only when there is one, of six digits", () => {
    assert.strictEqual(isoTimestamp(0), "1970-01-01T00:00:00+00:00")
    assert.strictEqual(isoTimestamp(123), "1970-01-01T00:00:00.123000+00:00")
    assert.strictEqual(isoTimestamp(999), "1970-01-01T00:00:00.999000+00:00")
    assert.strictEqual(isoTimestamp(1), "1970-01-01T00:00:00.001000+00:00")
    assert.strictEqual(isoTimestamp(Date.UTC(2026, 7, 1)), "2026-08-01T00:00:00+00:00")
    assert.strictEqual(isoTimestamp(Date.UTC(2026, 7, 1, 23, 59, 59, 10)), "2026-08-01T23:59:59.010000+00:00")
    assert.strictEqual(
      isoTimestampOf(new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999))),
      "9999-12-31T23:59:59.999000+00:00"
    )
    assert.throws(() => isoTimestamp(Number.NaN), RangeError)
  })

  it("the same instant rendered again, or after another, or as a Date, reads the same", () => {
    const sequence = [5, 5, 1_000, 5, 0, -0, 1_000, Date.UTC(2026, 7, 1), 5]
    for (const ms of sequence) {
      const want = new Date(ms)
        .toISOString()
        .replace(/\.(\d{3})Z$/u, (_, f) => (f === "000" ? "+00:00" : `.${f}000+00:00`))
      assert.strictEqual(isoTimestamp(ms), want, String(ms))
      assert.strictEqual(isoTimestampOf(new Date(ms)), want, String(ms))
    }
    assert.throws(() => isoTimestampOf(new Date(Number.NaN)), RangeError)
    assert.strictEqual(isoTimestamp(5), "1970-01-01T00:00:00.005000+00:00")
  })

  it("a written timestamp parses back to the same millisecond, has the wire form, and is accepted as input", () => {
    fc.assert(
      fc.property(years1970To9999, (ms) => {
        const text = isoTimestamp(ms)
        assert.strictEqual(Date.parse(text), ms, text)
        assert.match(text, wireForm)
        assert.match(text, CanonicalTimestampPattern)
        assert.isTrue(isIsoDateTime(text), text)
        assert.strictEqual(isoTimestampOf(new Date(ms)), text)
        // A whole second has no fraction; any other instant has one.
        assert.strictEqual(text.includes("."), ms % 1000 !== 0, text)
      }),
      { numRuns: 2000 }
    )
  })

  it("a timestamp given in any accepted spelling is re-spelled in the wire form for the same instant, keeping microseconds", () => {
    assert.strictEqual(canonicalTimestamp("2026-08-01T00:00:00Z"), "2026-08-01T00:00:00+00:00")
    assert.strictEqual(canonicalTimestamp("2026-08-01T00:00:00.000Z"), "2026-08-01T00:00:00+00:00")
    assert.strictEqual(canonicalTimestamp("2026-08-01T02:00:00.5+02:00"), "2026-08-01T00:00:00.500000+00:00")
    assert.strictEqual(
      canonicalTimestamp("2026-08-01T02:00:00.1234567+02:00"),
      "2026-08-01T00:00:00.123456+00:00"
    )
    assert.strictEqual(
      canonicalTimestamp("2026-07-31T18:30:00.000001-05:30"),
      "2026-08-01T00:00:00.000001+00:00"
    )
    assert.strictEqual(canonicalTimestamp("2026-08-01T00:00:00+00:00"), "2026-08-01T00:00:00+00:00")
    assert.strictEqual(canonicalTimestamp("yesterday"), "yesterday")
    const offset = fc.tuple(
      fc.constantFrom("+", "-"),
      fc.integer({ min: 0, max: 14 }),
      fc.integer({ min: 0, max: 59 })
    )
    fc.assert(
      fc.property(years1970To9999, fc.integer({ min: 0, max: 999 }), offset, (ms, micros, [sign, h, m]) => {
        // The same instant spelled with another offset and microseconds below the millisecond.
        const shift = (sign === "+" ? 1 : -1) * (h * 60 + m) * 60_000
        const local = new Date(ms + shift).toISOString().slice(0, -1)
        const spelled = `${local}${String(micros).padStart(3, "0")}${sign}${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`
        fc.pre(isIsoDateTime(spelled))
        const text = canonicalTimestamp(spelled)
        assert.match(text, wireForm)
        assert.strictEqual(Date.parse(text), ms, `${spelled} -> ${text}`)
        const fraction = (ms % 1000) * 1000 + micros
        assert.strictEqual(
          text.includes(".") ? Number(text.slice(20, 26)) : 0,
          fraction,
          `${spelled} -> ${text}`
        )
        assert.strictEqual(canonicalTimestamp(text), text)
      }),
      { numRuns: 2000 }
    )
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

  it("text is any string without a NUL character (U+0000), and the refusal says so", () => {
    for (const ok of ["", "Aave V3", "naïve ✓", "\u0001 and \uFFFF"]) assert.isTrue(accepts(Text, ok), ok)
    for (const bad of ["\u0000", "a\u0000", "\u0000b", "Lend\u0000well"])
      assert.isFalse(accepts(Text, bad), bad)
    const refused = Schema.decodeUnknownResult(Text)("Lend\u0000well")
    assert.isTrue(Result.isFailure(refused) && String(refused.failure).includes(NulMessage))
  })

  it("nulPaths finds every string and key holding a NUL character in a JSON value, and nothing in one without", () => {
    assert.deepStrictEqual(nulPaths({ a: [1, "x", { b: "y\u0000" }], "k\u0000": "ok", c: "\u0000" }), [
      ["a", 2, "b"],
      ["k\u0000"],
      ["c"]
    ])
    const noNul = fc.jsonValue().filter((v) => !JSON.stringify(v).includes("\\u0000"))
    fc.assert(fc.property(noNul, (v) => nulPaths(v).length === 0))
    // Deeper than any call stack (JSON.parse takes any depth): walked, not a RangeError.
    const depth = 100_000
    const deep = nulPaths(JSON.parse(`${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}`))
    assert.deepStrictEqual(deep.length === 1 ? deep[0]!.length : -1, depth)
    // Planting a NUL in any string of a value is found at exactly that string's path.
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 8 }), fc.nat(), (strings, pick) => {
        const clean = strings.map((t) => t.replaceAll("\u0000", ""))
        const i = pick % clean.length
        const value = { items: clean.map((t, j) => ({ text: j === i ? `${t}\u0000` : t })) }
        assert.deepStrictEqual(nulPaths(value), [["items", i, "text"]])
      })
    )
  })
})
