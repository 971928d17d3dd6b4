/**
 * The answers of saveDrafts as column arrays (scorecards/AnswerColumns.ts):
 * a draft whose answers an import keeps in its compact table gives the very
 * columns a plain one does, read from the table without making an answer
 * object per answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { answerTable, reordered, withLazyAnswers } from "@ratings/domain/import/ImportAnswerTable"
import type { Answer } from "@ratings/domain/model/Answer"
import type { StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { answerArrays, answersOfSome } from "../src/scorecards/AnswerColumns.ts"

const answer = (n: number, over: Partial<Answer> = {}): Answer => ({
  id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
  question_id: `Q-${n % 7}`,
  domain: n % 3 === 0 ? null : "security",
  score: n % 5 === 0 ? null : (n % 4) + 0.5,
  max_score: 4,
  weight: 1 + (n % 2),
  confidence: n % 5 === 0 ? "not_applicable" : "high",
  response: n % 2 === 0 ? null : "Level 2 of 4",
  rationale: n % 4 === 0 ? "r".repeat(100) : null,
  ...over
})

const card = (id: string, answers: ReadonlyArray<Answer>) => ({ id, answers }) as unknown as StoredScorecard

describe("answerArrays", () => {
  it("reads a compact draft's columns from its table: the same columns as plain answers", () => {
    const table = answerTable()
    const first = Array.from({ length: 40 }, (_, n) => answer(n))
    const second = [answer(100, { id: "Not-A-Uuid" }), answer(101), answer(102)]
    const order = Int32Array.of(2, 0, 1)
    const a = table.add(first)
    const b = reordered(table.add(second), order)
    const plain = [card("s-1", first), card("s-2", [second[2]!, second[0]!, second[1]!])]
    let reads = 0
    const counting = {
      ...table,
      read: (slice: typeof a) => {
        reads++
        return table.read(slice)
      }
    }
    const lazy = [
      withLazyAnswers({ id: "s-1" }, { ...a, table: counting }) as unknown as StoredScorecard,
      withLazyAnswers({ id: "s-2" }, { ...b, table: counting }) as unknown as StoredScorecard
    ]
    const columns = answerArrays(lazy)
    assert.strictEqual(reads, 0)
    assert.deepStrictEqual(columns, answerArrays(plain))
    assert.strictEqual(columns.positions.length, 43)
    assert.deepStrictEqual(columns.fields[0]!.slice(40), [
      "00000000-0000-4000-8000-000000000066",
      "Not-A-Uuid",
      "00000000-0000-4000-8000-000000000065"
    ])
    assert.deepStrictEqual(answersOfSome(columns, new Set(["s-2"])), answerArrays([plain[1]!]))
  })
})
