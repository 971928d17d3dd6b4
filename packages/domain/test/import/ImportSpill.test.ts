/**
 * Where an import's byte stores put the chunks they have filled
 * (ImportSpill.ts): each sealed chunk goes to the spill and comes back as it
 * was, a few read lately stay in memory, a record read out of order is read
 * alone; and the answer table, the record stores and the decoder give back
 * with a spill exactly what they give back without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { answerTable } from "../../src/import/ImportAnswerTable.ts"
import { decodeSources } from "../../src/import/ImportDecode.ts"
import { recordStore } from "../../src/import/ImportRecordStore.ts"
import { CachedChunks, type ChunkSpill, chunkList } from "../../src/import/ImportSpill.ts"
import type { Answer } from "../../src/model/Answer.ts"
import { entity, file, protocolAnswers, scorecard } from "./ImportFixtures.ts"

/** A spill in memory that counts what it is asked: the bytes of each get, in order. */
const countingSpill = () => {
  let kept = new Uint8Array(1 << 16)
  let end = 0
  const gets: Array<number> = []
  const spill: ChunkSpill = {
    put: (bytes) => {
      while (end + bytes.length > kept.length) {
        const bigger = new Uint8Array(kept.length * 2)
        bigger.set(kept)
        kept = bigger
      }
      kept.set(bytes, end)
      end += bytes.length
      return end - bytes.length
    },
    get: (at, into) => {
      gets.push(into.length)
      into.set(kept.subarray(at, at + into.length))
    }
  }
  return { spill, gets, puts: () => end }
}

const chunkOf = (n: number, size: number) => Uint8Array.from({ length: size }, (_, k) => (n * 31 + k) & 255)

describe("ImportSpill", () => {
  it("puts each chunk it seals, only the bytes it holds, and reads it back as it was", () => {
    const { spill, gets, puts } = countingSpill()
    const list = chunkList<Uint8Array>(spill, (bytes) => bytes)
    for (let n = 0; n < 20; n++) {
      list.push(chunkOf(n, 4096))
      list.seal(4000 + n)
    }
    assert.strictEqual(
      puts(),
      Array.from({ length: 20 }, (_, n) => 4000 + n).reduce((a, b) => a + b)
    )
    for (let n = 0; n < 20; n++) assert.deepStrictEqual(list.at(n), chunkOf(n, 4096).subarray(0, 4000 + n))
    assert.strictEqual(gets.length, 20, "each chunk read back once")
  })

  it("keeps the chunks read last in memory: a pass over a few reads each once, over many each every time", () => {
    const { spill, gets } = countingSpill()
    const list = chunkList<Uint8Array>(spill, (bytes) => bytes)
    const total = CachedChunks * 3
    for (let n = 0; n < total; n++) {
      list.push(chunkOf(n, 1024))
      list.seal(1024)
    }
    for (let pass = 0; pass < 3; pass++) for (let n = 0; n < CachedChunks; n++) list.at(n)
    assert.strictEqual(gets.length, CachedChunks)
    gets.length = 0
    for (let pass = 0; pass < 2; pass++)
      for (let n = 0; n < total; n++) assert.deepStrictEqual(list.at(n), chunkOf(n, 1024))
    assert.strictEqual(gets.length, 2 * total - CachedChunks, "all but the ones still held, each pass")
  })

  it("bytes read in order bring their chunk back whole; read out of order, only those bytes", () => {
    const { spill, gets } = countingSpill()
    const list = chunkList<Uint8Array>(spill, (bytes) => bytes)
    for (let n = 0; n < 30; n++) {
      list.push(chunkOf(n, 2048))
      list.seal(2048)
    }
    assert.deepStrictEqual(list.bytes(17, 100, 10), chunkOf(17, 2048).subarray(100, 110))
    assert.deepStrictEqual(list.bytes(3, 5, 20), chunkOf(3, 2048).subarray(5, 25))
    assert.deepStrictEqual(gets, [10, 20], "out of order: just the bytes")
    assert.deepStrictEqual(list.bytes(3, 40, 8), chunkOf(3, 2048).subarray(40, 48))
    assert.deepStrictEqual(list.bytes(4, 0, 8), chunkOf(4, 2048).subarray(0, 8))
    assert.deepStrictEqual(list.bytes(4, 2000, 48), chunkOf(4, 2048).subarray(2000))
    assert.deepStrictEqual(gets, [10, 20, 2048, 2048], "in order: the chunk, then from memory")
  })

  it("chunks of words read back after others took their buffers are still the words put", () => {
    const { spill, gets } = countingSpill()
    const list = chunkList<Uint32Array>(
      spill,
      (bytes) => new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2)
    )
    const total = CachedChunks * 2 + 3
    const wordsOf = (n: number) => Uint32Array.from({ length: 512 }, (_, k) => (n * 2654435761 + k) >>> 0)
    for (let n = 0; n < total; n++) {
      list.push(wordsOf(n))
      list.seal(512 * 4)
    }
    for (let pass = 0; pass < 3; pass++)
      for (let n = 0; n < total; n++)
        assert.deepStrictEqual(list.at((n * 7) % total), wordsOf((n * 7) % total))
    assert.strictEqual(gets.length, 3 * total, "every read past the cache came from the spill")
  })

  it("without a spill, chunks stay in memory as they were pushed", () => {
    const list = chunkList<Uint8Array>(undefined, (bytes) => bytes)
    const chunks = Array.from({ length: 12 }, (_, n) => chunkOf(n, 256))
    for (const c of chunks) {
      list.push(c)
      list.seal(100)
    }
    for (const [n, c] of chunks.entries()) assert.strictEqual(list.at(n), c)
  })

  it("a record store with a spill gives back every record, in any order, across many chunks", () => {
    const { spill, gets } = countingSpill()
    const store = recordStore(spill)
    const records = Array.from({ length: 30_000 }, (_, n) => ({
      n,
      name: `entity ${n} ${"é".repeat(n % 50)} ${"x".repeat(400)}`,
      tags: ["a", "b"].slice(n % 2),
      nested: { deep: n % 3 === 0 ? null : [n, "x"] }
    }))
    records.push({ n: -1, name: "z".repeat(3 << 20), tags: [], nested: { deep: null } })
    records.push({ n: -2, name: "after the large one", tags: [], nested: { deep: null } })
    const refs = records.map((r) => store.add(r)!)
    assert.isAbove(new Set(refs.map((r) => r.chunk)).size, CachedChunks + 2)
    for (const k of [0, 29_999, 7, 15_000, 30_000, 30_001, 1, 12_345])
      assert.deepStrictEqual(store.read(refs[k]!), records[k])
    assert.strictEqual(JSON.stringify(refs.map((ref) => store.read(ref))), JSON.stringify(records))
    assert.isAbove(gets.length, 0, "records were read back from the spill")
  })

  it("an answer table with a spill gives back every answer, and its id index finds exactly a Set's repeats", () => {
    const { spill, gets } = countingSpill()
    const table = answerTable(spill)
    const uuid = (n: number) => `0000abcd-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
    const ids = [...Array.from({ length: 150_000 }, (_, n) => uuid(n % 120_000)), "odd", "odd"]
    const answers: Array<Answer> = ids.map((id, n) => ({
      id,
      question_id: `Q-${n % 5}`,
      domain: "security",
      score: n % 4,
      max_score: 4,
      weight: 1,
      confidence: "high",
      response: null,
      rationale: n % 7 === 0 ? `why ${n}` : null
    }))
    const slices = [table.add(answers.slice(0, 70_000)), table.add(answers.slice(70_000))]
    const index = table.idIndex()
    const seen = new Set<string>()
    const fresh = ids.map((id) => !seen.has(id) && seen.add(id) !== undefined)
    assert.deepStrictEqual(
      ids.map((_, i) => index.add(i)),
      fresh
    )
    assert.isTrue(index.has(uuid(119_999)))
    assert.isFalse(index.has(uuid(120_000)))
    const back = [...table.read(slices[0]!), ...table.read(slices[1]!)]
    assert.strictEqual(JSON.stringify(back), JSON.stringify(answers))
    assert.isAbove(gets.length, 0, "answers were read back from the spill")
  })

  it("decoding with a spill gives the same content as without", () => {
    const content = file({
      entities: Array.from({ length: 3000 }, (_, n) => entity("protocol", `p${n}`, n)),
      scorecards: Array.from({ length: 25_000 }, (_, n) =>
        scorecard(n + 1, `p${n % 3000}`, 1 + Math.floor(n / 3000), protocolAnswers(n * 3))
      )
    })
    const plain = decodeSources([{ name: "a.json", content }])
    const counting = countingSpill()
    const spilled = decodeSources([{ name: "a.json", content }], counting.spill)
    assert.isAbove(counting.puts(), 1 << 20, "answers and records were spilled")
    assert.deepStrictEqual(spilled.issues, plain.issues)
    for (const section of ["entities", "scorecards"] as const)
      assert.deepStrictEqual(
        spilled.content[section].map((i) => i.value),
        plain.content[section].map((i) => i.value)
      )
  })
})
