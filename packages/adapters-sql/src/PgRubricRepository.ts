/**
 * The RubricRepository port on Postgres: the question catalogue of each type
 * in `questions`, served in canonical order (position). `replace` swaps a
 * type's catalogue in one transaction and rewrites nothing when the catalogue
 * is unchanged; a change tells listeners that every entity of the type changed
 * (their questions and rubric bodies embed the catalogue).
 *
 * Round trip: `gate` is stored as a nullable column, so a question read back
 * carries `gate` only when it names a gate (a `gate: null` reads back absent).
 */
import { PgClient } from "@effect/sql-pg"
import { EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import { Question } from "@ratings/domain/model/Question"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer, Schema } from "effect"
import { AllOfType, notifyChanges } from "./PgCacheInvalidation.ts"
import { decodeRows, orReadError, toReadError } from "./PgRows.ts"
import { catchSqlError } from "./PgTransaction.ts"

/** A question row: the domain's `Question` fields, its gate column null where the question has none. */
const QuestionRow = Schema.Struct({ ...Question.fields, gate: Schema.NullOr(Schema.String) })
type QuestionRow = typeof QuestionRow.Type
const decodeQuestions = decodeRows(QuestionRow)
const decodeCounts = decodeRows(Schema.Struct({ entity_type: EntityType, n: Schema.Number }))
const decodeChanged = decodeRows(Schema.Struct({ changed: Schema.Boolean }))

const toQuestion = (row: QuestionRow): Question => ({
  id: row.id,
  entity_type: row.entity_type,
  domain: row.domain,
  text: row.text,
  weight: row.weight,
  max_score: row.max_score,
  criteria: row.criteria,
  position: row.position,
  ...(row.gate === null ? {} : { gate: row.gate })
})

/** Exactly the keys CatalogueJson builds, in position order, so stored and incoming compare as jsonb. */
const catalogueOf = (questions: ReadonlyArray<Question>) =>
  [...questions]
    .sort((a, b) => a.position - b.position)
    .map((q) => ({
      id: q.id,
      position: q.position,
      domain: q.domain,
      text: q.text,
      weight: q.weight,
      max_score: q.max_score,
      criteria: q.criteria,
      gate: q.gate ?? null
    }))

const CatalogueJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('id', q.id, 'position', q.position,
    'domain', q.domain, 'text', q.text, 'weight', q.weight, 'max_score', q.max_score, 'criteria', q.criteria,
    'gate', q.gate) ORDER BY q.position) FROM questions q WHERE q.entity_type = t.entity_type), '[]'::jsonb)`

/** First key of the two-key advisory lock that serialises replaces of one type's catalogue. */
export const RubricLockSpace = 0x52554252 // "RUBR"

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient

  const questions = (type: EntityType) =>
    sql`SELECT entity_type, id, position, domain, text, weight, max_score, criteria, gate
      FROM questions WHERE entity_type = ${type}::text ORDER BY position`.pipe(
      Effect.flatMap(decodeQuestions),
      Effect.map((rows) => rows.map(toQuestion)),
      orReadError(`questions of ${type}`)
    )

  const questionCounts = () =>
    sql`SELECT entity_type, count(*)::int AS n FROM questions GROUP BY entity_type`.pipe(
      Effect.flatMap(decodeCounts),
      Effect.map((rows) => {
        const counts = Object.fromEntries(EntityTypes.map((t) => [t, 0])) as Record<EntityType, number>
        for (const row of rows) counts[row.entity_type] = row.n
        return counts
      }),
      orReadError("question counts")
    )

  const replace = Effect.fn("PgRubricRepository.replace")(function* (
    type: EntityType,
    incoming: ReadonlyArray<Question>
  ) {
    const stranger = incoming.find((q) => q.entity_type !== type)
    if (stranger !== undefined) {
      return yield* new StoreError({
        message: `replace ${type} questions: ${stranger.id} is a ${stranger.entity_type} question`
      })
    }
    const catalogue = sql.json(catalogueOf(incoming))
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          // Concurrent replaces of one type queue here, so neither sees the other half-done.
          yield* sql`SELECT pg_advisory_xact_lock(${RubricLockSpace}, hashtext(${type}::text))`
          const [state] = yield* sql`
            SELECT ${sql.literal(CatalogueJson)} IS DISTINCT FROM ${catalogue} AS changed
            FROM (SELECT ${type}::text AS entity_type) t`.pipe(
            Effect.flatMap((rows) =>
              Effect.mapError(decodeChanged(rows), toReadError(`replace ${type} questions`))
            )
          )
          if (state?.changed !== true) return
          yield* sql`DELETE FROM questions WHERE entity_type = ${type}::text`
          yield* sql`INSERT INTO questions (entity_type, id, position, domain, text, weight, max_score, criteria,
              gate)
            SELECT ${type}::text, id, position, domain, text, weight, max_score, criteria, gate
            FROM jsonb_to_recordset(${catalogue}) AS q(id text, position int, domain text, text text,
              weight float8, max_score float8, criteria jsonb, gate text)`
          yield* notifyChanges(sql, [{ entity_type: type, entity_id: AllOfType }])
        })
      )
      .pipe(catchSqlError(`replace ${type} questions`))
  })

  return RubricRepository.of({ questions, questionCounts, replace })
})

export const layer: Layer.Layer<RubricRepository, never, PgClient.PgClient> = Layer.effect(
  RubricRepository,
  make
)
