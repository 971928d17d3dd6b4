/**
 * Rows at the adapter boundary: what a statement returns is decoded with a
 * schema of its columns (reusing the domain's schemas where a column holds a
 * domain value) instead of being cast, so a row that no longer fits is a
 * StoreError naming the read rather than a malformed value further in.
 */
import { isoTimestampOf } from "@ratings/domain/model/Primitives"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Schema, SchemaTransformation } from "effect"
import { SqlError } from "effect/sql"
import { toStoreError } from "./PgTransaction.ts"

/**
 * A timestamptz column (a Date on the wire) as the domain's ISO 8601 text, in
 * the one form this service writes (`isoTimestampOf`).
 */
export const IsoFromDate = Schema.Date.pipe(
  Schema.decodeTo(
    Schema.String,
    SchemaTransformation.transform({ decode: isoTimestampOf, encode: (text: string) => new Date(text) })
  )
)

/** A nullable timestamptz column as ISO 8601 text or null. */
export const IsoOrNullFromDate = Schema.NullOr(IsoFromDate)

/**
 * The hot reads (entity, scorecard and history rows) check a timestamptz
 * column as a Date (`Schema.Date`, the check IsoFromDate starts with) and
 * spell it with `isoText` when they build the value: the same text, without
 * the schema's transformation step, which was half the cost of decoding an
 * entity row (a list decodes fifty per request).
 */
export const isoText: (date: Date) => string = isoTimestampOf

/** `isoText` of a nullable column. */
export const isoTextOrNull = (date: Date | null): string | null =>
  date === null ? null : isoTimestampOf(date)

/** A failure of a read or of the decoding of its rows, as the domain sees it. */
export const toReadError =
  (what: string) =>
  (error: SqlError.SqlError | Schema.SchemaError): StoreError =>
    SqlError.isSqlError(error)
      ? toStoreError(what)(error)
      : new StoreError({ message: `${what}: a stored row does not decode: ${error.message}` })

/** Maps the SqlError or SchemaError of a read to a StoreError naming the read. */
export const orReadError =
  (what: string) =>
  <A, R>(
    self: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
  ): Effect.Effect<A, StoreError, R> =>
    Effect.mapError(self, toReadError(what))

/** Decodes every row of a result with `row`. */
export const decodeRows = <S extends Schema.Constraint>(
  row: S
): ((
  rows: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError, S["DecodingServices"]>) =>
  Schema.decodeUnknownEffect(Schema.Array(row))
