/**
 * `millisOf` remembers the last text it parsed: the same text again, another
 * spelling of it, a different instant and text that does not parse each
 * read as `Date.parse` reads them, in any order.
 */
import { assert, describe, it } from "@effect/vitest"
import { isoOf, millisOf } from "../../src/model/Delivery.ts"

describe("millisOf", () => {
  it("reads each text as Date.parse does, whatever was parsed before", () => {
    const texts = [
      isoOf(5),
      isoOf(5),
      "1970-01-01T00:00:00.005Z",
      isoOf(1_000),
      "not a date",
      "not a date",
      isoOf(5),
      "",
      "2026-08-01T02:00:00+02:00",
      isoOf(Date.UTC(2026, 7, 1))
    ]
    for (const text of texts) {
      const want = Date.parse(text)
      if (Number.isNaN(want)) assert.isNaN(millisOf(text), text)
      else assert.strictEqual(millisOf(text), want, text)
    }
    assert.strictEqual(millisOf("2026-08-01T02:00:00+02:00"), millisOf(isoOf(Date.UTC(2026, 7, 1))))
  })
})
