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
 *
 * The bulk methods work set-based, a few statements per chunk of rows. Answers,
 * the bulk of an import, travel as one Postgres array literal per column
 * (`unnest` in the select list streams them into INSERT without materialising);
 * the other rows travel as one json parameter read by `json_to_recordset`.
 * `saveDrafts` keeps the idempotency of `saveDraft`: a new scorecard (its row's
 * INSERT returned `xmax = 0`) simply gets its answers and evidence; a stored one
 * has them compared row by row, as typed columns, and replaced only when some
 * row differs. Bulk reads assemble answers and evidence from plain rows, which
 * is several times cheaper than building them as json per scorecard.
 * `publishMany` runs the statements of `publish` over a chunk of entities at
 * once (an entity that repeats goes to the next round, so order is kept) and
 * sends one NOTIFY per entity type when many entities changed.
 */
import { PgClient } from "@effect/sql-pg"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import {
  type HistoryEntryRecord,
  type PublishRecord,
  repeatFreeRuns,
  ScorecardRepository,
  type StoredScorecard
} from "@ratings/domain/ports/ScorecardRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer, Option } from "effect"
import type { SqlError } from "effect/sql"
import { AllOfType, type EntityChange, notifyChanges } from "./PgCacheInvalidation.ts"
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

/** The scorecard row as `json_to_recordset` reads it from the domain's objects (answers and evidence left out). */
const RowRecord = `r(id uuid, entity_type text, entity_id uuid, scorecard_version int, status text, grade text,
  letter_grade text, composite_score float8, intrinsic_composite_score float8, intrinsic_letter_grade text,
  largest_drag_hint text, has_unrated_dependencies boolean, domain_scores jsonb, mvc_gates jsonb,
  domain_weights jsonb, dependencies jsonb, last_rated_at timestamptz, scorecard_published_at timestamptz)`

/** Scorecards per chunk of saveDrafts: some 60 answers each, a few megabytes of parameters. */
const DraftChunk = 250
/** Scorecards per statement of publishMany (rows without answers). */
const PublishChunk = 5000
/** Ids per bulk read. */
const ReadChunk = 2000
/** Above this many entities published at once, listeners are told "the whole type" instead of each id. */
const NotifyEachUpTo = 100

const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
  return out
}

/**
 * A Postgres array literal: text quoted and escaped, numbers as JavaScript
 * prints them (float8in reads back the same double), null as NULL.
 */
export const arrayLiteral = (values: ReadonlyArray<string | number | null>): string => {
  const parts = new Array<string>(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    parts[i] =
      v === null
        ? "NULL"
        : typeof v === "number"
          ? String(v)
          : v.includes('"') || v.includes("\\")
            ? `"${v.replace(/[\\"]/g, "\\$&")}"`
            : `"${v}"`
  }
  return `{${parts.join(",")}}`
}

type AnswerOf = StoredScorecard["answers"][number]
const AnswerFields = [
  "id",
  "question_id",
  "domain",
  "score",
  "max_score",
  "weight",
  "confidence",
  "response",
  "rationale"
] as const satisfies ReadonlyArray<keyof AnswerOf>

interface AnswerRow {
  readonly scorecard_id: string
  readonly id: string
  readonly question_id: string
  readonly domain: string | null
  readonly score: number | null
  readonly max_score: number
  readonly weight: number
  readonly confidence: AnswerOf["confidence"]
  readonly response: string | null
  readonly rationale: string | null
}

interface EvidenceRow {
  readonly scorecard_id: string
  readonly question_id: string
  readonly items: StoredScorecard["evidence"][number]["evidence"]
  readonly reasoning: string | null
}

type BaseRow = Omit<DetailRow, "answers" | "evidence">

/** The scorecard's own columns: the object without its answers and evidence, which have tables. */
const rowOf = (s: StoredScorecard) => {
  const { answers: _a, evidence: _e, ...row } = s
  return row
}

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

  const uuids = (ids: ReadonlyArray<string>) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))]

  /** Runs a read over the ids in chunks and concatenates the rows. */
  const chunkedRead = <A>(
    ids: ReadonlyArray<string>,
    read: (chunk: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>,
    what: string
  ) =>
    Effect.forEach(chunksOf(uuids(ids), ReadChunk), read).pipe(
      Effect.map((parts): ReadonlyArray<A> => parts.flat()),
      orStoreError(what)
    )

  /** Whole scorecards from their rows: answers and evidence read as rows, in position order. */
  const withContent = (rows: ReadonlyArray<BaseRow>) =>
    Effect.gen(function* () {
      if (rows.length === 0) return []
      const ids = rows.map((r) => r.id)
      const answers =
        yield* sql<AnswerRow>`SELECT scorecard_id, id, question_id, domain, score, max_score, weight,
          confidence, response, rationale
        FROM answers WHERE scorecard_id = ANY(${ids}::uuid[]) ORDER BY scorecard_id, position`
      const evidence = yield* sql<EvidenceRow>`SELECT scorecard_id, question_id, items, reasoning
        FROM evidence WHERE scorecard_id = ANY(${ids}::uuid[]) ORDER BY scorecard_id, position`
      const answersOf = new Map<string, Array<AnswerOf>>(ids.map((id) => [id, []]))
      for (const { scorecard_id, ...a } of answers) answersOf.get(scorecard_id)?.push(a)
      const evidenceOf = new Map<string, Array<StoredScorecard["evidence"][number]>>(
        ids.map((id) => [id, []])
      )
      for (const e of evidence)
        evidenceOf
          .get(e.scorecard_id)
          ?.push({ question_id: e.question_id, evidence: e.items, reasoning: e.reasoning })
      return rows.map((row) =>
        toStored({ ...row, answers: answersOf.get(row.id) ?? [], evidence: evidenceOf.get(row.id) ?? [] })
      )
    })

  const BaseColumns = `${ListColumns}, s.domain_weights, s.dependencies`

  const listForEntities = (type: EntityType, entityIds: ReadonlyArray<string>) =>
    chunkedRead(
      entityIds,
      (ids) =>
        Effect.map(
          sql<ScorecardRow>`SELECT ${sql.literal(ListColumns)} FROM scorecards s
            WHERE s.entity_type = ${type}::text AND s.entity_id = ANY(${ids}::uuid[])
            ORDER BY s.entity_id, s.scorecard_version DESC`,
          (rows) => rows.map(toScorecard)
        ),
      `scorecards of ${entityIds.length} ${type} entities`
    )

  const findByIds = (type: EntityType, scorecardIds: ReadonlyArray<string>) =>
    chunkedRead(
      scorecardIds,
      (ids) =>
        Effect.flatMap(
          sql<BaseRow>`SELECT ${sql.literal(BaseColumns)} FROM scorecards s
            WHERE s.id = ANY(${ids}::uuid[]) AND s.entity_type = ${type}::text`,
          withContent
        ),
      `${scorecardIds.length} ${type} scorecards`
    )

  const latestOf = (type: EntityType, entityIds: ReadonlyArray<string>, status: "published" | "draft") =>
    chunkedRead(
      entityIds,
      (ids) =>
        Effect.flatMap(
          sql<BaseRow>`SELECT DISTINCT ON (s.entity_id) ${sql.literal(BaseColumns)} FROM scorecards s
            WHERE s.entity_id = ANY(${ids}::uuid[]) AND s.entity_type = ${type}::text AND s.status = ${status}::text
            ORDER BY s.entity_id, s.scorecard_version DESC`,
          withContent
        ),
      `latest ${status} scorecards of ${entityIds.length} ${type} entities`
    )

  /** The answers of these scorecards as one array literal per column, in position order. */
  const answerColumns = (cards: ReadonlyArray<StoredScorecard>) => {
    const scorecardIds: Array<string> = []
    const positions: Array<number> = []
    const fields = AnswerFields.map(() => [] as Array<string | number | null>)
    for (const s of cards)
      s.answers.forEach((a, position) => {
        scorecardIds.push(s.id)
        positions.push(position)
        AnswerFields.forEach((f, i) => {
          fields[i]!.push(a[f])
        })
      })
    const [id, question_id, domain, score, max_score, weight, confidence, response, rationale] =
      fields.map(arrayLiteral)
    return sql`unnest(${arrayLiteral(scorecardIds)}::uuid[]), unnest(${arrayLiteral(positions)}::int[]),
      unnest(${id}::uuid[]), unnest(${question_id}::text[]), unnest(${domain}::text[]),
      unnest(${score}::float8[]), unnest(${max_score}::float8[]), unnest(${weight}::float8[]),
      unnest(${confidence}::text[]), unnest(${response}::text[]), unnest(${rationale}::text[])`
  }

  /** The evidence of these scorecards as typed rows; ordinality gives the position (from 1). */
  const evidenceInput = (cards: ReadonlyArray<StoredScorecard>) =>
    sql`SELECT c.id AS scorecard_id, e.position - 1 AS position, e.question_id, e.items, e.reasoning
      FROM json_to_recordset(${JSON.stringify(cards.map((s) => ({ id: s.id, evidence: s.evidence })))}::json)
        AS c(id uuid, evidence json)
      CROSS JOIN LATERAL ROWS FROM (json_to_recordset(c.evidence) AS (question_id text, evidence jsonb,
        reasoning text)) WITH ORDINALITY AS e(question_id, items, reasoning, position)`

  /**
   * Stored scorecards of a chunk whose answers or evidence differ from the
   * incoming ones lose them (a row missing on either side, or a column that
   * differs); the INSERTs that follow then write them again.
   */
  const dropChangedContent = (stored: ReadonlyArray<StoredScorecard>) =>
    Effect.gen(function* () {
      const ids = stored.map((s) => s.id)
      yield* sql`WITH i (scorecard_id, position, id, question_id, domain, score, max_score, weight, confidence,
            response, rationale) AS (SELECT ${answerColumns(stored)}),
          x AS (SELECT * FROM answers WHERE scorecard_id = ANY(${ids}::uuid[])),
          changed AS (SELECT DISTINCT coalesce(x.scorecard_id, i.scorecard_id) AS id
            FROM x FULL JOIN i ON x.scorecard_id = i.scorecard_id AND x.position = i.position
            WHERE x.scorecard_id IS NULL OR i.scorecard_id IS NULL
              OR (x.id, x.question_id, x.domain, x.score, x.max_score, x.weight, x.confidence, x.response,
                x.rationale) IS DISTINCT FROM (i.id, i.question_id, i.domain, i.score, i.max_score, i.weight,
                i.confidence, i.response, i.rationale))
        DELETE FROM answers a USING changed WHERE a.scorecard_id = changed.id`
      yield* sql`WITH i AS (${evidenceInput(stored)}),
          x AS (SELECT * FROM evidence WHERE scorecard_id = ANY(${ids}::uuid[])),
          changed AS (SELECT DISTINCT coalesce(x.scorecard_id, i.scorecard_id) AS id
            FROM x FULL JOIN i ON x.scorecard_id = i.scorecard_id AND x.position = i.position
            WHERE x.scorecard_id IS NULL OR i.scorecard_id IS NULL
              OR (x.question_id, x.items, x.reasoning) IS DISTINCT FROM (i.question_id, i.items, i.reasoning))
        DELETE FROM evidence e USING changed WHERE e.scorecard_id = changed.id`
    })

  /** One chunk of saveDrafts: the rows, then answers and evidence (compared first where the row was stored). */
  const writeDrafts = (chunk: ReadonlyArray<StoredScorecard>) =>
    Effect.gen(function* () {
      const inserted = yield* sql<{ id: string; inserted: boolean }>`
        INSERT INTO scorecards AS s (id, entity_type, entity_id, scorecard_version, status, grade, letter_grade,
          composite_score, intrinsic_composite_score, intrinsic_letter_grade, largest_drag_hint,
          has_unrated_dependencies, domain_scores, mvc_gates, domain_weights, dependencies, last_rated_at,
          scorecard_published_at)
        SELECT id, entity_type, entity_id, scorecard_version, status, grade, letter_grade, composite_score,
          intrinsic_composite_score, intrinsic_letter_grade, largest_drag_hint, has_unrated_dependencies,
          domain_scores, mvc_gates, domain_weights, dependencies, last_rated_at, scorecard_published_at
        FROM json_to_recordset(${JSON.stringify(chunk.map(rowOf))}::json) AS ${sql.literal(RowRecord)}
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
            excluded.scorecard_published_at)
        RETURNING s.id, s.xmax = 0 AS inserted`
      const fresh = new Set(inserted.filter((r) => r.inserted).map((r) => r.id))
      const isFresh = (s: StoredScorecard) => fresh.has(s.id.toLowerCase())
      const stored = chunk.filter((s) => !isFresh(s))
      const created = chunk.filter(isFresh)
      if (stored.length > 0) yield* dropChangedContent(stored)
      // A new scorecard has no answers yet: a plain INSERT, no conflict to look for.
      for (const [cards, onConflict] of [
        [created, ""],
        [stored, "ON CONFLICT (scorecard_id, position) DO NOTHING"]
      ] as const) {
        if (!cards.some((s) => s.answers.length > 0)) continue
        yield* sql`INSERT INTO answers (scorecard_id, position, id, question_id, domain, score, max_score, weight,
            confidence, response, rationale)
          SELECT ${answerColumns(cards)} ${sql.literal(onConflict)}`
      }
      const withEvidence = chunk.filter((s) => s.evidence.length > 0)
      if (withEvidence.length > 0)
        yield* sql`INSERT INTO evidence (scorecard_id, position, question_id, items, reasoning)
          ${evidenceInput(withEvidence)} ON CONFLICT (scorecard_id, position) DO NOTHING`
    })

  const saveDrafts = Effect.fn("PgScorecardRepository.saveDrafts")(function* (
    scorecards: ReadonlyArray<StoredScorecard>
  ) {
    if (scorecards.length === 0) return
    // The last of an id wins, as one saveDraft after another; one INSERT cannot touch a row twice.
    const byId = new Map<string, StoredScorecard>()
    for (const s of scorecards) {
      const key = s.id.toLowerCase()
      byId.delete(key)
      byId.set(key, s)
    }
    yield* sql
      .withTransaction(
        Effect.forEach(chunksOf([...byId.values()], DraftChunk), writeDrafts, { discard: true })
      )
      .pipe(catchSqlError(`save ${byId.size} scorecards`))
  })

  /** One chunk of publishMany, of distinct entities: the statements of publish, each over the whole chunk. */
  const publishChunk = (chunk: ReadonlyArray<PublishRecord>) =>
    Effect.gen(function* () {
      const ids = chunk.map((r) => r.scorecard.id)
      const entityIds = chunk.map((r) => r.entity_id)
      const types = chunk.map((r) => r.entity_type)
      yield* sql`SELECT 1 FROM entities WHERE id = ANY(${entityIds}::uuid[]) ORDER BY id FOR UPDATE`
      yield* sql`UPDATE scorecards s SET status = 'superseded'
        FROM unnest(${ids}::uuid[], ${entityIds}::uuid[], ${types}::text[]) AS r(id, entity_id, entity_type)
        WHERE s.entity_id = r.entity_id AND s.entity_type = r.entity_type AND s.status = 'published'
          AND s.id <> r.id`
      const updated = yield* sql<{ id: string }>`UPDATE scorecards s SET
          scorecard_version = r.scorecard_version, status = r.status, grade = r.grade,
          letter_grade = r.letter_grade, composite_score = r.composite_score,
          intrinsic_composite_score = r.intrinsic_composite_score,
          intrinsic_letter_grade = r.intrinsic_letter_grade, largest_drag_hint = r.largest_drag_hint,
          has_unrated_dependencies = r.has_unrated_dependencies, domain_scores = r.domain_scores,
          mvc_gates = r.mvc_gates, domain_weights = r.domain_weights, dependencies = r.dependencies,
          last_rated_at = r.last_rated_at, scorecard_published_at = r.scorecard_published_at
        FROM json_to_recordset(
          ${JSON.stringify(chunk.map((r) => ({ ...rowOf(r.scorecard), of_entity_id: r.entity_id, of_type: r.entity_type })))}::json
        ) AS r(id uuid, entity_type text, entity_id uuid, scorecard_version int, status text, grade text,
          letter_grade text, composite_score float8, intrinsic_composite_score float8, intrinsic_letter_grade text,
          largest_drag_hint text, has_unrated_dependencies boolean, domain_scores jsonb, mvc_gates jsonb,
          domain_weights jsonb, dependencies jsonb, last_rated_at timestamptz, scorecard_published_at timestamptz,
          of_entity_id uuid, of_type text)
        WHERE s.id = r.id AND s.entity_id = r.of_entity_id AND s.entity_type = r.of_type AND s.status = 'draft'
          AND r.entity_id = r.of_entity_id AND r.entity_type = r.of_type
        RETURNING s.id`
      if (updated.length !== chunk.length) {
        const done = new Set(updated.map((u) => u.id))
        const missing = chunk.find((r) => !done.has(r.scorecard.id.toLowerCase()))
        return yield* new StoreError({
          message: `publish scorecards: ${missing?.scorecard.id} is not a stored draft of ${missing?.entity_type} ${missing?.entity_id}`
        })
      }
      yield* sql`INSERT INTO rating_history (entity_id, scorecard_version, scorecard_id, grade, letter_grade,
          composite_score, intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by)
        SELECT entity_id, scorecard_version, scorecard_id, grade, letter_grade, composite_score,
          intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by
        FROM json_to_recordset(${JSON.stringify(chunk.map((r) => historyRowOf(r.entity_id, r.history)))}::json)
          AS h(entity_id uuid, scorecard_version int, scorecard_id uuid, grade text, letter_grade text,
          composite_score float8, intrinsic_composite_score float8, intrinsic_letter_grade text,
          published_at timestamptz, reasoning text, changed_by text)`
    })

  const publishMany = Effect.fn("PgScorecardRepository.publishMany")(function* (
    records: ReadonlyArray<PublishRecord>
  ) {
    if (records.length === 0) return
    const changed = new Map<string, EntityChange>()
    for (const r of records) {
      const entity_id = r.entity_id.toLowerCase()
      changed.set(`${r.entity_type}:${entity_id}`, { entity_type: r.entity_type, entity_id })
    }
    const notices: ReadonlyArray<EntityChange> =
      changed.size <= NotifyEachUpTo
        ? [...changed.values()]
        : [...new Set([...changed.values()].map((c) => c.entity_type))].map((entity_type) => ({
            entity_type,
            entity_id: AllOfType
          }))
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          for (const run of repeatFreeRuns(records, (r) => r.entity_id.toLowerCase()))
            for (const chunk of chunksOf(run, PublishChunk)) yield* publishChunk(chunk)
          yield* notifyChanges(sql, notices)
        })
      )
      .pipe(catchSqlError(`publish ${records.length} scorecards`))
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
    listForEntities,
    findById,
    findByIds,
    latest,
    latestOf,
    latestPublishedOf,
    history,
    saveDraft,
    saveDrafts,
    importHistory,
    publish,
    publishMany
  })
})

export const layer: Layer.Layer<ScorecardRepository, never, PgClient.PgClient> = Layer.effect(
  ScorecardRepository,
  make
)
