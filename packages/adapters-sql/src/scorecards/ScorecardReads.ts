/**
 * The reads of the ScorecardRepository on Postgres. One entity's lists and
 * one scorecard come from one statement each (answers and evidence built as
 * jsonb); the bulk reads go by chunks of ids and assemble answers and evidence
 * from plain rows, several times cheaper than building them as json per
 * scorecard; `latestOf` takes the answers the caller saved in this
 * transaction from the caller instead of reading them back. Every row is
 * decoded with its schema (ScorecardRows.ts).
 */
import type { PgClient } from "@effect/sql-pg"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import { type AnswerSlice, answerSliceOf, withLazyAnswers } from "@ratings/domain/import/ImportAnswerTable"
import type {
  SavedAnswers,
  ScorecardRepository,
  StoredScorecard
} from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"
import { decodeRows, orReadError } from "../PgRows.ts"
import { isUuid } from "../PgTransaction.ts"
import {
  AnswerRow,
  BaseColumns,
  BaseRow,
  chunksOf,
  DetailColumns,
  DetailRow,
  EvidenceRow,
  HistoryRow,
  ListColumns,
  ScorecardRow,
  toHistory,
  toScorecard,
  toStored
} from "./ScorecardRows.ts"

/** Ids per bulk read. */
const ReadChunk = 2000

const decodeList = decodeRows(ScorecardRow)
const decodeBase = decodeRows(BaseRow)
const decodeAnswers = decodeRows(AnswerRow)
const decodeEvidence = decodeRows(EvidenceRow)
const decodeHistory = decodeRows(HistoryRow)
const decodeDetail = Schema.decodeUnknownEffect(DetailRow)

type Reads = Pick<
  ScorecardRepository["Service"],
  | "listForEntity"
  | "listForEntities"
  | "findById"
  | "findByIds"
  | "latest"
  | "latestOf"
  | "latestPublishedOf"
  | "history"
>

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
  sql`SELECT ${sql.literal(ListColumns)} FROM scorecards s
    WHERE s.entity_id = ANY(${entityIds}::uuid[]) AND s.status = 'published' AND s.entity_type = ${type}::text`

const uuids = (ids: ReadonlyArray<string>) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))]

/** The first row of a result decoded as a whole scorecard, if any. */
const firstStored = (rows: ReadonlyArray<unknown>) =>
  rows.length === 0
    ? Effect.succeedNone
    : Effect.map(decodeDetail(rows[0]), (row) => Option.some(toStored(row)))

/** Runs a read over the ids in chunks and concatenates the rows. */
const chunkedRead = <A>(
  ids: ReadonlyArray<string>,
  read: (
    chunk: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError | Schema.SchemaError>,
  what: string
) =>
  Effect.forEach(chunksOf(uuids(ids), ReadChunk), read).pipe(
    Effect.map((parts): ReadonlyArray<A> => parts.flat()),
    orReadError(what)
  )

type Answers = StoredScorecard["answers"]

/** The answer with its id as Postgres spells a uuid; the same object when it already is. */
const lowerId = (a: Answers[number]): Answers[number] => {
  const id = a.id.toLowerCase()
  return id === a.id ? a : { ...a, id }
}

/**
 * The slice of saved answers held in an import's answer table whose ids are
 * all lower-case UUIDs (as Postgres spells them): they can stay in the table.
 */
const compactSlice = (holder: SavedAnswers | undefined): AnswerSlice | undefined => {
  const slice = holder === undefined ? undefined : answerSliceOf(holder)
  return slice !== undefined && slice.table.idWords(slice) !== undefined ? slice : undefined
}

/**
 * Whole scorecards from their rows: answers and evidence read as rows, in
 * position order; the answers of a scorecard in `saved` (the caller's, as this
 * transaction stored them) are taken from there, with ids as Postgres spells
 * them: left in the caller's answer table when they are in one (no answer is
 * made until read), else copied.
 */
const withContent =
  (sql: PgClient.PgClient, saved?: ReadonlyMap<string, SavedAnswers>) => (rows: ReadonlyArray<BaseRow>) =>
    Effect.gen(function* () {
      if (rows.length === 0) return []
      const ids = rows.map((r) => r.id)
      const unsaved = saved === undefined ? ids : ids.filter((id) => !saved.has(id))
      const answers =
        unsaved.length === 0
          ? []
          : yield* sql`SELECT scorecard_id, id, question_id, domain, score, max_score, weight,
          confidence, response, rationale
        FROM answers WHERE scorecard_id = ANY(${unsaved}::uuid[]) ORDER BY scorecard_id, position`.pipe(
              Effect.flatMap(decodeAnswers)
            )
      const evidence = yield* sql`SELECT scorecard_id, question_id, items, reasoning
        FROM evidence WHERE scorecard_id = ANY(${ids}::uuid[]) ORDER BY scorecard_id, position`.pipe(
        Effect.flatMap(decodeEvidence)
      )
      const compact = new Map<string, AnswerSlice>()
      const answersOf = new Map<string, Array<Answers[number]>>()
      for (const id of ids) {
        const holder = saved?.get(id)
        const slice = compactSlice(holder)
        if (slice !== undefined) compact.set(id, slice)
        answersOf.set(id, slice === undefined ? (holder?.answers.map(lowerId) ?? []) : [])
      }
      for (const { scorecard_id, ...a } of answers) answersOf.get(scorecard_id)?.push(a)
      const evidenceOf = new Map<string, Array<StoredScorecard["evidence"][number]>>(
        ids.map((id) => [id, []])
      )
      for (const e of evidence)
        evidenceOf
          .get(e.scorecard_id)
          ?.push({ question_id: e.question_id, evidence: e.items, reasoning: e.reasoning })
      return rows.map((row) => {
        const stored = toStored({
          ...row,
          answers: answersOf.get(row.id) ?? [],
          evidence: evidenceOf.get(row.id) ?? []
        })
        const slice = compact.get(row.id)
        return slice === undefined ? stored : withLazyAnswers(stored, slice)
      })
    })

const listForEntity = (sql: PgClient.PgClient) => (type: EntityType, entityId: string) =>
  isUuid(entityId)
    ? sql`SELECT ${sql.literal(ListColumns)} FROM scorecards s
        WHERE s.entity_type = ${type}::text AND s.entity_id = ${entityId}::uuid
        ORDER BY s.scorecard_version DESC`.pipe(
        Effect.flatMap(decodeList),
        Effect.map((rows) => rows.map(toScorecard)),
        orReadError(`scorecards of ${type} ${entityId}`)
      )
    : Effect.succeed([])

const findById = (sql: PgClient.PgClient) => (type: EntityType, scorecardId: string) =>
  isUuid(scorecardId)
    ? sql`SELECT ${sql.literal(DetailColumns)} FROM scorecards s
        WHERE s.id = ${scorecardId}::uuid AND s.entity_type = ${type}::text`.pipe(
        Effect.flatMap(firstStored),
        orReadError(`scorecard ${scorecardId}`)
      )
    : Effect.succeedNone

const latest =
  (sql: PgClient.PgClient) => (type: EntityType, entityId: string, status: "published" | "draft") =>
    isUuid(entityId)
      ? sql`SELECT ${sql.literal(DetailColumns)} FROM scorecards s
        WHERE s.entity_id = ${entityId}::uuid AND s.entity_type = ${type}::text AND s.status = ${status}::text
        ORDER BY s.scorecard_version DESC LIMIT 1`.pipe(
          Effect.flatMap(firstStored),
          orReadError(`latest ${status} scorecard of ${type} ${entityId}`)
        )
      : Effect.succeedNone

const latestPublishedOf =
  (sql: PgClient.PgClient) => (type: EntityType, entityIds: ReadonlyArray<string>) => {
    const ids = uuids(entityIds)
    if (ids.length === 0) return Effect.succeed(new Map<string, Scorecard>())
    return latestPublishedStatement(sql, type, ids).pipe(
      Effect.flatMap(decodeList),
      Effect.map((rows) => new Map(rows.map((row) => [row.entity_id, toScorecard(row)]))),
      orReadError(`latest published ${type} scorecards`)
    )
  }

const history = (sql: PgClient.PgClient) => (_type: EntityType, entityId: string) =>
  isUuid(entityId)
    ? sql`SELECT scorecard_id, scorecard_version, grade, letter_grade, composite_score,
          intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by
        FROM rating_history WHERE entity_id = ${entityId}::uuid ORDER BY scorecard_version DESC`.pipe(
        Effect.flatMap(decodeHistory),
        Effect.map((rows) => rows.map(toHistory)),
        orReadError(`history of ${entityId}`)
      )
    : Effect.succeed([])

const listForEntities = (sql: PgClient.PgClient) => (type: EntityType, entityIds: ReadonlyArray<string>) =>
  chunkedRead(
    entityIds,
    (ids) =>
      sql`SELECT ${sql.literal(ListColumns)} FROM scorecards s
        WHERE s.entity_type = ${type}::text AND s.entity_id = ANY(${ids}::uuid[])
        ORDER BY s.entity_id, s.scorecard_version DESC`.pipe(
        Effect.flatMap(decodeList),
        Effect.map((rows) => rows.map(toScorecard))
      ),
    `scorecards of ${entityIds.length} ${type} entities`
  )

const findByIds = (sql: PgClient.PgClient) => (type: EntityType, scorecardIds: ReadonlyArray<string>) =>
  chunkedRead(
    scorecardIds,
    (ids) =>
      sql`SELECT ${sql.literal(BaseColumns)} FROM scorecards s
        WHERE s.id = ANY(${ids}::uuid[]) AND s.entity_type = ${type}::text`.pipe(
        Effect.flatMap(decodeBase),
        Effect.flatMap(withContent(sql))
      ),
    `${scorecardIds.length} ${type} scorecards`
  )

const latestOf =
  (sql: PgClient.PgClient) =>
  (
    type: EntityType,
    entityIds: ReadonlyArray<string>,
    status: "published" | "draft",
    savedAnswers?: ReadonlyMap<string, SavedAnswers>
  ) =>
    chunkedRead(
      entityIds,
      (ids) =>
        sql`SELECT DISTINCT ON (s.entity_id) ${sql.literal(BaseColumns)} FROM scorecards s
          WHERE s.entity_id = ANY(${ids}::uuid[]) AND s.entity_type = ${type}::text AND s.status = ${status}::text
          ORDER BY s.entity_id, s.scorecard_version DESC`.pipe(
          Effect.flatMap(decodeBase),
          Effect.flatMap(withContent(sql, savedAnswers))
        ),
      `latest ${status} scorecards of ${entityIds.length} ${type} entities`
    )

/** The read methods of the repository over one client. */
export const reads = (sql: PgClient.PgClient): Reads => ({
  listForEntity: listForEntity(sql),
  listForEntities: listForEntities(sql),
  findById: findById(sql),
  findByIds: findByIds(sql),
  latest: latest(sql),
  latestOf: latestOf(sql),
  latestPublishedOf: latestPublishedOf(sql),
  history: history(sql)
})
