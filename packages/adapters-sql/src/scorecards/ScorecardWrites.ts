/**
 * The single-scorecard writes of the ScorecardRepository on Postgres:
 * `saveDraft`, `importHistory` and `publish`. `saveDraft` and `importHistory`
 * are idempotent: saving the same draft twice rewrites no row (the scorecard
 * row is updated only when a column differs, and answers and evidence only
 * when their content differs).
 */
import type { PgClient } from "@effect/sql-pg"
import type {
  HistoryEntryRecord,
  PublishRecord,
  ScorecardRepository,
  StoredScorecard
} from "@ratings/domain/ports/ScorecardRepository"
import { Effect } from "effect"
import { notifyChanges } from "../PgCacheInvalidation.ts"
import { catchSqlError, orStoreError } from "../PgTransaction.ts"
import { AnswersJson, answersOf, EvidenceJson, evidenceOf, historyRowOf } from "./ScorecardRows.ts"

type Writes = Pick<ScorecardRepository["Service"], "saveDraft" | "importHistory" | "publish">

/** Upserts the scorecard row, each column only where it differs. */
const upsertRow = (sql: PgClient.PgClient, s: StoredScorecard) =>
  sql`
    INSERT INTO scorecards AS s (id, entity_type, entity_id, scorecard_version, status, grade, letter_grade,
      composite_score, intrinsic_composite_score, intrinsic_letter_grade, largest_drag_hint,
      has_unrated_dependencies, domain_scores, mvc_gates, domain_weights, dependencies, last_rated_at,
      scorecard_published_at)
    VALUES (${s.id}::uuid, ${s.entity_type}::text, ${s.entity_id}::uuid, ${s.scorecard_version},
      ${s.status}::text, ${s.grade}::text, ${s.letter_grade}::text, ${s.composite_score}::float8,
      ${s.intrinsic_composite_score}::float8, ${s.intrinsic_letter_grade}::text,
      ${s.largest_drag_hint}::text, ${s.has_unrated_dependencies}, ${sql.json(s.domain_scores)},
      ${sql.json(s.mvc_gates)}, ${sql.json(s.domain_weights)}, ${sql.json(s.dependencies)},
      ${s.last_rated_at}::timestamptz, ${s.scorecard_published_at}::timestamptz)
    ON CONFLICT (id) DO UPDATE SET
      entity_type = excluded.entity_type, entity_id = excluded.entity_id,
      scorecard_version = excluded.scorecard_version, status = excluded.status, grade = excluded.grade,
      letter_grade = excluded.letter_grade, composite_score = excluded.composite_score,
      intrinsic_composite_score = excluded.intrinsic_composite_score,
      intrinsic_letter_grade = excluded.intrinsic_letter_grade,
      largest_drag_hint = excluded.largest_drag_hint,
      has_unrated_dependencies = excluded.has_unrated_dependencies, domain_scores = excluded.domain_scores,
      mvc_gates = excluded.mvc_gates, domain_weights = excluded.domain_weights,
      dependencies = excluded.dependencies, last_rated_at = excluded.last_rated_at,
      scorecard_published_at = excluded.scorecard_published_at
    WHERE (s.entity_type, s.entity_id, s.scorecard_version, s.status, s.grade, s.letter_grade,
        s.composite_score, s.intrinsic_composite_score, s.intrinsic_letter_grade, s.largest_drag_hint,
        s.has_unrated_dependencies, s.domain_scores, s.mvc_gates, s.domain_weights, s.dependencies,
        s.last_rated_at, s.scorecard_published_at)
      IS DISTINCT FROM (excluded.entity_type, excluded.entity_id, excluded.scorecard_version,
        excluded.status, excluded.grade, excluded.letter_grade, excluded.composite_score,
        excluded.intrinsic_composite_score, excluded.intrinsic_letter_grade, excluded.largest_drag_hint,
        excluded.has_unrated_dependencies, excluded.domain_scores, excluded.mvc_gates,
        excluded.domain_weights, excluded.dependencies, excluded.last_rated_at,
        excluded.scorecard_published_at)`

/** Replaces the answers and evidence of a scorecard, each only where the content differs. */
const replaceContent = (sql: PgClient.PgClient, s: StoredScorecard) =>
  Effect.gen(function* () {
    const answers = sql.json(answersOf(s))
    yield* sql`DELETE FROM answers WHERE scorecard_id = ${s.id}::uuid
      AND (SELECT ${sql.literal(AnswersJson)} FROM (SELECT ${s.id}::uuid AS id) s) IS DISTINCT FROM ${answers}`
    yield* sql`INSERT INTO answers (scorecard_id, position, id, question_id, domain, score, max_score, weight,
        confidence, response, rationale)
      SELECT ${s.id}::uuid, a.position - 1, a.id, a.question_id, a.domain, a.score, a.max_score, a.weight,
        a.confidence, a.response, a.rationale
      FROM ROWS FROM (jsonb_to_recordset(${answers}) AS (id uuid, question_id text, domain text,
        score float8, max_score float8, weight float8, confidence text, response text, rationale text))
        WITH ORDINALITY AS a(id, question_id, domain, score, max_score, weight, confidence, response,
        rationale, position)
      ON CONFLICT (scorecard_id, position) DO NOTHING`
    const evidence = sql.json(evidenceOf(s))
    yield* sql`DELETE FROM evidence WHERE scorecard_id = ${s.id}::uuid
      AND (SELECT ${sql.literal(EvidenceJson)} FROM (SELECT ${s.id}::uuid AS id) s) IS DISTINCT FROM ${evidence}`
    yield* sql`INSERT INTO evidence (scorecard_id, position, question_id, items, reasoning)
      SELECT ${s.id}::uuid, e.position - 1, e.question_id, e.evidence, e.reasoning
      FROM ROWS FROM (jsonb_to_recordset(${evidence}) AS (question_id text, evidence jsonb, reasoning text))
        WITH ORDINALITY AS e(question_id, evidence, reasoning, position)
      ON CONFLICT (scorecard_id, position) DO NOTHING`
  })

/** Upserts the scorecard row and replaces answers and evidence, each only where the content differs. */
const write = (sql: PgClient.PgClient, s: StoredScorecard) =>
  Effect.gen(function* () {
    yield* upsertRow(sql, s)
    yield* replaceContent(sql, s)
  })

const saveDraft = (sql: PgClient.PgClient) =>
  Effect.fn("PgScorecardRepository.saveDraft")(function* (s: StoredScorecard) {
    yield* sql.withTransaction(write(sql, s)).pipe(catchSqlError(`save scorecard ${s.id}`))
  })

const importHistory = (sql: PgClient.PgClient) =>
  Effect.fn("PgScorecardRepository.importHistory")(function* (
    entityId: string,
    entries: ReadonlyArray<HistoryEntryRecord>
  ) {
    if (entries.length === 0) return
    yield* sql`INSERT INTO rating_history (entity_id, scorecard_version, scorecard_id, grade, letter_grade,
        composite_score, intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by)
      SELECT entity_id, scorecard_version, scorecard_id, grade, letter_grade, composite_score,
        intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by
      FROM jsonb_to_recordset(${sql.json(entries.map((h) => historyRowOf(entityId, h)))}) AS h(entity_id uuid,
        scorecard_version int, scorecard_id uuid, grade text, letter_grade text, composite_score float8,
        intrinsic_composite_score float8, intrinsic_letter_grade text, published_at timestamptz,
        reasoning text, changed_by text)
      ON CONFLICT (entity_id, scorecard_version) DO NOTHING`.pipe(
      orStoreError(`import history of ${entityId}`)
    )
  })

/**
 * One transaction even when called outside one (a savepoint inside a
 * caller's): locks the entity row so concurrent publishes of one entity
 * queue, supersedes the published version, stores the published scorecard,
 * appends the history entry and queues `NOTIFY ratings_changed` (delivered on
 * commit only). A partial unique index keeps at most one published scorecard
 * per entity whatever the caller does.
 */
const publish = (sql: PgClient.PgClient) =>
  Effect.fn("PgScorecardRepository.publish")(function* (r: PublishRecord) {
    const h = historyRowOf(r.entity_id, r.history)
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT 1 FROM entities WHERE id = ${r.entity_id}::uuid FOR UPDATE`
          yield* sql`UPDATE scorecards SET status = 'superseded'
            WHERE entity_id = ${r.entity_id}::uuid AND entity_type = ${r.entity_type}::text
              AND status = 'published' AND id <> ${r.scorecard.id}::uuid`
          yield* write(sql, r.scorecard)
          yield* sql`INSERT INTO rating_history (entity_id, scorecard_version, scorecard_id, grade, letter_grade,
              composite_score, intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning,
              changed_by)
            VALUES (${h.entity_id}::uuid, ${h.scorecard_version}, ${h.scorecard_id}::uuid, ${h.grade}::text,
              ${h.letter_grade}::text, ${h.composite_score}::float8, ${h.intrinsic_composite_score}::float8,
              ${h.intrinsic_letter_grade}::text, ${h.published_at}::timestamptz, ${h.reasoning}::text,
              ${h.changed_by}::text)`
          yield* notifyChanges(sql, [{ entity_type: r.entity_type, entity_id: r.entity_id.toLowerCase() }])
        })
      )
      .pipe(catchSqlError(`publish scorecard ${r.scorecard.id}`))
  })

/** The single-scorecard write methods of the repository over one client. */
export const writes = (sql: PgClient.PgClient): Writes => ({
  saveDraft: saveDraft(sql),
  importHistory: importHistory(sql),
  publish: publish(sql)
})
