/**
 * The compact table of an import's answers (ImportAnswerTable.ts): what it
 * gives back is what was stored, value for value, whatever the ids' spelling,
 * figures or texts; scorecards holding a slice read as plain objects; and its
 * index by id finds exactly the ids a Set of strings would.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Answer } from "../../src/model/Answer.ts"
import {
  answerFieldsOf,
  answerSliceOf,
  answerTable,
  reordered,
  withLazyAnswers
} from "../../src/import/ImportAnswerTable.ts"
import { decodeSources } from "../../src/import/ImportDecode.ts"
import { file, protocolAnswers, scorecard } from "./ImportFixtures.ts"

const uuid = (n: number, salt = 0): string => {
  const hex = (v: number, width: number) => v.toString(16).padStart(width, "0")
  return `${hex(salt, 8)}-0000-4000-8000-${hex(n, 12)}`
}

const answer = (n: number, over: Partial<Answer> = {}): Answer => ({
  id: uuid(n),
  question_id: `Q-${n % 7}`,
  domain: n % 3 === 0 ? null : "security",
  score: n % 5 === 0 ? null : (n % 4) + 0.5,
  max_score: 4,
  weight: 1 + (n % 2),
  confidence: n % 5 === 0 ? "not_applicable" : "high",
  response: n % 2 === 0 ? null : "Level 2 of 4",
  rationale: null,
  ...over
})

describe("ImportAnswerTable", () => {
  it("gives back every answer as stored: ids of any spelling, -0, nulls, long and odd texts", () => {
    const table = answerTable()
    const odd: ReadonlyArray<Answer> = [
      answer(1, { id: "FFFFFFFF-0000-4000-8000-000000000001" }),
      answer(2, { id: "not-a-uuid" }),
      answer(3, { id: "00000000-0000-0000-0000-000000000000" }),
      answer(4, { id: "ffffffff-ffff-ffff-ffff-ffffffffffff" }),
      answer(5, { score: -0 }),
      answer(6, { score: 0 }),
      answer(7, { rationale: "x".repeat(10_000), response: "y".repeat(100) }),
      answer(8, { question_id: "1:2", domain: "3" }),
      answer(9, { question_id: "1", domain: ":23" }),
      answer(10, { response: "~" }),
      answer(11, { response: null }),
      answer(12, { max_score: 1e300, weight: 5e-324 })
    ]
    const bulk = Array.from({ length: 150_000 }, (_, n) => answer(n + 100))
    const a = table.add(odd)
    const b = table.add(bulk)
    const c = table.add([])
    assert.strictEqual(table.size(), odd.length + bulk.length)
    assert.deepStrictEqual(table.read(a), odd)
    assert.deepStrictEqual(table.read(b), bulk)
    assert.deepStrictEqual(table.read(c), [])
    assert.isTrue(Object.is(table.read(a)[4]!.score, -0))
    assert.isTrue(Object.is(table.read(a)[5]!.score, 0))
  })

  it("reads a slice in another order, and orders compose", () => {
    const table = answerTable()
    const list = [answer(1), answer(2), answer(3)]
    const slice = table.add(list)
    const back = reordered(slice, Int32Array.of(2, 0, 1))
    assert.deepStrictEqual(table.read(back), [list[2], list[0], list[1]])
    assert.deepStrictEqual(table.read(reordered(back, Int32Array.of(1, 2, 0))), list)
    assert.deepStrictEqual(table.read(reordered(back, undefined)), table.read(back))
  })

  it("the answers without ids, for scoring, are the answers' other fields in the slice's order", () => {
    const table = answerTable()
    const list = [answer(1), answer(2), answer(3, { rationale: "z".repeat(100) })]
    const slice = reordered(table.add(list), Int32Array.of(2, 0, 1))
    const withoutId = ({ id: _, ...fields }: Answer) => fields
    assert.deepStrictEqual(table.fields(slice), table.read(slice).map(withoutId))
    const lazy = withLazyAnswers({ id: "s" }, slice)
    assert.deepStrictEqual(answerFieldsOf(lazy), [list[2]!, list[0]!, list[1]!].map(withoutId))
    assert.strictEqual(answerFieldsOf({ answers: list }), list)
  })

  it("the ids of a slice are its answers' ids in the slice's order, of any spelling", () => {
    const table = answerTable()
    const list = [
      answer(1),
      answer(2, { id: "NOT-a-uuid" }),
      answer(3, { id: "FFFFFFFF-0000-4000-8000-000000000003" })
    ]
    const slice = reordered(table.add(list), Int32Array.of(2, 0, 1))
    assert.deepStrictEqual(
      table.ids(slice),
      table.read(slice).map((a) => a.id)
    )
    assert.deepStrictEqual(table.ids(table.add([])), [])
  })

  it("the ids of a slice as words are its ids' bytes in the slice's order, when all are lower-case UUIDs", () => {
    const table = answerTable()
    const ids = ["0123abcd-4567-4def-89ab-cdef01234567", uuid(1), "ffffffff-ffff-4fff-bfff-ffffffffffff"]
    const slice = reordered(table.add(ids.map((id, n) => answer(n, { id }))), Int32Array.of(2, 0, 1))
    const words = table.idWords(slice)
    assert.isDefined(words)
    const hex = Array.from(words!, (w) => w.toString(16).padStart(8, "0")).join("")
    assert.strictEqual(hex, [ids[2], ids[0], ids[1]].map((id) => id!.replaceAll("-", "")).join(""))
    assert.deepStrictEqual(table.idWords(table.add([])), new Uint32Array(0))
    // Any other spelling is not kept as words: the slice's ids are read as text.
    for (const id of ["FFFFFFFF-0000-4000-8000-000000000003", "not-a-uuid"])
      assert.isUndefined(table.idWords(table.add([answer(4), answer(5, { id })])))
    assert.isDefined(table.idWords(table.add([answer(6)])))
  })

  it("an object with lazy answers reads, spreads, compares and serialises as a plain one", () => {
    const table = answerTable()
    const list = [answer(1), answer(2)]
    const lazy = withLazyAnswers({ id: "s", n: 1 }, table.add(list))
    const plain = { id: "s", n: 1, answers: list }
    assert.deepStrictEqual(lazy, plain)
    assert.deepStrictEqual({ ...lazy }, plain)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(lazy)), plain)
    assert.deepStrictEqual(Object.keys(lazy).sort(), ["answers", "id", "n"])
    assert.notStrictEqual(lazy.answers, lazy.answers)
    assert.isDefined(answerSliceOf(lazy))
    assert.isUndefined(answerSliceOf(plain))
  })

  it("its id index says an id is new exactly when a Set of strings would", () => {
    const table = answerTable()
    const ids = [
      ...Array.from({ length: 40_000 }, (_, n) => uuid(n % 9000, n % 3)),
      "odd-1",
      "odd-1",
      "ABCDEF00-0000-4000-8000-000000000001",
      "abcdef00-0000-4000-8000-000000000001"
    ]
    table.add(ids.slice(0, 1000).map((id, n) => answer(n, { id })))
    const index = table.idIndex()
    table.add(ids.slice(1000).map((id, n) => answer(n, { id })))
    const reference = new Set<string>()
    ids.forEach((id, i) => {
      const fresh = !reference.has(id)
      reference.add(id)
      assert.strictEqual(index.add(i), fresh, id)
    })
    for (const id of [...reference].slice(0, 500)) assert.isTrue(index.has(id), id)
    assert.isFalse(index.has(uuid(123_456, 7)))
    assert.isFalse(index.has("odd-2"))
  })

  it("decoded scorecards keep their answers in the table and read them as written", () => {
    const answers = protocolAnswers(10)
    const decoded = decodeSources([
      { name: "a.json", content: file({ scorecards: [scorecard(1, "lend", 1, answers)] }) }
    ])
    const card = decoded.content.scorecards[0]!.value
    assert.isDefined(answerSliceOf(card))
    assert.deepStrictEqual(card.answers as unknown, answers)
  })
})
