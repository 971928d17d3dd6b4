/**
 * The answers of a chunk of saveDrafts as the parameters of its statements:
 * read once from the scorecards into one array per column (a subset of the
 * rows taken from those without reading the answers again), then bound as
 * typed arrays in Postgres' binary format.
 */
import { type PgClient, PgTypes } from "@effect/sql-pg"
import { answerSliceOf } from "@ratings/domain/import/ImportAnswerTable"
import type { Answer } from "@ratings/domain/model/Answer"
import type { StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { AnswerFields, AnswerOids, typedArray } from "./ScorecardRows.ts"

/** The answers of some scorecards, column by column, in position order; each scorecard's read once. */
export interface AnswerArrays {
  readonly scorecardIds: Array<string>
  readonly positions: Array<number>
  readonly fields: Array<Array<string | number | null>>
}

/**
 * Each scorecard's answers appended column by column. A draft an import
 * decoded keeps its answers in the import's answer table: its ids and shared
 * field tuples are read from there, with no answer object made for each.
 */
export const answerArrays = (cards: ReadonlyArray<StoredScorecard>): AnswerArrays => {
  const scorecardIds: Array<string> = []
  const positions: Array<number> = []
  const fields = AnswerFields.map(() => [] as Array<string | number | null>)
  const [ids, ...rest] = fields as [Array<string | number | null>, ...Array<Array<string | number | null>>]
  const restNames = AnswerFields.slice(1) as ReadonlyArray<Exclude<(typeof AnswerFields)[number], "id">>
  for (const s of cards) {
    const slice = answerSliceOf(s)
    const tuples: ReadonlyArray<Omit<Answer, "id">> =
      slice === undefined ? s.answers : slice.table.fields(slice)
    const answerIds = slice === undefined ? undefined : slice.table.ids(slice)
    for (let position = 0; position < tuples.length; position++) {
      const a = tuples[position]!
      scorecardIds.push(s.id)
      positions.push(position)
      ids.push(answerIds === undefined ? (a as Answer).id : answerIds[position]!)
      for (let f = 0; f < restNames.length; f++) rest[f]!.push(a[restNames[f]!])
    }
  }
  return { scorecardIds, positions, fields }
}

/** The rows of `arrays` that belong to the scorecards `ids`, in the same order. */
export const answersOfSome = (arrays: AnswerArrays, ids: ReadonlySet<string>): AnswerArrays => {
  const keep: Array<number> = []
  arrays.scorecardIds.forEach((id, row) => {
    if (ids.has(id)) keep.push(row)
  })
  const pick = <A>(column: ReadonlyArray<A>) => keep.map((row) => column[row]!)
  return {
    scorecardIds: pick(arrays.scorecardIds),
    positions: pick(arrays.positions),
    fields: arrays.fields.map(pick)
  }
}

/**
 * The answers as one array parameter per column, bound in Postgres' binary
 * format (typedArray): the server reads each element as it is, with no array
 * literal to parse. `rows` says how many answers there are.
 */
export const answerColumns = (sql: PgClient.PgClient, arrays: AnswerArrays) => {
  const [id, question_id, domain, score, max_score, weight, confidence, response, rationale] =
    arrays.fields.map((values, i) => typedArray(values, AnswerOids[i]!))
  const { uuid, int4 } = PgTypes.OID
  const columns = sql`unnest(${typedArray(arrays.scorecardIds, uuid)}::uuid[]),
    unnest(${typedArray(arrays.positions, int4)}::int[]),
    unnest(${id}::uuid[]), unnest(${question_id}::text[]), unnest(${domain}::text[]),
    unnest(${score}::float8[]), unnest(${max_score}::float8[]), unnest(${weight}::float8[]),
    unnest(${confidence}::text[]), unnest(${response}::text[]), unnest(${rationale}::text[])`
  return { columns, rows: arrays.positions.length }
}
