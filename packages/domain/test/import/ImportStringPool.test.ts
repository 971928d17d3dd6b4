/**
 * The decoder shares the repeated texts of answers (ImportStringPool.ts):
 * what it gives back is the same import, value for value, and the input it
 * read is left as it was.
 */
import { assert, describe, it } from "@effect/vitest"
import { decodeSources, sourceDecoder } from "../../src/import/ImportDecode.ts"
import type { ImportScorecard } from "../../src/import/ImportFile.ts"
import { stringPool } from "../../src/import/ImportStringPool.ts"
import { answer, file, protocolAnswers, scorecard } from "./ImportFixtures.ts"

const long = "a rationale longer than the pooled texts: ".repeat(4)

const card = (n: number) =>
  scorecard(n, `lend-${n}`, 1, [
    ...protocolAnswers(n * 10),
    { ...answer(n * 10 + 5, "PROT-GOV-01", "governance", 2), rationale: long, response: null }
  ])

describe("ImportStringPool", () => {
  it("pooled scorecards are the scorecards given, value for value, and the input is not changed", () => {
    const pool = stringPool()
    const cards = [card(1), card(2), card(3)] as unknown as ReadonlyArray<ImportScorecard>
    const before = structuredClone(cards)
    const pooled = cards.map((c) => pool.shareIn(structuredClone(c)))
    assert.deepStrictEqual(pooled, before)
    assert.deepStrictEqual(cards, before)
    assert.notStrictEqual(pooled[0], cards[0])
  })

  it("decoded one file at a time, scorecards keep every answer as written", () => {
    const sources = [1, 2].map((n) => ({ name: `${n}.json`, content: file({ scorecards: [card(n)] }) }))
    const decoder = sourceDecoder()
    for (const s of sources) decoder.add(s)
    const decoded = decoder.result()
    assert.deepStrictEqual(decoded.issues, [])
    assert.deepStrictEqual(
      decoded.content.scorecards.map((s) => s.value.answers),
      sources.map((s) => (s.content as { scorecards: Array<{ answers: unknown }> }).scorecards[0]!.answers)
    )
    assert.deepStrictEqual(decoded, decodeSources(sources))
  })
})

describe("ImportStringPool.shareIn", () => {
  it("shares equal texts between values, in place, leaving every value as it was and frozen objects alone", () => {
    const pool = stringPool()
    const make = () => ({
      status: ["pub", "lished"].join(""),
      tags: [["l", "2"].join(""), "x"],
      deep: { note: ["n", "ote"].join(""), n: 1, none: null },
      long: "y".repeat(500)
    })
    const a = pool.shareIn(make())
    const b = make()
    const before = structuredClone(b)
    assert.strictEqual(pool.shareIn(b), b)
    assert.deepStrictEqual(b, before)
    assert.deepStrictEqual(a, before)
    const frozen = Object.freeze({ status: ["pub", "lished"].join("") })
    assert.deepStrictEqual(pool.shareIn(frozen), { status: "published" })
  })
})
