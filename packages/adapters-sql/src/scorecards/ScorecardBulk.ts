/**
 * The bulk writes of the ScorecardRepository on Postgres: set-based, a few
 * statements per chunk of rows. Answers, the bulk of an import, are copied
 * when their scorecard is new (binary `COPY`, AnswerCopy.ts), else travel as
 * one binary array per column (AnswerColumns.ts; `unnest` streams them into
 * INSERT); the other rows as one json parameter read by `json_to_recordset`.
 * `saveDrafts` keeps the idempotency of `saveDraft`: a stored scorecard has
 * its answers and evidence compared row by row, as typed columns, and
 * replaced only when some row differs. `publishMany` runs `publish`'s
 * statements over a chunk of entities at once (one that repeats goes to the
 * next round: order is kept), one NOTIFY per type when many changed.
 */
import type { PgClient } from "@effect/sql-pg"
import {
  type PublishRecord,
  repeatFreeRuns,
  type ScorecardRepository,
  type StoredScorecard
} from "@ratings/domain/ports/ScorecardRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { AllOfType, type EntityChange, notifyChanges } from "../PgCacheInvalidation.ts"
import { decodeRows, orReadError } from "../PgRows.ts"
import { catchSqlError } from "../PgTransaction.ts"
import { maySkipRowTriggers, withoutRowTriggers } from "./RowTriggers.ts"
import { type CopySession, copyIn, copySession } from "../PgCopy.ts"
import { type AnswerArrays, answerArrays, answerColumns, answersOfSome } from "./AnswerColumns.ts"
import { AnswersCopy, answerCount, answerFrames } from "./AnswerCopy.ts"
import { answerSliceOf } from "@ratings/domain/import/ImportAnswerTable"
import { chunksOf, historyRowOf, RowRecord, rowOf } from "./ScorecardRows.ts"

/** Scorecards per chunk of saveDrafts: some 60 answers each, a few megabytes of parameters. */
const DraftChunk = 250
/** Scorecards per statement of publishMany (rows without answers). */
const PublishChunk = 5000
/** Above this many entities published at once, listeners are told "the whole type" instead of each id. */
const NotifyEachUpTo = 100

type Bulk = Pick<ScorecardRepository["Service"], "saveDrafts" | "publishMany">

const insertedRows = decodeRows(Schema.Struct({ id: Schema.String, inserted: Schema.Boolean }))
const idRows = decodeRows(Schema.Struct({ id: Schema.String }))
const decodeInserted = (rows: ReadonlyArray<unknown>) =>
  orReadError("saved scorecard rows")(insertedRows(rows))
const decodeIds = (rows: ReadonlyArray<unknown>) => orReadError("published scorecard rows")(idRows(rows))

/** The evidence of these scorecards as typed rows; ordinality gives the position (from 1). */
const evidenceInput = (sql: PgClient.PgClient, cards: ReadonlyArray<StoredScorecard>) =>
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
const dropChangedContent = (
  sql: PgClient.PgClient,
  stored: ReadonlyArray<StoredScorecard>,
  columns: ReturnType<typeof answerColumns>["columns"]
) =>
  Effect.gen(function* () {
    const ids = stored.map((s) => s.id)
    yield* sql`WITH i (scorecard_id, position, id, question_id, domain, score, max_score, weight, confidence,
          response, rationale) AS (SELECT ${columns}),
        x AS (SELECT * FROM answers WHERE scorecard_id = ANY(${ids}::uuid[])),
        changed AS (SELECT DISTINCT coalesce(x.scorecard_id, i.scorecard_id) AS id
          FROM x FULL JOIN i ON x.scorecard_id = i.scorecard_id AND x.position = i.position
          WHERE x.scorecard_id IS NULL OR i.scorecard_id IS NULL
            OR (x.id, x.question_id, x.domain, x.score, x.max_score, x.weight, x.confidence, x.response,
              x.rationale) IS DISTINCT FROM (i.id, i.question_id, i.domain, i.score, i.max_score, i.weight,
              i.confidence, i.response, i.rationale))
      DELETE FROM answers a USING changed WHERE a.scorecard_id = changed.id`
    yield* sql`WITH i AS (${evidenceInput(sql, stored)}),
        x AS (SELECT * FROM evidence WHERE scorecard_id = ANY(${ids}::uuid[])),
        changed AS (SELECT DISTINCT coalesce(x.scorecard_id, i.scorecard_id) AS id
          FROM x FULL JOIN i ON x.scorecard_id = i.scorecard_id AND x.position = i.position
          WHERE x.scorecard_id IS NULL OR i.scorecard_id IS NULL
            OR (x.question_id, x.items, x.reasoning) IS DISTINCT FROM (i.question_id, i.items, i.reasoning))
      DELETE FROM evidence e USING changed WHERE e.scorecard_id = changed.id`
  })

/**
 * Upserts the rows of a chunk of drafts (as JSON), each column only where it differs;
 * `inserted` tells a new scorecard (its row's INSERT returned `xmax = 0`).
 */
const upsertDraftRows = (sql: PgClient.PgClient, rows: string) =>
  sql`
  INSERT INTO scorecards AS s (id, entity_type, entity_id, scorecard_version, status, grade, letter_grade,
    composite_score, intrinsic_composite_score, intrinsic_letter_grade, largest_drag_hint,
    has_unrated_dependencies, domain_scores, mvc_gates, domain_weights, dependencies, last_rated_at,
    scorecard_published_at)
  SELECT id, entity_type, entity_id, scorecard_version, status, grade, letter_grade, composite_score,
    intrinsic_composite_score, intrinsic_letter_grade, largest_drag_hint, has_unrated_dependencies,
    domain_scores, mvc_gates, domain_weights, dependencies, last_rated_at, scorecard_published_at
  FROM json_to_recordset(${rows}::json) AS ${sql.literal(RowRecord)}
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
  RETURNING s.id, s.xmax = 0 AS inserted`.pipe(Effect.flatMap(decodeInserted))

/**
 * A chunk of saveDrafts with the parameters of its statements built, which
 * is JavaScript work done while Postgres writes the chunk before it: the
 * scorecard rows, and the answers of every scorecard of the chunk as array
 * parameters (those of the INSERT when all of them are new, as on a first
 * import) unless new scorecards' answers are copied, when they are built only
 * if asked for.
 */
interface PreparedChunk {
  readonly chunk: ReadonlyArray<StoredScorecard>
  readonly rows: string
  readonly answers: () => { readonly arrays: AnswerArrays; readonly columns: AnswerParameters }
  readonly built: () => boolean
}

type AnswerParameters = ReturnType<typeof answerColumns>

const prepareChunk = (
  sql: PgClient.PgClient,
  cards: ReadonlyArray<StoredScorecard>,
  copying: boolean
): PreparedChunk => {
  // Answers not in an answer table are read here, once (a getter may make them afresh on each read).
  const chunk = cards.map((s) => (answerSliceOf(s) === undefined ? { ...s } : s))
  let built: ReturnType<PreparedChunk["answers"]> | undefined
  const answers = () => {
    if (built !== undefined) return built
    const arrays = answerArrays(chunk)
    built = { arrays, columns: answerColumns(sql, arrays) }
    return built
  }
  if (!copying) answers()
  return { chunk, rows: JSON.stringify(chunk.map(rowOf)), answers, built: () => built !== undefined }
}

/** The answers of new scorecards: copied when `copy` is a session, else one INSERT. */
const insertNew = (
  sql: PgClient.PgClient,
  copy: CopySession | undefined,
  cards: ReadonlyArray<StoredScorecard>,
  columnsOf: (cards: ReadonlyArray<StoredScorecard>) => AnswerParameters
) =>
  copy === undefined
    ? sql`INSERT INTO answers (scorecard_id, position, id, question_id, domain, score, max_score, weight,
        confidence, response, rationale) SELECT ${columnsOf(cards).columns}`
    : Effect.suspend(() => {
        const { frames, written } = answerFrames(cards)
        return copyIn(copy, AnswersCopy, frames, written)
      })

/**
 * The answers and evidence of a chunk whose scorecard rows are written
 * (compared first where stored); `sending` runs as the answers go out.
 */
const writeContent = (
  sql: PgClient.PgClient,
  chunk: ReadonlyArray<StoredScorecard>,
  [created, stored]: readonly [ReadonlyArray<StoredScorecard>, ReadonlyArray<StoredScorecard>],
  columnsOf: (cards: ReadonlyArray<StoredScorecard>) => AnswerParameters,
  { copy, sending }: { readonly copy: CopySession | undefined; readonly sending: Effect.Effect<unknown> }
) =>
  Effect.gen(function* () {
    // A new scorecard has no answers yet: no conflict to look for.
    if (created.some((s) => answerCount(s) > 0)) {
      yield* sending
      yield* insertNew(sql, copy, created, columnsOf)
    }
    if (stored.some((s) => answerCount(s) > 0)) {
      yield* sending
      yield* sql`INSERT INTO answers (scorecard_id, position, id, question_id, domain, score, max_score, weight,
          confidence, response, rationale)
        SELECT ${columnsOf(stored).columns} ON CONFLICT (scorecard_id, position) DO NOTHING`
    }
    const withEvidence = chunk.filter((s) => s.evidence.length > 0)
    if (withEvidence.length > 0)
      yield* sql`INSERT INTO evidence (scorecard_id, position, question_id, items, reasoning)
        ${evidenceInput(sql, withEvidence)} ON CONFLICT (scorecard_id, position) DO NOTHING`
  })

/**
 * One chunk of saveDrafts: the rows, then answers and evidence, without
 * their per-row foreign-key checks when `skipRowChecks` (RowTriggers.ts: the
 * upsert has just written or locked every parent, which is then checked once).
 */
const writeDrafts = (
  sql: PgClient.PgClient,
  { skipRowChecks, copy }: WriteMode,
  prepared: PreparedChunk,
  sending: Effect.Effect<unknown>
) =>
  Effect.gen(function* () {
    const { chunk } = prepared
    const inserted = yield* upsertDraftRows(sql, prepared.rows)
    const fresh = new Set(inserted.filter((r) => r.inserted).map((r) => r.id))
    const isFresh = (s: StoredScorecard) => fresh.has(s.id.toLowerCase())
    const stored = chunk.filter((s) => !isFresh(s))
    const created = chunk.filter(isFresh)
    // The answers' columns of some of the chunk's scorecards, built once (from prepareChunk's when built).
    const built = new Map<ReadonlyArray<StoredScorecard>, AnswerParameters>()
    const columnsOf = (cards: ReadonlyArray<StoredScorecard>) => {
      if (cards.length === chunk.length) return prepared.answers().columns
      const columns =
        built.get(cards) ??
        answerColumns(
          sql,
          prepared.built()
            ? answersOfSome(prepared.answers().arrays, new Set(cards.map((s) => s.id)))
            : answerArrays(cards)
        )
      built.set(cards, columns)
      return columns
    }
    if (stored.length > 0) yield* dropChangedContent(sql, stored, columnsOf(stored).columns)
    const content = writeContent(sql, chunk, [created, stored], columnsOf, { copy, sending })
    // The chunk's scorecards are the parents.
    const hasContent = chunk.some((s) => answerCount(s) > 0 || s.evidence.length > 0)
    if (skipRowChecks && hasContent)
      yield* withoutRowTriggers(sql, { table: "scorecards", ids: chunk.map((s) => s.id) }, content)
    else yield* content
  })

/** How a saveDrafts writes: without per-row triggers when it may, new answers copied when it can. */
interface WriteMode {
  readonly skipRowChecks: boolean
  readonly copy: CopySession | undefined
}

/**
 * The chunks written one after another, each chunk's parameters built while
 * Postgres writes the answers of the chunk before it (a fiber of the same
 * transaction): the JavaScript and the database work side by side.
 */
const writeChunks = (
  sql: PgClient.PgClient,
  mode: WriteMode,
  chunks: ReadonlyArray<ReadonlyArray<StoredScorecard>>
) =>
  Effect.gen(function* () {
    let next = prepareChunk(sql, chunks[0]!, mode.copy !== undefined)
    for (let i = 0; i < chunks.length; i++) {
      const current = next
      const sending = yield* Deferred.make<void>()
      const signal = Deferred.succeed(sending, undefined)
      const writer = yield* writeDrafts(sql, mode, current, signal).pipe(
        Effect.ensuring(signal),
        Effect.forkChild
      )
      if (i + 1 < chunks.length) {
        yield* Deferred.await(sending)
        next = prepareChunk(sql, chunks[i + 1]!, mode.copy !== undefined)
      }
      yield* Fiber.join(writer)
    }
  })

const saveDrafts = (sql: PgClient.PgClient) =>
  Effect.fn("PgScorecardRepository.saveDrafts")(function* (scorecards: ReadonlyArray<StoredScorecard>) {
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
        Effect.gen(function* () {
          const mode = { skipRowChecks: yield* maySkipRowTriggers(sql), copy: yield* copySession(sql) }
          yield* writeChunks(sql, mode, chunksOf([...byId.values()], DraftChunk))
        })
      )
      .pipe(catchSqlError(`save ${byId.size} scorecards`))
  })

/**
 * One chunk of publishMany, of distinct entities: the statements of publish,
 * each over the whole chunk; after the entities are locked, without per-row
 * triggers when `skipRowChecks` (RowTriggers.ts: the updates change no
 * foreign key, the history rows belong to the entities just locked).
 */
const publishChunk = (sql: PgClient.PgClient, chunk: ReadonlyArray<PublishRecord>, skipRowChecks: boolean) =>
  Effect.gen(function* () {
    const entityIds = chunk.map((r) => r.entity_id)
    yield* sql`SELECT 1 FROM entities WHERE id = ANY(${entityIds}::uuid[]) ORDER BY id FOR UPDATE`
    const writes = publishWrites(sql, chunk)
    if (skipRowChecks) yield* withoutRowTriggers(sql, { table: "entities", ids: entityIds }, writes)
    else yield* writes
  })

/** The writes of a chunk of publishMany whose entities are locked. */
const publishWrites = (sql: PgClient.PgClient, chunk: ReadonlyArray<PublishRecord>) =>
  Effect.gen(function* () {
    const ids = chunk.map((r) => r.scorecard.id)
    const entityIds = chunk.map((r) => r.entity_id)
    const types = chunk.map((r) => r.entity_type)
    yield* sql`UPDATE scorecards s SET status = 'superseded'
      FROM unnest(${ids}::uuid[], ${entityIds}::uuid[], ${types}::text[]) AS r(id, entity_id, entity_type)
      WHERE s.entity_id = r.entity_id AND s.entity_type = r.entity_type AND s.status = 'published'
        AND s.id <> r.id`
    const updated = yield* sql`UPDATE scorecards s SET
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
      RETURNING s.id`.pipe(Effect.flatMap(decodeIds))
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

/** Whom to tell: each entity changed, or each whole type when more than NotifyEachUpTo entities changed. */
const noticesOf = (records: ReadonlyArray<PublishRecord>): ReadonlyArray<EntityChange> => {
  const changed = new Map<string, EntityChange>()
  for (const r of records) {
    const entity_id = r.entity_id.toLowerCase()
    changed.set(`${r.entity_type}:${entity_id}`, { entity_type: r.entity_type, entity_id })
  }
  return changed.size <= NotifyEachUpTo
    ? [...changed.values()]
    : [...new Set([...changed.values()].map((c) => c.entity_type))].map((entity_type) => ({
        entity_type,
        entity_id: AllOfType
      }))
}

const publishMany = (sql: PgClient.PgClient) =>
  Effect.fn("PgScorecardRepository.publishMany")(function* (records: ReadonlyArray<PublishRecord>) {
    if (records.length === 0) return
    const notices = noticesOf(records)
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          const skipRowChecks = yield* maySkipRowTriggers(sql)
          for (const run of repeatFreeRuns(records, (r) => r.entity_id.toLowerCase()))
            for (const chunk of chunksOf(run, PublishChunk)) yield* publishChunk(sql, chunk, skipRowChecks)
          yield* notifyChanges(sql, notices)
        })
      )
      .pipe(catchSqlError(`publish ${records.length} scorecards`))
  })

/** The bulk write methods of the repository over one client. */
export const bulk = (sql: PgClient.PgClient): Bulk => ({
  saveDrafts: saveDrafts(sql),
  publishMany: publishMany(sql)
})
