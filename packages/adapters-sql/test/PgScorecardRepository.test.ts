import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Exit, Layer, Option, Stream } from "effect"
import * as PgCacheInvalidation from "../src/PgCacheInvalidation.ts"
import { AllOfType, CacheInvalidation } from "../src/PgCacheInvalidation.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { entity, historyOf, scorecard, T2 } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { scorecardBulkContract } from "@ratings/domain/test-support/contract/ratings-scorecard-bulk"
import { scorecardRepositoryContract } from "@ratings/domain/test-support/contract/ratings-scorecard-repository"
import { postgresTarget } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

scorecardRepositoryContract(postgresTarget(postgres))
scorecardBulkContract(postgresTarget(postgres))

const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")

/** Row versions of a scorecard and its answers: unchanged means not rewritten. */
const versionsOf = (id: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    return yield* sql<{ xmin: string }>`
      SELECT xmin::text AS xmin FROM scorecards WHERE id = ${id}::uuid
      UNION ALL SELECT xmin::text FROM answers WHERE scorecard_id = ${id}::uuid
      UNION ALL SELECT xmin::text FROM evidence WHERE scorecard_id = ${id}::uuid`
  })

const publishRecord = (e: ReturnType<typeof entity>, draft: ReturnType<typeof scorecard>) => {
  const published = { ...draft, status: "published" as const, last_rated_at: T2, scorecard_published_at: T2 }
  return {
    entity_type: e.entity_type,
    entity_id: e.record.id,
    scorecard: published,
    history: historyOf(published, "re-rated", "admin")
  }
}

describe("PgScorecardRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "saving the same draft twice rewrites no row of the scorecard, its answers or its evidence",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const e = entity("protocol", "idempotent-draft")
          yield* (yield* EntityRepository).upsert([e])
          const draft = scorecard(e, 1, "draft")
          yield* repo.saveDraft(draft)
          const before = yield* versionsOf(draft.id)
          assert.strictEqual(before.length, 1 + draft.answers.length + draft.evidence.length)
          yield* repo.saveDraft(draft)
          assert.deepStrictEqual(yield* versionsOf(draft.id), before)
        }).pipe(Effect.provide(postgres))
    )

    it.effect("at most one published scorecard per entity: a second one is refused with a StoreError", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "one-published")
        yield* (yield* EntityRepository).upsert([e])
        yield* repo.saveDraft(scorecard(e, 1, "published"))
        const exit = yield* Effect.exit(repo.saveDraft(scorecard(e, 2, "published")))
        assert.include(failureText(exit), "StoreError")
        assert.include(failureText(exit), "scorecards_one_published")
      }).pipe(Effect.provide(postgres))
    )

    it.effect("a scorecard needs its entity, of the same type (foreign key)", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const unknown = yield* Effect.exit(
          repo.saveDraft(scorecard(entity("protocol", "nowhere"), 1, "draft"))
        )
        assert.include(failureText(unknown), "scorecards_entity")
        const e = entity("oracle", "typed-oracle")
        yield* (yield* EntityRepository).upsert([e])
        const wrongType = yield* Effect.exit(
          repo.saveDraft({ ...scorecard(e, 1, "draft"), entity_type: "protocol" })
        )
        assert.include(failureText(wrongType), "scorecards_entity")
      }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "rows are decoded with schemas: a stored row that no longer fits is a StoreError naming the read, on every read path",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const sql = yield* PgClient.PgClient
          const e = entity("protocol", "undecodable-row")
          yield* (yield* EntityRepository).upsert([e])
          const card = scorecard(e, 1, "published")
          yield* repo.saveDraft(card)
          yield* sql`UPDATE scorecards SET domain_scores = '{"security": "high"}'::jsonb WHERE id = ${card.id}::uuid`
          const reads: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
            repo.listForEntity("protocol", e.record.id),
            repo.listForEntities("protocol", [e.record.id]),
            repo.findById("protocol", card.id),
            repo.findByIds("protocol", [card.id]),
            repo.latest("protocol", e.record.id, "published"),
            repo.latestOf("protocol", [e.record.id], "published"),
            repo.latestPublishedOf("protocol", [e.record.id])
          ]
          for (const read of reads) {
            const exit = yield* Effect.exit(read)
            assert.include(failureText(exit), "StoreError")
            assert.include(failureText(exit), "does not decode")
          }
          yield* sql`UPDATE evidence SET items = '[{"kind": 1}]'::jsonb WHERE scorecard_id = ${card.id}::uuid`
          yield* sql`UPDATE scorecards SET domain_scores = NULL WHERE id = ${card.id}::uuid`
          assert.include(
            failureText(yield* Effect.exit(repo.findByIds("protocol", [card.id]))),
            "does not decode"
          )
          assert.include(
            failureText(yield* Effect.exit(repo.findById("protocol", card.id))),
            "does not decode"
          )
        }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "latestOf takes the answers of a scorecard the caller saved from the caller, and still reads its row and evidence",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const sql = yield* PgClient.PgClient
          const e = entity("protocol", "saved-answers")
          const f = entity("protocol", "read-answers")
          yield* (yield* EntityRepository).upsert([e, f])
          const mine = scorecard(e, 1, "draft")
          const other = scorecard(f, 1, "draft")
          yield* repo.saveDrafts([mine, other])
          yield* sql`UPDATE scorecards SET composite_score = 12.5 WHERE id = ${mine.id}::uuid`
          const handed = mine.answers.slice(0, 1).map((a) => ({ ...a, id: a.id.toUpperCase() }))
          const latest = yield* repo.latestOf(
            "protocol",
            [e.record.id, f.record.id],
            "draft",
            new Map([[mine.id.toLowerCase(), { answers: handed }]])
          )
          const found = latest.find((s) => s.id === mine.id)
          const read = latest.find((s) => s.id === other.id)
          assert.deepStrictEqual(found!.answers, [{ ...handed[0]!, id: handed[0]!.id.toLowerCase() }])
          assert.strictEqual(found!.composite_score, 12.5)
          assert.deepStrictEqual(found!.evidence, mine.evidence)
          assert.deepStrictEqual(read, other)
        }).pipe(Effect.provide(postgres))
    )

    it.effect("publish is atomic on its own: a failure half-way leaves the previous rating published", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "atomic-publish")
        yield* (yield* EntityRepository).upsert([e])
        const v1 = scorecard(e, 1, "published")
        const draft = scorecard(e, 2, "draft")
        yield* repo.saveDraft(v1)
        yield* repo.saveDraft(draft)
        // History already holds version 2 (imported), so the last step of publish fails.
        yield* repo.importHistory(e.record.id, [
          historyOf({ ...draft, scorecard_published_at: T2 }, "imported")
        ])
        const exit = yield* Effect.exit(repo.publish(publishRecord(e, draft)))
        assert.include(failureText(exit), "rating_history_pkey")
        assert.deepStrictEqual(yield* repo.latest("protocol", e.record.id, "published"), Option.some(v1))
        assert.deepStrictEqual(yield* repo.latest("protocol", e.record.id, "draft"), Option.some(draft))
      }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "publish inside a caller's transaction joins it: the caller's rollback undoes the publish",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const sql = yield* PgClient.PgClient
          const e = entity("protocol", "joined-publish")
          yield* (yield* EntityRepository).upsert([e])
          const draft = scorecard(e, 1, "draft")
          yield* repo.saveDraft(draft)
          const exit = yield* Effect.exit(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* repo.publish(publishRecord(e, draft))
                assert.isTrue(Option.isSome(yield* repo.latest("protocol", e.record.id, "published")))
                return yield* Effect.fail("caller gives up")
              })
            )
          )
          assert.include(failureText(exit), "caller gives up")
          assert.isTrue(Option.isNone(yield* repo.latest("protocol", e.record.id, "published")))
          assert.deepStrictEqual(yield* repo.history("protocol", e.record.id), [])
        }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "entityWithScorecards is findBySlug / findById, listForEntity and the hints naming a publicly readable entity, in one read",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const entities = yield* EntityRepository
          const read = repo.entityWithScorecards!
          const shown = entity("chain", "ews-shown")
          const draftChain = entity("chain", "ews-draft", { status: "draft" })
          const e = entity("protocol", "ews-rated")
          const bare = entity("protocol", "ews-bare")
          yield* entities.upsert([shown, draftChain, e, bare])
          const hints = [
            "chain: ews-shown",
            "chain: ews-draft",
            "chain: ews-missing",
            "not a hint",
            "widget: ews-shown",
            ": ews-shown"
          ]
          yield* repo.saveDrafts(
            hints.map((hint, i) => scorecard(e, i + 1, "draft", { largest_drag_hint: hint }))
          )
          yield* repo.saveDraft(scorecard(e, hints.length + 1, "draft", { largest_drag_hint: null }))
          const together = yield* read("protocol", "slug", "ews-rated")
          assert.deepStrictEqual(together.entity, yield* entities.findBySlug("protocol", "ews-rated"))
          assert.deepStrictEqual(together.scorecards, yield* repo.listForEntity("protocol", e.record.id))
          assert.deepStrictEqual([...together.readableHints], ["chain: ews-shown"])
          assert.deepStrictEqual(yield* read("protocol", "id", e.record.id.toUpperCase()), together)
          // An entity without scorecards; no entity of that type, id or slug.
          assert.deepStrictEqual(yield* read("protocol", "slug", "ews-bare"), {
            entity: yield* entities.findBySlug("protocol", "ews-bare"),
            scorecards: [],
            readableHints: new Set<string>()
          })
          for (const [type, by, identifier] of [
            ["protocol", "slug", "ews-none"],
            ["chain", "slug", "ews-rated"],
            ["protocol", "id", "ews-rated"],
            ["protocol", "slug", e.record.id]
          ] as const)
            assert.deepStrictEqual(yield* read(type, by, identifier), {
              entity: Option.none(),
              scorecards: [],
              readableHints: new Set<string>()
            })
        }).pipe(Effect.provide(postgres))
    )

    it.effect("entityWithHistory is findBySlug and history, in one read", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const entities = yield* EntityRepository
        const read = repo.entityWithHistory!
        const e = entity("protocol", "ewh-rated")
        const bare = entity("protocol", "ewh-bare")
        yield* entities.upsert([e, bare])
        for (const version of [1, 2]) {
          const draft = scorecard(e, version, "draft")
          yield* repo.saveDraft(draft)
          yield* repo.publish(publishRecord(e, draft))
        }
        const together = yield* read("protocol", "ewh-rated")
        assert.strictEqual(together.history.length, 2)
        assert.deepStrictEqual(together, {
          entity: yield* entities.findBySlug("protocol", "ewh-rated"),
          history: yield* repo.history("protocol", e.record.id)
        })
        assert.deepStrictEqual(yield* read("protocol", "ewh-bare"), {
          entity: yield* entities.findBySlug("protocol", "ewh-bare"),
          history: []
        })
        for (const [type, slug] of [
          ["protocol", "ewh-none"],
          ["chain", "ewh-rated"],
          ["protocol", e.record.id]
        ] as const)
          assert.deepStrictEqual(yield* read(type, slug), { entity: Option.none(), history: [] })
      }).pipe(Effect.provide(postgres))
    )

    it.effect("entityWithLatestPublished is findBySlug and latest published, in one read", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const entities = yield* EntityRepository
        const read = repo.entityWithLatestPublished!
        const e = entity("protocol", "ewl-rated")
        const drafted = entity("protocol", "ewl-drafted")
        yield* entities.upsert([e, drafted])
        for (const version of [1, 2]) {
          const draft = scorecard(e, version, "draft")
          yield* repo.saveDraft(draft)
          yield* repo.publish(publishRecord(e, draft))
        }
        yield* repo.saveDraft(scorecard(e, 3, "draft"))
        yield* repo.saveDraft(scorecard(drafted, 1, "draft"))
        const together = yield* read("protocol", "ewl-rated")
        assert.strictEqual(Option.map(together.latest, (s) => s.scorecard_version).pipe(Option.getOrNull), 2)
        assert.isAbove(Option.getOrThrow(together.latest).answers.length, 0)
        assert.deepStrictEqual(together, {
          entity: yield* entities.findBySlug("protocol", "ewl-rated"),
          latest: yield* repo.latest("protocol", e.record.id, "published")
        })
        assert.deepStrictEqual(yield* read("protocol", "ewl-drafted"), {
          entity: yield* entities.findBySlug("protocol", "ewl-drafted"),
          latest: Option.none()
        })
        for (const [type, slug] of [
          ["protocol", "ewl-none"],
          ["chain", "ewl-rated"]
        ] as const)
          assert.deepStrictEqual(yield* read(type, slug), { entity: Option.none(), latest: Option.none() })
      }).pipe(Effect.provide(postgres))
    )

    it.effect("latestPublishedOf is one query through the scorecards_one_published index", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const entities = Array.from({ length: 2_000 }, (_, i) => entity("protocol", `rated-${i}`))
        yield* (yield* EntityRepository).upsert(entities)
        const repo = yield* ScorecardRepository
        for (const e of entities.slice(0, 400)) {
          yield* repo.saveDraft(scorecard(e, 1, "superseded", { answers: [], evidence: [] }))
          yield* repo.saveDraft(scorecard(e, 2, "published", { answers: [], evidence: [] }))
        }
        yield* sql`ANALYZE scorecards`
        const ids = entities.slice(0, 50).map((e) => e.record.id)
        const plan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN (FORMAT TEXT)
          ${PgScorecardRepository.latestPublishedStatement(sql, "protocol", ids)}`
        const text = plan.map((row) => row["QUERY PLAN"]).join("\n")
        assert.include(text, "scorecards_one_published", text)
        assert.notInclude(text, "Seq Scan", text)
        const found = yield* repo.latestPublishedOf("protocol", ids)
        assert.strictEqual(found.size, 50)
        assert.isTrue([...found.values()].every((s) => s.scorecard_version === 2))
      }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "saveDrafts of the same drafts twice rewrites no row; a changed draft rewrites only its own rows",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const es = ["first", "second"].map((s) => entity("protocol", `bulk-idempotent-${s}`))
          yield* (yield* EntityRepository).upsert(es)
          const drafts = es.map((e) => scorecard(e, 1, "draft"))
          const [a, b] = drafts as [ReturnType<typeof scorecard>, ReturnType<typeof scorecard>]
          yield* repo.saveDrafts(drafts)
          const before = [yield* versionsOf(a.id), yield* versionsOf(b.id)]
          yield* repo.saveDrafts(drafts)
          assert.deepStrictEqual([yield* versionsOf(a.id), yield* versionsOf(b.id)], before)
          yield* repo.saveDrafts([
            a,
            { ...b, answers: b.answers.map((x) => ({ ...x, rationale: "revised" })) }
          ])
          assert.deepStrictEqual(yield* versionsOf(a.id), before[0])
          assert.notDeepEqual(yield* versionsOf(b.id), before[1])
        }).pipe(Effect.provide(postgres))
    )

    it.effect("arrayLiteral: text, numbers and nulls come back from unnest exactly as given", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const texts = [
          'a "quoted" word',
          "back\\slash\\",
          "{,}",
          "NULL",
          "null",
          "",
          " padded ",
          "tab\tnew\nline",
          "é✓"
        ]
        const rows = yield* sql<{ v: string | null }>`SELECT unnest(${PgScorecardRepository.arrayLiteral([
          ...texts,
          null
        ])}::text[]) AS v`
        assert.deepStrictEqual(
          rows.map((r) => r.v),
          [...texts, null]
        )
        const numbers = [0, -0, 1 / 3, 100 / 3, 1e-7, 1e21, 2 ** 53 + 2, 0.1 + 0.2, 5e-324]
        const back = yield* sql<{
          v: number
        }>`SELECT unnest(${PgScorecardRepository.arrayLiteral(numbers)}::float8[]) AS v`
        assert.deepStrictEqual(
          back.map((r) => r.v),
          numbers.map((n) => (Object.is(n, -0) ? 0 : n))
        )
      })
    )

    it.effect("publishMany of many entities sends one NOTIFY per entity type instead of one per entity", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const invalidation = yield* CacheInvalidation
        const es = Array.from({ length: 150 }, (_, i) =>
          entity(i % 2 === 0 ? "oracle" : "chain", `notified-${i}`)
        )
        yield* (yield* EntityRepository).upsert(es)
        const drafts = es.map((e) => scorecard(e, 1, "draft"))
        yield* repo.saveDrafts(drafts)
        const changes = yield* invalidation.subscribe
        const marker = { entity_type: "oracle" as const, entity_id: "marker" }
        yield* repo.publishMany(drafts.map((d, i) => publishRecord(es[i]!, d)))
        yield* invalidation.publish(marker)
        assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(changes, 3)), [
          { entity_type: "oracle", entity_id: AllOfType },
          { entity_type: "chain", entity_id: AllOfType },
          marker
        ])
      }).pipe(Effect.provide(Layer.merge(postgres, PgCacheInvalidation.layer)), Effect.scoped)
    )
  })
})
