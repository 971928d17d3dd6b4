/**
 * ScorecardRepository's `entityWithScorecards` on Postgres: the entity, its
 * scorecards (newest first) and whether each drag hint's entity is publicly
 * readable, in one statement, where the reader would otherwise make a round
 * trip for each (a round trip costs a request more than the rows it reads).
 *
 * One row per scorecard, the entity's columns on each (a row of nulls when
 * there is no entity; one row with null scorecard columns when it has none);
 * the scorecard's columns are read under an `sc_` prefix and decoded with
 * ScorecardRow as `listForEntity` decodes them.
 */
import type { PgClient } from "@effect/sql-pg"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { Effect, Option, Schema } from "effect"
import { entityMatch } from "../entities/EntityReads.ts"
import { ColumnsOf, decodeEntities, toRecord } from "../entities/EntityRows.ts"
import { decodeRows, orReadError } from "../PgRows.ts"
import { readableSql } from "../ReadableSql.ts"
import {
  AnswersJson,
  DetailRow,
  EvidenceJson,
  HistoryRow,
  ListColumns,
  ScorecardRow,
  toHistory,
  toScorecard,
  toStored
} from "./ScorecardRows.ts"

const ScorecardColumnNames = ListColumns.split(",").map((c) => c.trim().replace(/^s\./, ""))
const Prefixed = ScorecardColumnNames.map((c) => `s.${c} AS sc_${c}`).join(", ")

/**
 * Whether the entity a hint names is publicly readable: the hint split at its
 * first ": " into type and slug, as `dragHintTarget` splits it (a hint it does
 * not split is not read as readable; the reader keeps such a hint as it is).
 */
const HintReadable = `CASE WHEN strpos(s.largest_drag_hint, ': ') > 1 THEN EXISTS (
    SELECT 1 FROM entities t
    WHERE t.entity_type = left(s.largest_drag_hint, strpos(s.largest_drag_hint, ': ') - 1)
      AND t.slug = substr(s.largest_drag_hint, strpos(s.largest_drag_hint, ': ') + 2)
      AND ${readableSql("t")})
  ELSE false END AS sc_hint_readable`

const decodeScorecards = decodeRows(ScorecardRow)

type Row = { readonly [column: string]: unknown }

/** The scorecard columns of a row, without their prefix. */
/** The columns `names` of a joined row, read from under their `prefix`. */
const unprefixed = (row: Row, names: ReadonlyArray<string>, prefix: string) =>
  Object.fromEntries(names.map((c) => [c, row[`${prefix}${c}`]]))

const scorecardOf = (row: Row) => unprefixed(row, ScorecardColumnNames, "sc_")

/** The statement and its decoding, over one client. */
export const entityWithScorecards =
  (sql: PgClient.PgClient) => (type: EntityType, by: "id" | "slug", identifier: string) => {
    const match = entityMatch(sql, by, identifier)
    return sql<Row>`SELECT ${sql.literal(ColumnsOf("e"))}, s.*
      FROM (SELECT 1) one
      LEFT JOIN entities e ON e.entity_type = ${type}::text AND ${match}
      LEFT JOIN LATERAL (
        SELECT ${sql.literal(Prefixed)}, ${sql.literal(HintReadable)} FROM scorecards s
        WHERE s.entity_type = e.entity_type AND s.entity_id = e.id
        ORDER BY s.scorecard_version DESC
      ) s ON true`.pipe(
      Effect.flatMap((rows) =>
        Effect.gen(function* () {
          const entity = yield* decodeEntities(rows.filter((row) => row.id !== null).slice(0, 1))
          const cards = rows.filter((row) => row.sc_id !== null)
          const scorecards = (yield* decodeScorecards(cards.map(scorecardOf))).map(toScorecard)
          const readableHints = new Set(
            cards.flatMap((row) =>
              row.sc_hint_readable === true && typeof row.sc_largest_drag_hint === "string"
                ? [row.sc_largest_drag_hint]
                : []
            )
          )
          return { entity: Option.map(Option.fromNullishOr(entity[0]), toRecord), scorecards, readableHints }
        })
      ),
      orReadError(`scorecards of ${type} ${identifier}`)
    )
  }

const HistoryColumnNames = [
  "scorecard_id",
  "scorecard_version",
  "grade",
  "letter_grade",
  "composite_score",
  "intrinsic_composite_score",
  "intrinsic_letter_grade",
  "published_at",
  "reasoning",
  "changed_by"
]
const HistoryPrefixed = HistoryColumnNames.map((c) => `h.${c} AS h_${c}`).join(", ")
const decodeHistory = decodeRows(HistoryRow)

/**
 * ScorecardRepository's `entityWithHistory` on Postgres: the entity by slug
 * and its rating history (newest first, as `history` reads it) in one
 * statement, the history's columns under an `h_` prefix.
 */
export const entityWithHistory = (sql: PgClient.PgClient) => (type: EntityType, slug: string) =>
  sql<Row>`SELECT ${sql.literal(ColumnsOf("e"))}, h.*
    FROM (SELECT 1) one
    LEFT JOIN entities e ON e.entity_type = ${type}::text AND e.slug = ${slug}::text
    LEFT JOIN LATERAL (
      SELECT ${sql.literal(HistoryPrefixed)} FROM rating_history h
      WHERE h.entity_id = e.id ORDER BY h.scorecard_version DESC
    ) h ON true`.pipe(
    Effect.flatMap((rows) =>
      Effect.gen(function* () {
        const entity = yield* decodeEntities(rows.filter((row) => row.id !== null).slice(0, 1))
        const entries = rows
          .filter((row) => row.h_scorecard_id !== null)
          .map((row) => unprefixed(row, HistoryColumnNames, "h_"))
        const history = (yield* decodeHistory(entries)).map(toHistory)
        return { entity: Option.map(Option.fromNullishOr(entity[0]), toRecord), history }
      })
    ),
    orReadError(`history of ${type} ${slug}`)
  )

const DetailColumnNames = [...ScorecardColumnNames, "domain_weights", "dependencies", "answers", "evidence"]
const DetailPrefixed = `${[...ScorecardColumnNames, "domain_weights", "dependencies"].map((c) => `s.${c} AS sc_${c}`).join(", ")},
  ${AnswersJson} AS sc_answers, ${EvidenceJson} AS sc_evidence`
const decodeDetail = Schema.decodeUnknownEffect(DetailRow)

/**
 * ScorecardRepository's `entityWithLatestPublished` on Postgres: the entity by
 * slug and its latest published scorecard, answers and evidence built as
 * `latest` builds them, in one statement, the scorecard's columns under an
 * `sc_` prefix.
 */
export const entityWithLatestPublished = (sql: PgClient.PgClient) => (type: EntityType, slug: string) =>
  sql<Row>`SELECT ${sql.literal(ColumnsOf("e"))}, s.*
    FROM (SELECT 1) one
    LEFT JOIN entities e ON e.entity_type = ${type}::text AND e.slug = ${slug}::text
    LEFT JOIN LATERAL (
      SELECT ${sql.literal(DetailPrefixed)} FROM scorecards s
      WHERE s.entity_id = e.id AND s.entity_type = e.entity_type AND s.status = 'published'
      ORDER BY s.scorecard_version DESC LIMIT 1
    ) s ON true`.pipe(
    Effect.flatMap((rows) =>
      Effect.gen(function* () {
        const entity = yield* decodeEntities(rows.filter((row) => row.id !== null).slice(0, 1))
        const row = rows.find((r) => r.sc_id !== null)
        const latest =
          row === undefined
            ? Option.none()
            : Option.some(toStored(yield* decodeDetail(unprefixed(row, DetailColumnNames, "sc_"))))
        return { entity: Option.map(Option.fromNullishOr(entity[0]), toRecord), latest }
      })
    ),
    orReadError(`latest published scorecard of ${type} ${slug}`)
  )
