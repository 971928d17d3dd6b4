/**
 * The behaviour of the ScorecardRepository port, run against every
 * implementation (over memory in the domain's
 * test/ports/memory/ScorecardRepositoryMemory.test.ts, over Postgres in
 * adapters-sql's PgScorecardRepository.test.ts). Entities are stored first:
 * the database requires a scorecard's entity to exist, the memory store does
 * not mind.
 */
import { assert } from "@effect/vitest"
import { EntityRepository, type StoredEntity } from "../../../src/ports/EntityRepository.ts"
import { ScorecardRepository, toListFields } from "../../../src/ports/ScorecardRepository.ts"
import { Effect, Option } from "effect"
import { contract, type Target } from "./ratings-harness.ts"
import { entity, historyOf, scorecard, T1, T2, uuid } from "./ratings-fixtures.ts"

type Ports = EntityRepository | ScorecardRepository

const stored = (...entities: ReadonlyArray<StoredEntity>) =>
  Effect.gen(function* () {
    yield* (yield* EntityRepository).upsert(entities)
  })

export const scorecardRepositoryContract = <D>(target: Target<Ports, D>) =>
  contract("ScorecardRepository contract", target, (test) => {
    test("listForEntity: every version, drafts included, with list fields only, newest first", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const aave = entity("protocol", "aave")
        const other = entity("protocol", "other")
        yield* stored(aave, other)
        const v1 = scorecard(aave, 1, "superseded")
        const v2 = scorecard(aave, 2, "published")
        const v3 = scorecard(aave, 3, "draft")
        for (const s of [v2, v3, v1, scorecard(other, 1, "published")]) yield* repo.saveDraft(s)
        assert.deepStrictEqual(
          yield* repo.listForEntity("protocol", aave.record.id),
          [v3, v2, v1].map(toListFields)
        )
        assert.deepStrictEqual(yield* repo.listForEntity("oracle", aave.record.id), [])
        assert.deepStrictEqual(yield* repo.listForEntity("protocol", uuid(0xdead, 9)), [])
      }))

    test("findById: the whole scorecard (answers, evidence, dependencies, weights) of the asked type", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const base = entity("chain", "base")
        yield* stored(base)
        const card = scorecard(base, 1, "published")
        yield* repo.saveDraft(card)
        assert.deepStrictEqual(yield* repo.findById("chain", card.id), Option.some(card))
        assert.isTrue(Option.isNone(yield* repo.findById("protocol", card.id)))
        assert.isTrue(Option.isNone(yield* repo.findById("chain", uuid(0xdead, 9))))
        assert.isTrue(Option.isNone(yield* repo.findById("chain", "not-a-uuid")))
      }))

    test("answers keep their order, null scores, not_applicable and exact figures", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const vault = entity("vault", "figures")
        yield* stored(vault)
        const card = scorecard(vault, 1, "draft", {
          grade: null,
          letter_grade: null,
          composite_score: null,
          intrinsic_composite_score: null,
          intrinsic_letter_grade: null,
          largest_drag_hint: null,
          domain_scores: null,
          dependencies: [],
          evidence: [],
          domain_weights: { security: 100 / 3, governance: 200 / 3 }
        })
        const reversed = { ...card, answers: [...card.answers].reverse() }
        yield* repo.saveDraft(reversed)
        assert.deepStrictEqual(yield* repo.findById("vault", card.id), Option.some(reversed))
      }))

    test("latest: the highest-version scorecard with the asked status", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("token", "usdc")
        yield* stored(e)
        const cards = [
          scorecard(e, 1, "superseded"),
          scorecard(e, 2, "published"),
          scorecard(e, 3, "draft"),
          scorecard(e, 4, "draft")
        ]
        for (const s of cards) yield* repo.saveDraft(s)
        assert.deepStrictEqual(yield* repo.latest("token", e.record.id, "published"), Option.some(cards[1]!))
        assert.deepStrictEqual(yield* repo.latest("token", e.record.id, "draft"), Option.some(cards[3]!))
        assert.isTrue(Option.isNone(yield* repo.latest("chain", e.record.id, "draft")))
      }))

    test("latestPublishedOf: the published scorecard of each entity asked for; unrated ones are absent", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const [a, b, c, d] = ["a", "b", "c", "d"].map((s) => entity("oracle", s)) as [
          StoredEntity,
          StoredEntity,
          StoredEntity,
          StoredEntity
        ]
        yield* stored(a, b, c, d)
        const aPub = scorecard(a, 2, "published")
        const bPub = scorecard(b, 1, "published")
        for (const s of [
          scorecard(a, 1, "superseded"),
          aPub,
          scorecard(a, 3, "draft"),
          bPub,
          scorecard(c, 1, "draft")
        ])
          yield* repo.saveDraft(s)
        const found = yield* repo.latestPublishedOf("oracle", [a.record.id, c.record.id, d.record.id, "junk"])
        assert.deepStrictEqual([...found.entries()], [[a.record.id, toListFields(aPub)]])
        assert.strictEqual((yield* repo.latestPublishedOf("protocol", [a.record.id, b.record.id])).size, 0)
        assert.strictEqual((yield* repo.latestPublishedOf("oracle", [])).size, 0)
      }))

    test("saveDraft inserts or replaces a draft by id; saving the same draft twice changes nothing", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("bridge", "wormhole")
        yield* stored(e)
        const draft = scorecard(e, 1, "draft")
        yield* repo.saveDraft(draft)
        yield* repo.saveDraft(draft)
        assert.deepStrictEqual(yield* repo.listForEntity("bridge", e.record.id), [toListFields(draft)])
        const edited = {
          ...draft,
          composite_score: 70,
          answers: draft.answers.slice(1),
          evidence: [],
          dependencies: []
        }
        yield* repo.saveDraft(edited)
        assert.deepStrictEqual(yield* repo.findById("bridge", draft.id), Option.some(edited))
      }))

    test("history: every published version with its reasoning, newest first", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("organisation", "steakhouse")
        yield* stored(e)
        const h1 = historyOf(scorecard(e, 1, "superseded"), "first rating", "analyst@example.com")
        const h2 = historyOf(
          scorecard(e, 2, "published", { scorecard_published_at: T1 }),
          "re-rated after audit"
        )
        yield* repo.importHistory(e.record.id, [h1, h2])
        assert.deepStrictEqual(yield* repo.history("organisation", e.record.id), [h2, h1])
        assert.deepStrictEqual(yield* repo.history("organisation", uuid(0xdead, 9)), [])
      }))

    test("importHistory: an entry already present for that entity and version is left as is", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "legacy")
        yield* stored(e)
        const h1 = historyOf(scorecard(e, 1, "superseded"), "pre-service rating")
        yield* repo.importHistory(e.record.id, [h1])
        yield* repo.importHistory(e.record.id, [{ ...h1, reasoning: "changed text" }])
        assert.deepStrictEqual(yield* repo.history("protocol", e.record.id), [h1])
      }))

    test("publish: the previous published version is superseded, the scorecard stored published, history appended", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("chain", "ethereum")
        yield* stored(e)
        const v1 = scorecard(e, 1, "published")
        const draft = scorecard(e, 2, "draft")
        yield* repo.saveDraft(v1)
        yield* repo.saveDraft(draft)
        const published = {
          ...draft,
          status: "published" as const,
          composite_score: 75.5,
          last_rated_at: T2,
          scorecard_published_at: T2
        }
        const entry = historyOf(published, "re-rated", "admin")
        yield* repo.publish({
          entity_type: "chain",
          entity_id: e.record.id,
          scorecard: published,
          history: entry
        })
        assert.deepStrictEqual(yield* repo.listForEntity("chain", e.record.id), [
          toListFields(published),
          toListFields({ ...v1, status: "superseded" })
        ])
        assert.deepStrictEqual(yield* repo.findById("chain", draft.id), Option.some(published))
        assert.deepStrictEqual(yield* repo.history("chain", e.record.id), [entry])
        const latest = yield* repo.latestPublishedOf("chain", [e.record.id])
        assert.deepStrictEqual(latest.get(e.record.id), toListFields(published))
      }))
  })
