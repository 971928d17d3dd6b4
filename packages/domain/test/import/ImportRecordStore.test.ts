/**
 * The store that keeps an import's records as JSON bytes until they are
 * written (ImportRecordStore.ts, ImportPlanRecords.ts): it gives back exactly
 * what it took, across chunks and in any script, and refuses what JSON would
 * change; decoded entities and the plan's entities and drafts read as the
 * plain objects they stand for.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { answerSliceOf, answerTable, withLazyAnswers } from "../../src/import/ImportAnswerTable.ts"
import { decodeSources } from "../../src/import/ImportDecode.ts"
import {
  keptDraft,
  lazyPlannedEntity,
  plannedDraft,
  plannedOfKept,
  storedEntity
} from "../../src/import/ImportPlanRecords.ts"
import { isJsonExact, lazyLocated, recordRefOf, recordStore } from "../../src/import/ImportRecordStore.ts"
import { validateImport } from "../../src/import/ImportValidation.ts"
import { emptyStoreView } from "../../src/import/ImportStoreView.ts"
import type { StoredScorecard } from "../../src/ports/ScorecardRepository.ts"
import { entity, file, protocolAnswers, protocolQuestions, scorecard } from "./ImportFixtures.ts"

describe("ImportRecordStore", () => {
  it("gives back every record as stored, across chunks, of any size and script", () => {
    const store = recordStore()
    const records: Array<unknown> = [
      { id: "a", n: 1, f: 0.5, big: 1e300, tiny: 5e-324, no: null, yes: true, list: [1, "x", null, []] },
      { text: "é, 日本, 🦀, \u0000 and \ud800 alone", nested: { deeper: { deepest: [{}] } } },
      "just a text",
      42,
      [],
      { long: "z".repeat(3 << 20) },
      ...Array.from({ length: 5000 }, (_, n) => ({
        n,
        name: `entity ${n} ${"x".repeat(400)}`,
        tags: ["a", "b"].slice(n % 2)
      }))
    ]
    const refs = records.map((r) => store.add(r))
    assert.isTrue(refs.every((r) => r !== undefined))
    for (const [k, ref] of refs.entries()) assert.deepStrictEqual(store.read(ref!), records[k])
    assert.isTrue(new Set(refs.map((r) => r!.chunk)).size > 2, "the records span several chunks")
    assert.strictEqual(refs[5]!.start, 0, "a record larger than a chunk has one of its own")
    assert.notStrictEqual(refs[6]!.chunk, refs[5]!.chunk, "which no other record shares")
    assert.isAbove(store.bytes(), 3 << 20)
  })

  it("keeps an object's keys once per shape: same values and key order back, fewer bytes than its JSON", () => {
    const store = recordStore()
    const records = Array.from({ length: 2000 }, (_, n) => ({
      id: `card-${n}`,
      entity_type: "protocol",
      composite_score: n % 3 === 0 ? null : n / 7,
      domain_scores: { security: n, economic: [n, { deep: "x" }] },
      "10": "an integer-like key, which objects put first",
      ...(n % 2 === 0 ? { extra_key_of_another_shape: true } : {})
    }))
    const refs = records.map((r) => store.add(r)!)
    for (const [k, ref] of refs.entries()) {
      const back = store.read(ref) as Record<string, unknown>
      assert.deepStrictEqual(back, records[k])
      assert.deepStrictEqual(Object.keys(back), Object.keys(records[k]!))
    }
    assert.strictEqual(new Set(refs.map((r) => r.shape)).size, 2, "two shapes, each kept once")
    const json = records.reduce((n, r) => n + JSON.stringify(r).length, 0)
    assert.isBelow(store.bytes(), json * 0.7, "the key names are not kept per record")
  })

  it("keeps the keys of nested objects once per shape too, and gives back objects nested in any way", () => {
    const store = recordStore()
    const records = Array.from({ length: 1000 }, (_, n) => ({
      entity_type: "token",
      record: {
        id: `id-${n}`,
        long_key_name_of_a_nested_record: n,
        urls: n % 2 === 0 ? { website: "w" } : {},
        chains: [{ id: "c", slug: "s" }, [{ in: { array: n } }]],
        empty: {},
        nothing: null
      }
    }))
    const refs = records.map((r) => store.add(r)!)
    for (const [k, ref] of refs.entries()) {
      const back = store.read(ref) as (typeof records)[number]
      assert.deepStrictEqual(back, records[k])
      assert.deepStrictEqual(Object.keys(back.record), Object.keys(records[k]!.record))
    }
    assert.strictEqual(new Set(refs.map((r) => r.shape)).size, 2, "shapes differ by a nested object's keys")
    const json = records.reduce((n, r) => n + JSON.stringify(r).length, 0)
    assert.isBelow(store.bytes(), json * 0.6, "nested key names are not kept per record")
  })

  it("keeps objects of more shapes than it keeps as their JSON, and gives them back the same", () => {
    const store = recordStore()
    const records = Array.from({ length: 1500 }, (_, n) => ({ [`key_${n}`]: n, common: "c" }))
    const refs = records.map((r) => store.add(r)!)
    for (const [k, ref] of refs.entries()) assert.deepStrictEqual(store.read(ref), records[k])
    assert.isTrue(
      refs.some((r) => r.shape < 0),
      "past the store's shapes, as JSON"
    )
    assert.isTrue(refs.some((r) => r.shape >= 0))
  })

  it("refuses values JSON would not give back exactly, and takes all others", () => {
    const store = recordStore()
    const inexact: ReadonlyArray<unknown> = [
      { a: undefined },
      { a: -0 },
      [Number.NaN],
      { a: Number.POSITIVE_INFINITY },
      new Date(0),
      { a: new Map() },
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      [1, , 3],
      Object.defineProperty({}, "hidden", { value: 1, enumerable: false }),
      { [Symbol("s")]: 1 },
      JSON.parse('{"__proto__": 1}'),
      () => 1,
      undefined,
      1n
    ]
    for (const v of inexact) {
      assert.isFalse(isJsonExact(v), String(v))
      assert.isUndefined(store.add(v))
    }
    const exact = { a: 0, b: [null, "", false], c: Object.create(null) as object }
    assert.isTrue(isJsonExact(exact))
    assert.deepStrictEqual(store.read(store.add({ a: 0, b: [null, "", false] })!), {
      a: 0,
      b: [null, "", false]
    })
  })

  it("a lazily located item reads, spreads, compares and serialises as a plain one, afresh each time", () => {
    const store = recordStore()
    const value = { entity_type: "protocol", record: { id: "x", slug: "s" } }
    const item = lazyLocated<typeof value>("a.json", "$.entities[0]", store.add(value)!)
    const plain = { source: "a.json", path: "$.entities[0]", value }
    assert.deepStrictEqual(item, plain)
    assert.deepStrictEqual({ ...item }, plain)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(item)), plain)
    assert.notStrictEqual(item.value, item.value)
    assert.isDefined(recordRefOf(item))
    assert.isUndefined(recordRefOf(plain))
  })

  it("decoded entities keep their records in the store; the other sections stay objects", () => {
    const decoded = decodeSources([
      {
        name: "a.json",
        content: file({
          entities: [entity("protocol", "lend", 1), entity("token", "tok", 2)],
          questions: protocolQuestions
        })
      }
    ])
    const [lend, tok] = decoded.content.entities
    assert.isDefined(recordRefOf(lend!))
    assert.isDefined(recordRefOf(tok!))
    assert.deepStrictEqual(lend!.value as unknown, entity("protocol", "lend", 1))
    assert.strictEqual(tok!.value.record.slug, "tok")
    assert.isUndefined(recordRefOf(decoded.content.questions[0]!))
  })

  it("decoded scorecards keep their fields in the store and their answers in the table", () => {
    const card = scorecard(1, "lend", 1, protocolAnswers(10))
    const decoded = decodeSources([{ name: "a.json", content: file({ scorecards: [card] }) }])
    const item = decoded.content.scorecards[0]!
    assert.isDefined(recordRefOf(item))
    assert.isDefined(answerSliceOf(item.value))
    assert.notStrictEqual(item.value, item.value)
    assert.deepStrictEqual(item.value as unknown, card)
    assert.deepStrictEqual({ ...item }, { source: "a.json", path: "$.scorecards[0]", value: card } as never)
  })

  it("planned entities and drafts read as the plain ones they stand for", () => {
    const store = recordStore()
    const value = entity("protocol", "lend", 1, {}, { domain_weights: { security: 100 } }) as never
    const planned = lazyPlannedEntity(store.add(value)!, "created", true)
    assert.deepStrictEqual(planned, { entity: storedEntity(value), change: "created", write: true })
    assert.notStrictEqual(planned.entity, planned.entity)

    const table = answerTable()
    const fields = { id: "d", entity_id: "e", scorecard_version: 1, composite_score: null, dependencies: [] }
    const answers = protocolAnswers(1) as unknown as StoredScorecard["answers"]
    const plain = { ...fields, answers } as unknown as StoredScorecard
    // A draft that holds no slice of an answer table stays as it is.
    assert.strictEqual(plannedDraft(store, plain, "created", "early").scorecard, plain)
    const sliced = withLazyAnswers(fields, table.add(answers)) as unknown as StoredScorecard
    const compact = plannedDraft(store, sliced, "updated", "late")
    assert.deepStrictEqual(compact, { scorecard: plain, change: "updated", stage: "late" })
    assert.notStrictEqual(compact.scorecard, compact.scorecard)
    assert.isDefined(answerSliceOf(compact.scorecard))
    // Fields JSON would change keep the draft as it is.
    const odd = withLazyAnswers({ ...fields, composite_score: -0 }, table.add(answers))
    assert.strictEqual(plannedDraft(store, odd as never, "created", "early").scorecard, odd as never)
  })

  it("a plan made from decoded files holds its entities and drafts compactly, and the same values", () => {
    const content = file({
      entities: [entity("protocol", "lend", 1)],
      questions: protocolQuestions,
      scorecards: [scorecard(1, "lend", 1, protocolAnswers(10))]
    })
    const decoded = decodeSources([{ name: "a.json", content }])
    const plan = validateImport(decoded, emptyStoreView(), ["a.json"])
    assert.isTrue(Result.isSuccess(plan))
    if (Result.isFailure(plan)) return
    const [planned] = plan.success.entities
    const [draft] = plan.success.drafts
    // Read afresh on each access: the plan holds bytes, not the objects.
    assert.notStrictEqual(planned!.entity, planned!.entity)
    assert.notStrictEqual(draft!.scorecard, draft!.scorecard)
    assert.deepStrictEqual(
      planned!.entity.record as unknown,
      (entity("protocol", "lend", 1) as { record: unknown }).record
    )
    assert.strictEqual(draft!.scorecard.answers.length, protocolAnswers(10).length)
    assert.deepStrictEqual(
      { ...draft!.scorecard, answers: undefined },
      { ...JSON.parse(JSON.stringify(draft!.scorecard)), answers: undefined }
    )
  })

  it("validation keeps each checked draft in the store as it is made, and plans it from the same record", () => {
    const store = recordStore()
    const table = answerTable()
    const fields = { id: "D", entity_id: "E", scorecard_version: 2, composite_score: 1.5, dependencies: [] }
    const answers = protocolAnswers(3) as unknown as StoredScorecard["answers"]
    const sliced = withLazyAnswers(fields, table.add(answers)) as unknown as StoredScorecard
    const item = { source: "a.json", path: "$.scorecards[0]", value: {} as never }
    const kept = keptDraft(store, item, sliced, "created")
    assert.notStrictEqual(kept.draft, kept.draft, "read afresh: validation holds bytes, not the draft")
    assert.deepStrictEqual(kept.draft, { ...fields, answers } as never)
    assert.deepStrictEqual([kept.id, kept.entity_id, kept.scorecard_version], ["D", "E", 2])
    const bytes = store.bytes()
    const planned = plannedOfKept(store, kept, "late")
    assert.strictEqual(store.bytes(), bytes, "the plan reuses the kept record")
    assert.deepStrictEqual(planned, {
      scorecard: { ...fields, answers },
      change: "created",
      stage: "late"
    } as never)
    // A draft that holds no slice of an answer table stays as it is, and is planned as plannedDraft does.
    const plain = { ...fields, answers } as unknown as StoredScorecard
    const asIs = keptDraft(store, item, plain, "updated")
    assert.strictEqual(asIs.draft, plain)
    assert.strictEqual(plannedOfKept(store, asIs, { beforePublication: 0 }).scorecard, plain)
  })
})
