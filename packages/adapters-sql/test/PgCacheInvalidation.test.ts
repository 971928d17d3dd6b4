import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Exit, Layer, Result, Stream } from "effect"
import * as PgCacheInvalidation from "../src/PgCacheInvalidation.ts"
import { CacheInvalidation } from "../src/PgCacheInvalidation.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { entity, historyOf, scorecard, T2 } from "./contract/ratings-fixtures.ts"
import { TestDatabase } from "./TestDatabase.ts"

const ports = Layer.mergeAll(PgEntityRepository.layer, PgScorecardRepository.layer, PgCacheInvalidation.layer)

/** The next `n` changes a listener receives. */
const nextChanges = (n: number) =>
  Effect.gen(function* () {
    const changes = yield* (yield* CacheInvalidation).subscribe
    return (take: Effect.Effect<unknown, unknown>) =>
      Effect.gen(function* () {
        yield* take
        return yield* Stream.runCollect(Stream.take(changes, n))
      })
  })

const publishRecord = (e: ReturnType<typeof entity>, draft: ReturnType<typeof scorecard>) => {
  const published = { ...draft, status: "published" as const, last_rated_at: T2, scorecard_published_at: T2 }
  return {
    entity_type: e.entity_type,
    entity_id: e.record.id,
    scorecard: published,
    history: historyOf(published, "x")
  }
}

describe("PgCacheInvalidation", () => {
  it("payloads are '<entity_type>:<entity_id>'; anything else is not a change", () => {
    const change = { entity_type: "vault" as const, entity_id: "00000000-0000-4000-8000-000000000001" }
    assert.strictEqual(PgCacheInvalidation.payloadOf(change), "vault:00000000-0000-4000-8000-000000000001")
    assert.deepStrictEqual(
      PgCacheInvalidation.parsePayload(PgCacheInvalidation.payloadOf(change)),
      Result.succeed(change)
    )
    for (const bad of ["", "vault", "vault:", ":id", "planet:x"]) {
      assert.isTrue(Result.isFailure(PgCacheInvalidation.parsePayload(bad)), bad)
    }
  })

  it.layer(TestDatabase)((it) => {
    it.effect("a listener on another connection receives the change once a publish commits", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const e = entity("protocol", "notified")
        yield* entities.upsert([e])
        const draft = scorecard(e, 1, "draft")
        yield* scorecards.saveDraft(draft)
        const listen = yield* nextChanges(1)
        const received = yield* listen(scorecards.publish(publishRecord(e, draft)))
        assert.deepStrictEqual(received, [{ entity_type: "protocol", entity_id: e.record.id }])
      }).pipe(Effect.provide(ports))
    )

    it.effect("a publish that rolls back notifies nobody", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const sql = yield* PgClient.PgClient
        const rolledBack = entity("protocol", "rolled-back")
        const committed = entity("protocol", "committed")
        yield* entities.upsert([rolledBack, committed])
        const draftA = scorecard(rolledBack, 1, "draft")
        const draftB = scorecard(committed, 1, "draft")
        yield* scorecards.saveDraft(draftA)
        yield* scorecards.saveDraft(draftB)
        const listen = yield* nextChanges(1)
        // Notifications arrive in commit order: if the rolled-back one were sent, it would come first.
        const received = yield* listen(
          Effect.gen(function* () {
            const exit = yield* Effect.exit(
              sql.withTransaction(
                Effect.andThen(
                  scorecards.publish(publishRecord(rolledBack, draftA)),
                  Effect.fail("roll back")
                )
              )
            )
            assert.isTrue(Exit.isFailure(exit))
            yield* scorecards.publish(publishRecord(committed, draftB))
          })
        )
        assert.deepStrictEqual(received, [{ entity_type: "protocol", entity_id: committed.record.id }])
      }).pipe(Effect.provide(ports))
    )

    it.effect("publish(change) reaches every subscriber", () =>
      Effect.gen(function* () {
        const invalidation = yield* CacheInvalidation
        const first = yield* nextChanges(1)
        const second = yield* invalidation.subscribe
        const change = { entity_type: "chain" as const, entity_id: "00000000-0000-4000-8000-0000000000aa" }
        assert.deepStrictEqual(yield* first(invalidation.publish(change)), [change])
        assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(second, 1)), [change])
      }).pipe(Effect.provide(ports))
    )

    it.effect("an entity upsert announces each changed entity; an unchanged one announces nothing", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const invalidation = yield* CacheInvalidation
        const same = entity("oracle", "unchanged-oracle")
        yield* entities.upsert([same])
        const renamed = entity("oracle", "to-rename")
        const listen = yield* nextChanges(2)
        const marker = { entity_type: "oracle" as const, entity_id: "marker" }
        const received = yield* listen(
          Effect.gen(function* () {
            yield* entities.upsert([same, renamed])
            yield* invalidation.publish(marker)
          })
        )
        assert.deepStrictEqual(received, [{ entity_type: "oracle", entity_id: renamed.record.id }, marker])
      }).pipe(Effect.provide(ports))
    )

    it.effect("a large upsert announces the whole type once instead of each entity", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const listen = yield* nextChanges(1)
        const many = Array.from({ length: 150 }, (_, i) => entity("token", `bulk-${i}`))
        const received = yield* listen(entities.upsert(many))
        assert.deepStrictEqual(received, [{ entity_type: "token", entity_id: PgCacheInvalidation.AllOfType }])
      }).pipe(Effect.provide(ports))
    )
  })
})
