/**
 * The bulk save of drafts writes answers and evidence without their per-row
 * foreign-key triggers when the session may (scorecards/RowTriggers.ts): the
 * foreign key still holds for everything after it in the transaction, a child
 * whose scorecard is not stored still fails the write, and a session that may
 * not switch the triggers off writes the same rows with them on.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { entity, historyOf, scorecard, T2 } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Effect, Exit, Layer } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { maySkipRowTriggers, withoutRowTriggers } from "../src/scorecards/RowTriggers.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")

const MissingScorecard = "6d1c1f0e-5b7a-4c1e-9a55-000000000001"

/** An answer row of the scorecard `scorecardId`, written directly. */
const insertAnswer = (sql: PgClient.PgClient, scorecardId: string) =>
  sql`INSERT INTO answers (scorecard_id, position, id, question_id, max_score, weight)
    VALUES (${scorecardId}::uuid, 0, gen_random_uuid(), 'q-1', 1, 1)`

/** The answers stored for a scorecard, in position order, as the bulk save wrote them. */
const answerRows = (sql: PgClient.PgClient, scorecardId: string) =>
  sql`SELECT position, id, question_id, domain, score, max_score, weight, confidence, response, rationale
    FROM answers WHERE scorecard_id = ${scorecardId}::uuid ORDER BY position`

describe("the bulk save's per-row foreign-key triggers", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("are back on after saveDrafts, for the rest of the transaction", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "row-triggers-back-on")
        yield* (yield* EntityRepository).upsert([e])
        const draft = scorecard(e, 1, "draft")
        assert.isTrue(yield* maySkipRowTriggers(sql))
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* repo.saveDrafts([draft])
              const [role] = yield* sql<{
                role: string
              }>`SELECT current_setting('session_replication_role') AS role`
              assert.strictEqual(role?.role, "origin")
              yield* insertAnswer(sql, MissingScorecard)
            })
          )
        )
        assert.include(failureText(exit), "answers_scorecard_id_fkey")
        assert.strictEqual((yield* answerRows(sql, draft.id)).length, 0)
      }).pipe(Effect.provide(postgres))
    )

    it.effect("are back on after publishMany, which publishes as before", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "row-triggers-publish")
        yield* (yield* EntityRepository).upsert([e])
        const draft = scorecard(e, 1, "draft")
        const published = {
          ...draft,
          status: "published" as const,
          last_rated_at: T2,
          scorecard_published_at: T2
        }
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* repo.saveDrafts([draft])
              yield* repo.publishMany([
                {
                  entity_type: e.entity_type,
                  entity_id: e.record.id,
                  scorecard: published,
                  history: historyOf(published, "initial", "admin")
                }
              ])
              const [role] = yield* sql<{
                role: string
              }>`SELECT current_setting('session_replication_role') AS role`
              assert.strictEqual(role?.role, "origin")
              assert.deepStrictEqual(yield* repo.latestOf("protocol", [e.record.id], "published"), [
                published
              ])
              yield* sql`INSERT INTO rating_history (entity_id, scorecard_version, scorecard_id, published_at,
                  reasoning) VALUES (${MissingScorecard}::uuid, 1, gen_random_uuid(), now(), 'x')`
            })
          )
        )
        assert.include(failureText(exit), "rating_history_entity_id_fkey")
      }).pipe(Effect.provide(postgres))
    )

    it.effect("still refuse a child row whose scorecard is not stored, and the write is undone", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const exit = yield* Effect.exit(
          sql.withTransaction(
            withoutRowTriggers(
              sql,
              { table: "scorecards", ids: [MissingScorecard] },
              insertAnswer(sql, MissingScorecard)
            )
          )
        )
        assert.include(failureText(exit), "StoreError")
        assert.include(
          failureText(exit),
          "1 of the scorecards the rows belong to are not stored (foreign key)"
        )
        assert.strictEqual((yield* answerRows(sql, MissingScorecard)).length, 0)
        const [role] = yield* sql<{
          role: string
        }>`SELECT current_setting('session_replication_role') AS role`
        assert.strictEqual(role?.role, "origin")
      })
    )

    it.effect("are the only triggers of the tables written without them: their foreign keys", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        // A trigger or deferrable constraint added to these tables would be skipped by
        // RowTriggers.ts as well: this fails first, so that the change is made knowingly.
        const others = yield* sql<{ name: string }>`
          SELECT t.tgrelid::regclass::text || '.' || t.tgname AS name
          FROM pg_trigger t LEFT JOIN pg_constraint c ON c.oid = t.tgconstraint
          WHERE t.tgrelid IN ('answers'::regclass, 'evidence'::regclass, 'scorecards'::regclass,
              'rating_history'::regclass)
            AND (c.contype IS DISTINCT FROM 'f' OR c.condeferrable)`
        assert.deepStrictEqual(others, [])
      })
    )

    it.effect("stay on for a role that may not switch them off, which saves the same rows", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const [{ db }] = (yield* sql<{ readonly db: string }>`SELECT current_database() AS db`) as [
          { db: string }
        ]
        const role = `bulk_writer_${db}`.slice(0, 60)
        yield* Effect.acquireRelease(
          Effect.gen(function* () {
            yield* sql.unsafe(`CREATE ROLE "${role}" NOLOGIN`)
            yield* sql.unsafe(`GRANT ALL ON ALL TABLES IN SCHEMA public TO "${role}"`)
          }),
          () =>
            sql
              .unsafe(`DROP OWNED BY "${role}"`)
              .pipe(Effect.andThen(sql.unsafe(`DROP ROLE "${role}"`)), Effect.ignore)
        )
        const es = ["as-superuser", "as-writer"].map((s) => entity("protocol", `row-triggers-${s}`))
        yield* (yield* EntityRepository).upsert(es)
        const [mine, theirs] = es.map((e) => scorecard(e, 1, "draft")) as [
          ReturnType<typeof scorecard>,
          ReturnType<typeof scorecard>
        ]
        yield* repo.saveDrafts([mine])
        const may = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql.unsafe(`SET LOCAL ROLE "${role}"`)
            yield* repo.saveDrafts([theirs])
            return yield* maySkipRowTriggers(sql)
          })
        )
        assert.isFalse(may)
        const rows = yield* answerRows(sql, theirs.id)
        assert.strictEqual(rows.length, theirs.answers.length)
        assert.strictEqual((yield* answerRows(sql, mine.id)).length, mine.answers.length)
        const stored = yield* repo.latestOf("protocol", [theirs.entity_id], "draft")
        assert.deepStrictEqual(stored, [theirs])
      }).pipe(Effect.provide(postgres))
    )
  })
})
