import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Exit, Layer, Option } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { entity, historyOf, scorecard, T2 } from "./contract/ratings-fixtures.ts"
import { memoryTarget, postgresTarget } from "./contract/ratings-harness.ts"
import { scorecardRepositoryContract } from "./contract/ratings-scorecard-repository.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

scorecardRepositoryContract(
  memoryTarget(Layer.merge(EntityRepository.layerMemory(), ScorecardRepository.layerMemory()))
)
scorecardRepositoryContract(postgresTarget(postgres))

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
  })
})
