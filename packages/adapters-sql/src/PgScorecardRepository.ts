/**
 * The ScorecardRepository port on Postgres. A scorecard is a row of
 * `scorecards` (figures as columns, maps as jsonb) with its answers and
 * evidence in their own tables, in canonical order by position; the rating
 * history is `rating_history`, one row per entity and version.
 *
 * `publish` runs in one transaction even when called outside one (nested in a
 * caller's transaction it becomes a savepoint of it): it locks the entity row so
 * concurrent publishes of one entity queue, supersedes the published version,
 * stores the published scorecard, appends the history entry and queues
 * `NOTIFY ratings_changed` (delivered on commit only). A partial unique index
 * keeps at most one published scorecard per entity whatever the caller does.
 *
 * `saveDraft` and `importHistory` are idempotent: saving the same draft twice
 * rewrites no row (the scorecard row is updated only when a column differs, and
 * answers and evidence only when their content differs).
 */
import { PgClient } from "@effect/sql-pg"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import {
  type HistoryEntryRecord,
  type PublishRecord,
  ScorecardRepository,
  type StoredScorecard
} from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Layer, Option } from "effect"
import { notifyChanges } from "./PgCacheInvalidation.ts"
import { catchSqlError, isoOf, isoOrNull, isUuid, orStoreError } from "./PgTransaction.ts"

type Figures = Pick<
  Scorecard,
  | "grade"
  | "letter_grade"
  | "composite_score"
  | "intrinsic_composite_score"
  | "intrinsic_letter_grade"
  | "largest_drag_hint"
  | "has_unrated_dependencies"
  | "domain_scores"
  | "mvc_gates"
>

interface ScorecardRow extends Figures {
  readonly id: string
  readonly entity_id: string
  readonly entity_type: EntityType
  readonly status: Scorecard["status"]
  readonly scorecard_version: number
  readonly last_rated_at: Date | null
  readonly scorecard_published_at: Date | null
}

interface DetailRow extends ScorecardRow {
  readonly domain_weights: StoredScorecard["domain_weights"]
  readonly dependencies: StoredScorecard["dependencies"]
  readonly answers: StoredScorecard["answers"]
  readonly evidence: StoredScorecard["evidence"]
}

interface HistoryRow {
  readonly scorecard_id: string
  readonly scorecard_version: number
  readonly grade: HistoryEntryRecord["grade"]
  readonly letter_grade: HistoryEntryRecord["letter_grade"]
  readonly composite_score: number | null
  readonly intrinsic_composite_score: number | null
  readonly intrinsic_letter_grade: HistoryEntryRecord["intrinsic_letter_grade"]
  readonly published_at: Date
  readonly reasoning: string
  readonly changed_by: string | null
}

const ListColumns = `s.id, s.entity_id, s.entity_type, s.status, s.scorecard_version, s.grade, s.letter_grade,
  s.composite_score, s.intrinsic_composite_score, s.intrinsic_letter_grade, s.largest_drag_hint,
  s.has_unrated_dependencies, s.domain_scores, s.mvc_gates, s.last_rated_at, s.scorecard_published_at`

/** The answers and evidence as the domain holds them, built by the same expressions that compare on save. */
const AnswersJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'question_id', a.question_id,
    'domain', a.domain, 'score', a.score, 'max_score', a.max_score, 'weight', a.weight,
    'confidence', a.confidence, 'response', a.response, 'rationale', a.rationale) ORDER BY a.position)
  FROM answers a WHERE a.scorecard_id = s.id), '[]'::jsonb)`
const EvidenceJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('question_id', e.question_id,
    'evidence', e.items, 'reasoning', e.reasoning) ORDER BY e.position)
  FROM evidence e WHERE e.scorecard_id = s.id), '[]'::jsonb)`

const DetailColumns = `${ListColumns}, s.domain_weights, s.dependencies, ${AnswersJson} AS answers,
  ${EvidenceJson} AS evidence`

export const toScorecard = (row: ScorecardRow): Scorecard => ({
  id: row.id,
  entity_id: row.entity_id,
  entity_type: row.entity_type,
  status: row.status,
  scorecard_version: row.scorecard_version,
  grade: row.grade,
  letter_grade: row.letter_grade,
  composite_score: row.composite_score,
  intrinsic_composite_score: row.intrinsic_composite_score,
  intrinsic_letter_grade: row.intrinsic_letter_grade,
  largest_drag_hint: row.largest_drag_hint,
  has_unrated_dependencies: row.has_unrated_dependencies,
  domain_scores: row.domain_scores,
  mvc_gates: row.mvc_gates,
  last_rated_at: isoOrNull(row.last_rated_at),
  scorecard_published_at: isoOrNull(row.scorecard_published_at)
})

const toStored = (row: DetailRow): StoredScorecard => ({
  ...toScorecard(row),
  domain_weights: row.domain_weights,
  answers: row.answers,
  dependencies: row.dependencies,
  evidence: row.evidence
})

const toHistory = (row: HistoryRow): HistoryEntryRecord => ({
  scorecard_id: row.scorecard_id,
  scorecard_version: row.scorecard_version,
  grade: row.grade,
  letter_grade: row.letter_grade,
  composite_score: row.composite_score,
  intrinsic_composite_score: row.intrinsic_composite_score,
  intrinsic_letter_grade: row.intrinsic_letter_grade,
  published_at: isoOf(row.published_at),
  reasoning: row.reasoning,
  ...(row.changed_by === null ? {} : { changed_by: row.changed_by })
})

/** Exactly the keys AnswersJson builds, so that stored and incoming content compare as jsonb. */
const answersOf = (s: StoredScorecard) =>
  s.answers.map((a) => ({
    id: a.id,
    question_id: a.question_id,
    domain: a.domain,
    score: a.score,
    max_score: a.max_score,
    weight: a.weight,
    confidence: a.confidence,
    response: a.response,
    rationale: a.rationale
  }))

const evidenceOf = (s: StoredScorecard) =>
  s.evidence.map((e) => ({ question_id: e.question_id, evidence: e.evidence, reasoning: e.reasoning }))

const historyRowOf = (entityId: string, h: HistoryEntryRecord) => ({
  entity_id: entityId,
  scorecard_version: h.scorecard_version,
  scorecard_id: h.scorecard_id,
  grade: h.grade,
  letter_grade: h.letter_grade,
  composite_score: h.composite_score,
  intrinsic_composite_score: h.intrinsic_composite_score,
  intrinsic_letter_grade: h.intrinsic_letter_grade,
  published_at: h.published_at,
  reasoning: h.reasoning,
  changed_by: h.changed_by ?? null
})

/**
 * At most one published scorecard per entity (scorecards_one_published), so it
 * is the latest, and the same partial index finds them: one query for a whole
 * page. Exported so that tests can EXPLAIN exactly what runs.
 */
export const latestPublishedStatement = (
  sql: PgClient.PgClient,
  type: EntityType,
  entityIds: ReadonlyArray<string>
) =>
  sql<ScorecardRow>`SELECT ${sql.literal(ListColumns)} FROM scorecards s
    WHERE s.entity_id = ANY(${entityIds}::uuid[]) AND s.status = 'published' AND s.entity_type = ${type}::text`

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient

  const listForEntity = (type: EntityType, entityId: string) =>
    isUuid(entityId)
      ? sql<ScorecardRow>`SELECT ${sql.literal(ListColumns)} FROM scorecards s
          WHERE s.entity_type = ${type}::text AND s.entity_id = ${entityId}::uuid
          ORDER BY s.scorecard_version DESC`.pipe(
          Effect.map((rows) => rows.map(toScorecard)),
          orStoreError(`scorecards of ${type} ${entityId}`)
        )
      : Effect.succeed([])

  const findById = (type: EntityType, scorecardId: string) =>
    isUuid(scorecardId)
      ? sql<DetailRow>`SELECT ${sql.literal(DetailColumns)} FROM scorecards s
          WHERE s.id = ${scorecardId}::uuid AND s.entity_type = ${type}::text`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toStored)),
          orStoreError(`scorecard ${scorecardId}`)
        )
      : Effect.succeedNone

  const latest = (type: EntityType, entityId: string, status: "published" | "draft") =>
    isUuid(entityId)
      ? sql<DetailRow>`SELECT ${sql.literal(DetailColumns)} FROM scorecards s
          WHERE s.entity_id = ${entityId}::uuid AND s.entity_type = ${type}::text AND s.status = ${status}::text
          ORDER BY s.scorecard_version DESC LIMIT 1`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toStored)),
          orStoreError(`latest ${status} scorecard of ${type} ${entityId}`)
        )
      : Effect.succeedNone

  const latestPublishedOf = (type: EntityType, entityIds: ReadonlyArray<string>) => {
    const ids = [...new Set(entityIds.filter(isUuid).map((id) => id.toLowerCase()))]
    if (ids.length === 0) return Effect.succeed(new Map<string, Scorecard>())
    return latestPublishedStatement(sql, type, ids).pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.entity_id, toScorecard(row)]))),
      orStoreError(`latest published ${type} scorecards`)
    )
  }

  const history = (_type: EntityType, entityId: string) =>
    isUuid(entityId)
      ? sql<HistoryRow>`SELECT scorecard_id, scorecard_version, grade, letter_grade, composite_score,
            intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by
          FROM rating_history WHERE entity_id = ${entityId}::uuid ORDER BY scorecard_version DESC`.pipe(
          Effect.map((rows) => rows.map(toHistory)),
          orStoreError(`history of ${entityId}`)
        )
      : Effect.succeed([])

  /** Upserts the scorecard row and replaces answers and evidence, each only where the content differs. */
  const write = (s: StoredScorecard) =>
    Effect.gen(function* () {
      yield* sql`
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

  const saveDraft = Effect.fn("PgScorecardRepository.saveDraft")(function* (s: StoredScorecard) {
    yield* sql.withTransaction(write(s)).pipe(catchSqlError(`save scorecard ${s.id}`))
  })

  const importHistory = Effect.fn("PgScorecardRepository.importHistory")(function* (
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

  const publish = Effect.fn("PgScorecardRepository.publish")(function* (r: PublishRecord) {
    const h = historyRowOf(r.entity_id, r.history)
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT 1 FROM entities WHERE id = ${r.entity_id}::uuid FOR UPDATE`
          yield* sql`UPDATE scorecards SET status = 'superseded'
            WHERE entity_id = ${r.entity_id}::uuid AND entity_type = ${r.entity_type}::text
              AND status = 'published' AND id <> ${r.scorecard.id}::uuid`
          yield* write(r.scorecard)
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

  return ScorecardRepository.of({
    listForEntity,
    findById,
    latest,
    latestPublishedOf,
    history,
    saveDraft,
    importHistory,
    publish
  })
})

export const layer: Layer.Layer<ScorecardRepository, never, PgClient.PgClient> = Layer.effect(
  ScorecardRepository,
  make
)
