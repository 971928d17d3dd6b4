/**
 * The import's set of answer ids: the same answers as a Set of the same
 * strings, whatever the spelling of the ids, through the table's growth.
 */
import { assert, describe, it } from "@effect/vitest"
import { answerIdSet } from "../../src/import/ImportAnswerIds.ts"

/** A lower-case UUID from a counter, so that neighbours differ in few bits. */
const uuid = (n: number, salt = 0): string => {
  const hex = (v: number, width: number) => v.toString(16).padStart(width, "0")
  return `${hex(salt, 8)}-0000-4000-8000-${hex(n, 12)}`
}

describe("ImportAnswerIds", () => {
  it("says an id is new exactly when a Set of strings would", () => {
    const ids = answerIdSet()
    const reference = new Set<string>()
    const seq = (n: number) => uuid(n % 5000, n % 3)
    for (let n = 0; n < 20_000; n++) {
      const id = seq(n * 7)
      const fresh = !reference.has(id)
      reference.add(id)
      assert.strictEqual(ids.add(id), fresh, id)
    }
    assert.strictEqual(ids.size, reference.size)
  })

  it("keeps ids through growth, words that differ only in one place, and the nil UUID", () => {
    const ids = answerIdSet()
    const all = [
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "ffffffff-ffff-ffff-ffff-fffffffffffe",
      "7fffffff-ffff-ffff-ffff-ffffffffffff",
      ...Array.from({ length: 10_000 }, (_, n) => uuid(n))
    ]
    for (const id of all) assert.isTrue(ids.add(id), id)
    for (const id of all) assert.isFalse(ids.add(id), id)
    assert.strictEqual(ids.size, all.length)
  })

  it("tells ids apart by their exact strings, as the checks always did", () => {
    const ids = answerIdSet()
    const lower = "3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f"
    assert.isTrue(ids.add(lower))
    // Another spelling of the same UUID is another string: not a repeat.
    assert.isTrue(ids.add(lower.toUpperCase()))
    assert.isFalse(ids.add(lower.toUpperCase()))
    // Not UUIDs at all (the schema refuses them, but the set does not rely on it).
    for (const odd of [
      "",
      "x",
      "3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6g",
      "3f2b8c1e99d4a-4c6b-8e2f-1a2b3c4d5e6f"
    ])
      assert.isTrue(ids.add(odd), odd)
    assert.isFalse(ids.add("x"))
    assert.isFalse(ids.add(lower))
    assert.strictEqual(ids.size, 6)
  })
})
