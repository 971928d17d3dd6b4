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
    const pooled = cards.map(pool.scorecard)
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
