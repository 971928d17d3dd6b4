/**
 * Files decoded item by item as they are read (ImportJsonStream.ts,
 * ImportStreamDecode.ts): whatever the text, and however its bytes are cut
 * into chunks, the decoder ends with exactly what parsing the file whole gives
 * (the same items, the same issues with their JSON paths, lines and columns),
 * streaming the files that decode cleanly and handing the others back whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { sourceDecoder } from "../../src/import/ImportDecode.ts"
import type { ReadBytes } from "../../src/import/ImportJsonStream.ts"
import { parseJsonText } from "../../src/import/ImportJsonText.ts"
import { entity, file, protocolAnswers, protocolQuestions, publication, scorecard } from "./ImportFixtures.ts"

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)

/** Reads `bytes` at most `chunk` bytes at a time, as a file read in small pieces. */
const reader = (bytes: Uint8Array, chunk: number): ReadBytes => {
  let at = 0
  return (into, offset, length) => {
    const n = Math.min(length, chunk, bytes.length - at)
    into.set(bytes.subarray(at, at + n), offset)
    at += n
    return n
  }
}

/** What `ratings import` reads of one file: streamed when it decodes cleanly, else parsed whole. */
const streamed = (text: string, chunk: number) => {
  const decoder = sourceDecoder()
  const issues: Array<unknown> = []
  const clean = decoder.addStream("a.json", reader(bytesOf(text), chunk))
  if (!clean) {
    const parsed = parseJsonText("a.json", text)
    if (Result.isSuccess(parsed)) decoder.add(parsed.success)
    else issues.push(parsed.failure)
  }
  return { clean, issues, decoded: decoder.result() }
}

/** The file parsed whole, as before streaming. */
const whole = (text: string) => {
  const decoder = sourceDecoder()
  const parsed = parseJsonText("a.json", text)
  if (Result.isSuccess(parsed)) decoder.add(parsed.success)
  return { issues: Result.isFailure(parsed) ? [parsed.failure] : [], decoded: decoder.result() }
}

const sameAsWhole = (text: string, chunk: number) => {
  const s = streamed(text, chunk)
  const w = whole(text)
  assert.deepStrictEqual(s.issues, w.issues)
  assert.deepStrictEqual(s.decoded, w.decoded)
  return s
}

const valid = JSON.stringify(
  file({
    description: "two protocols",
    questions: protocolQuestions,
    entities: [entity("protocol", "lend", 1), entity("protocol", "swap", 2)],
    scorecards: [
      scorecard(10, "lend", 1, protocolAnswers(100)),
      scorecard(11, "swap", 1, protocolAnswers(200))
    ],
    publications: [publication("lend", 1, "2026-08-02T00:00:00Z")]
  }),
  null,
  1
)

describe("ImportJsonStream", () => {
  it("a valid file is streamed, chunk size 1 to a megabyte, and decodes as when parsed whole", () => {
    for (const chunk of [1, 2, 3, 7, 64, 4096, 1 << 20]) {
      const s = sameAsWhole(valid, chunk)
      assert.isTrue(s.clean, `chunk ${chunk}`)
      assert.strictEqual(s.decoded.content.scorecards.length, 2)
    }
    assert.isTrue(sameAsWhole(`\uFEFF ${valid}\n\n`, 5).clean)
    assert.isTrue(sameAsWhole('{"format":"ratings-import/v1","entities":[],"scorecards":[ ]}', 3).clean)
  })

  it("malformed, truncated or odd files are handed back whole: same issues, paths, lines and columns", () => {
    const cases = [
      valid.slice(0, valid.length / 2),
      valid.slice(0, -1),
      `${valid} x`,
      `${valid}}`,
      valid.replace('"entities": [', '"entities": [,'),
      valid.replace("}\n ],", "},\n ],"),
      valid.replace('"format"', '"format": "x", "format"'),
      valid.replace('"entities"', '"__proto__": {}, "entities"'),
      valid.replace('"lend"', '"le\\u0000nd"'),
      valid.replace('"lend"', '"lend", "extra": 1e400'),
      valid.replace('"entities": [', '"entities": {"a": ['),
      valid.replace('"slug": "swap"', '"slug": "Swap Protocol"'),
      '{"format":"ratings-import/v2"}',
      '{"format":"ratings-import/v1","entities":[1,"x",null,true]}',
      '{"format":"ratings-import/v1","entities":[1 2]}',
      '{"format":"ratings-import/v1","entities":[tru]}',
      '{"format":"ratings-import/v1","entities":["abc]}',
      '[{"format":"ratings-import/v1"}]',
      "",
      "   ",
      "{",
      '{"format"',
      '{"format":'
    ]
    for (const text of cases)
      for (const chunk of [1, 3, 1 << 20]) {
        const s = sameAsWhole(text, chunk)
        assert.isFalse(s.clean, `${JSON.stringify(text.slice(0, 60))} streamed`)
      }
  })

  it("a string of megabytes inside an item, and deeply nested values, neither crash nor differ", () => {
    const huge = "x".repeat(3_000_000)
    const long = JSON.stringify(file({ entities: [entity("protocol", "lend", 1, { description: huge })] }))
    const s = sameAsWhole(long, 65_536)
    assert.isTrue(s.clean)
    const deep = `{"format":"ratings-import/v1","entities":[${"[".repeat(20_000)}${"]".repeat(20_000)}]}`
    assert.isFalse(sameAsWhole(deep, 4096).clean)
    const unclosed = `{"format":"ratings-import/v1","entities":[${"[".repeat(20_000)}`
    assert.isFalse(sameAsWhole(unclosed, 4096).clean)
  })

  it("any cut or change of a valid file gives what parsing it whole gives", () => {
    const small = JSON.stringify(
      file({
        entities: [entity("protocol", "lend", 1)],
        publications: [publication("lend", 1, "2026-08-02T00:00:00Z")]
      })
    )
    fc.assert(
      fc.property(
        fc.nat(small.length),
        fc.nat(small.length),
        fc.constantFrom("", ",", "]", "}", '"', "[", "{", ":", " ", "1", "\\"),
        fc.integer({ min: 1, max: 40 }),
        (at, cut, insert, chunk) => {
          const end = Math.min(small.length, at + (cut % 3))
          sameAsWhole(small.slice(0, at) + insert + small.slice(end), chunk)
        }
      ),
      { numRuns: 300 }
    )
  })
})
