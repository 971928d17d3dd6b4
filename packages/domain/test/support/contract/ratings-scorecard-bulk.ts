/**
 * The bulk methods of the ScorecardRepository port, run against every
 * implementation: each must behave as its one-at-a-time counterpart applied
 * in order, which these tests check by running both and comparing. Over
 * memory in the domain's test/ports/memory/ScorecardRepositoryMemory.test.ts,
 * over Postgres in adapters-sql's PgScorecardRepository.test.ts.
 */
import { assert } from "@effect/vitest"
import { EntityRepository, type StoredEntity } from "../../../src/ports/EntityRepository.ts"
import {
  type PublishRecord,
  ScorecardRepository,
  type StoredScorecard,
  toListFields
} from "../../../src/ports/ScorecardRepository.ts"
import { Effect, Exit, Option } from "effect"
import { answer, entity, historyOf, scorecard, T1, T2, uuid } from "./ratings-fixtures.ts"
import { contract, type Target } from "./ratings-harness.ts"

type Ports = EntityRepository | ScorecardRepository

const stored = (...entities: ReadonlyArray<StoredEntity>) =>
  Effect.gen(function* () {
    yield* (yield* EntityRepository).upsert(entities)
  })

/** Every version of each entity in full, and its history: what a reader can see of them. */
const everything = (entities: ReadonlyArray<StoredEntity>) =>
  Effect.gen(function* () {
    const repo = yield* ScorecardRepository
    const out: Array<unknown> = []
    for (const e of entities) {
      for (const s of yield* repo.listForEntity(e.entity_type, e.record.id))
        out.push(yield* repo.findById(e.entity_type, s.id))
      out.push(yield* repo.history(e.entity_type, e.record.id))
    }
    return out
  })

const published = (draft: StoredScorecard, at: string, composite: number): PublishRecord => {
  const scorecard: StoredScorecard = {
    ...draft,
    status: "published",
    composite_score: composite,
    last_rated_at: at,
    scorecard_published_at: at
  }
  return {
    entity_type: draft.entity_type,
    entity_id: draft.entity_id,
    scorecard,
    history: historyOf(scorecard, `rated ${composite}`, "analyst")
  }
}

export const scorecardBulkContract = <D>(target: Target<Ports, D>) =>
  contract("ScorecardRepository bulk contract", target, (test) => {
    test("saveDrafts is saveDraft of each in order: the last of an id wins", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const [a, b] = [entity("protocol", "bulk-a"), entity("oracle", "bulk-b")] as const
        yield* stored(a, b)
        const first = scorecard(a, 1, "draft")
        const edited = { ...first, composite_score: 61.5, answers: first.answers.slice(1), evidence: [] }
        const other = scorecard(b, 1, "draft", { dependencies: [], evidence: [] })
        yield* repo.saveDrafts([first, other, edited])
        assert.deepStrictEqual(yield* repo.findById("protocol", first.id), Option.some(edited))
        assert.deepStrictEqual(yield* repo.findById("oracle", other.id), Option.some(other))
      }))

    test("saveDrafts writes answers and evidence exactly, whatever their text holds", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("vault", "awkward-text")
        yield* stored(e)
        const awkward = ['say "hi"', "back\\slash", "{braces},commas", "NULL", "", "line\nbreak", "ünïcødé ✓"]
        const card = scorecard(e, 1, "draft", {
          answers: awkward.map((text, i) =>
            answer(`Q-${i}`, text, i === 0 ? null : i / 3, { response: text, rationale: `${text}!` })
          ),
          domain_weights: { security: 100 / 3, governance: 200 / 3 }
        })
        yield* repo.saveDrafts([card])
        assert.deepStrictEqual(yield* repo.findById("vault", card.id), Option.some(card))
      }))

    test("saveDrafts of drafts already stored replaces only what differs; saving them twice changes nothing", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const es = ["x", "y", "z"].map((s) => entity("chain", `stored-${s}`))
        yield* stored(...es)
        const drafts = es.map((e) => scorecard(e, 1, "draft"))
        yield* repo.saveDrafts(drafts)
        const [x, y, z] = drafts as [StoredScorecard, StoredScorecard, StoredScorecard]
        const next = [
          x,
          { ...y, answers: [...y.answers].reverse() },
          { ...z, evidence: z.evidence.slice(1), answers: [...z.answers, answer("Q-9", "security", 1)] }
        ]
        yield* repo.saveDrafts(next)
        yield* repo.saveDrafts(next)
        for (const s of next) assert.deepStrictEqual(yield* repo.findById("chain", s.id), Option.some(s))
      }))

    test("listForEntities, findByIds and latestOf answer as listForEntity, findById and latest of each", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const es = ["p", "q", "r"].map((s) => entity("token", `many-${s}`))
        yield* stored(...es)
        const [p, q] = es as [StoredEntity, StoredEntity, StoredEntity]
        const cards = [
          scorecard(p, 1, "superseded"),
          scorecard(p, 2, "published"),
          scorecard(p, 3, "draft"),
          scorecard(p, 4, "draft", { evidence: [] }),
          scorecard(q, 1, "draft", { answers: [] })
        ]
        for (const s of cards) yield* repo.saveDraft(s)
        const ids = [...es.map((e) => e.record.id), uuid(0xdead, 9), "not-a-uuid"]
        const lists = yield* repo.listForEntities("token", ids)
        const one = (yield* Effect.forEach(es, (e) => repo.listForEntity("token", e.record.id))).flat()
        const byId = (xs: ReadonlyArray<{ readonly id: string }>) =>
          [...xs].sort((a, b) => (a.id < b.id ? -1 : 1))
        assert.deepStrictEqual(byId(lists), byId(one))
        for (const e of es) {
          const mine = lists.filter((s) => s.entity_id === e.record.id).map((s) => s.scorecard_version)
          assert.deepStrictEqual(
            mine,
            [...mine].sort((a, b) => b - a),
            "newest first per entity"
          )
        }
        const found = yield* repo.findByIds("token", [...cards.map((s) => s.id), uuid(0xdead, 9), "junk"])
        assert.deepStrictEqual(byId(found), byId(cards))
        assert.deepStrictEqual(
          yield* repo.findByIds(
            "chain",
            cards.map((s) => s.id)
          ),
          []
        )
        for (const status of ["draft", "published"] as const) {
          const latest = yield* repo.latestOf("token", ids, status)
          const each = (yield* Effect.forEach(es, (e) => repo.latest("token", e.record.id, status))).flatMap(
            (o) => (Option.isSome(o) ? [o.value] : [])
          )
          assert.deepStrictEqual(byId(latest), byId(each))
        }
        assert.deepStrictEqual(yield* repo.latestOf("token", [], "draft"), [])
        // The answers a caller saved, handed back (ids in another case): the same scorecards.
        const savedAnswers = new Map(
          cards.map((c) => [
            c.id.toLowerCase(),
            { answers: c.answers.map((a) => ({ ...a, id: a.id.toUpperCase() })) }
          ])
        )
        for (const status of ["draft", "published"] as const)
          assert.deepStrictEqual(
            byId(yield* repo.latestOf("token", ids, status, savedAnswers)),
            byId(yield* repo.latestOf("token", ids, status))
          )
      }))

    test("publishMany is publish of each record in order: an entity published twice ends superseded then published", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const a = entity("protocol", "twice")
        const b = entity("protocol", "once")
        yield* stored(a, b)
        const v1 = scorecard(a, 1, "published")
        const v2 = scorecard(a, 2, "draft")
        const v3 = scorecard(a, 3, "draft")
        const w1 = scorecard(b, 1, "draft")
        yield* repo.saveDrafts([v1, v2, v3, w1])
        const records = [published(v2, T1, 70), published(w1, T1, 55), published(v3, T2, 72)]
        yield* repo.publishMany(records)
        assert.deepStrictEqual(
          (yield* repo.listForEntity("protocol", a.record.id)).map((s) => [s.scorecard_version, s.status]),
          [
            [3, "published"],
            [2, "superseded"],
            [1, "superseded"]
          ]
        )
        assert.deepStrictEqual(yield* repo.findById("protocol", v3.id), Option.some(records[2]!.scorecard))
        assert.deepStrictEqual(yield* repo.history("protocol", a.record.id), [
          records[2]!.history,
          records[0]!.history
        ])
        assert.deepStrictEqual(
          (yield* repo.latestPublishedOf("protocol", [b.record.id])).get(b.record.id),
          toListFields(records[1]!.scorecard)
        )
      }))

    test("publishMany leaves answers and evidence as stored and writes what publish writes", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const es = ["m", "n"].map((s) => entity("oracle", `same-${s}`))
        yield* stored(...es)
        const drafts = es.map((e) => scorecard(e, 2, "draft"))
        const previous = es.map((e) => scorecard(e, 1, "published"))
        const records = drafts.map((d, i) => published(d, T2, 60 + i))
        yield* repo.saveDrafts([...previous, ...drafts])
        for (const r of records) yield* repo.publish(r)
        const one = yield* everything(es)
        // The same again on fresh ids, through publishMany.
        const es2 = ["m", "n"].map((s) => entity("oracle", `bulk-${s}`))
        yield* stored(...es2)
        const drafts2 = es2.map((e, i) => ({ ...drafts[i]!, id: uuid(900 + i, 7), entity_id: e.record.id }))
        const previous2 = es2.map((e, i) => ({
          ...previous[i]!,
          id: uuid(950 + i, 7),
          entity_id: e.record.id
        }))
        yield* repo.saveDrafts([...previous2, ...drafts2])
        yield* repo.publishMany(
          drafts2.map((d, i) => ({
            ...published(d, T2, 60 + i),
            scorecard: { ...published(d, T2, 60 + i).scorecard, answers: [], evidence: [] }
          }))
        )
        const bulk = yield* everything(es2)
        const anonymous = (xs: ReadonlyArray<unknown>) =>
          JSON.parse(JSON.stringify(xs).replaceAll(/"(id|entity_id|scorecard_id)":"[^"]*"/g, '"$1":"-"'))
        assert.deepStrictEqual(anonymous(bulk), anonymous(one))
      }))

    test("publishMany refuses a record whose scorecard is not a stored draft of its entity, and writes nothing", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("bridge", "refused")
        const other = entity("bridge", "other")
        yield* stored(e, other)
        const ok = scorecard(e, 1, "draft")
        const done = scorecard(other, 1, "published")
        const othersDraft = scorecard(other, 2, "draft")
        yield* repo.saveDrafts([ok, done, othersDraft])
        for (const bad of [
          published(done, T1, 50),
          published(scorecard(other, 3, "draft"), T1, 50),
          { ...published(othersDraft, T1, 50), entity_id: e.record.id }
        ]) {
          const exit = yield* Effect.exit(repo.publishMany([published(ok, T1, 40), bad]))
          assert.isTrue(Exit.isFailure(exit))
          assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "not a stored draft")
          assert.deepStrictEqual(yield* repo.findById("bridge", ok.id), Option.some(ok))
          assert.deepStrictEqual(yield* repo.history("bridge", e.record.id), [])
        }
      }))
  })
