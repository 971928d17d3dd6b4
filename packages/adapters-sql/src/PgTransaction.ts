/**
 * The domain's unit of work on Postgres: `Transaction.run` is one database
 * transaction (`sql.withTransaction`; a nested run becomes a savepoint of the
 * outer one). Also the small pieces every repository of this package shares:
 * the mapping of database failures to the domain's `StoreError`, and the
 * conversions at the wire boundary (timestamps, UUID parameters).
 */
import { isoTimestampOf } from "@ratings/domain/model/Primitives"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Transaction } from "@ratings/domain/ports/Transaction"
import { Effect, Layer, Predicate } from "effect"
import { SqlClient, SqlError } from "effect/sql"

/** A non-empty text field of the driver's error object (the server's `message`, `detail`), if it has one. */
const field = (cause: unknown, name: string): string | undefined => {
  if (!Predicate.hasProperty(cause, name)) return undefined
  const value = cause[name]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * A database failure as the domain sees it: what was being done and the
 * server's own words (its message, which names the constraint, and the detail
 * naming the offending key), not the driver's generic "Query failed". A check
 * violation's detail is left out: it prints the whole row, which may hold what
 * the check exists to keep out (a key in clear), and the message names the check.
 */
export const toStoreError =
  (what: string) =>
  (error: SqlError.SqlError): StoreError => {
    const reason = error.reason
    const server = field(reason.cause, "message")
    const rawDetail = field(reason.cause, "detail")
    const detail = rawDetail?.startsWith("Failing row contains") === true ? undefined : rawDetail
    const why = server ?? reason.message ?? reason._tag
    return new StoreError({ message: `${what}: ${why}${detail === undefined ? "" : ` (${detail})`}` })
  }

/** Maps the SqlErrors among an effect's failures to StoreErrors; its other failures pass through. */
export const catchSqlError =
  (what: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError, R> =>
    Effect.catchIf(
      self,
      (error: E): error is E & SqlError.SqlError => SqlError.isSqlError(error),
      (error) => Effect.fail(toStoreError(what)(error))
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError, R>

/** Maps the SqlError of a statement to a StoreError naming the operation. */
export const orStoreError =
  (what: string) =>
  <A, R>(self: Effect.Effect<A, SqlError.SqlError, R>): Effect.Effect<A, StoreError, R> =>
    Effect.mapError(self, toStoreError(what))

/**
 * Whether a value may be bound to a uuid parameter (the domain's own test). Anything
 * else cannot name a stored row, so lookups answer "none" instead of failing on the cast.
 */
export { isUuid } from "@ratings/domain/services/RatingsReader"

/**
 * timestamptz values arrive as Date (milliseconds); the domain keeps ISO 8601 text
 * in the one form this service writes (`isoTimestamp`: `...T00:00:00+00:00`, or
 * `...T00:00:00.123000+00:00`), which is what the live service's clients parse.
 */
export const isoOf = (value: Date): string => isoTimestampOf(value)

export const isoOrNull = (value: Date | null): string | null =>
  value === null ? null : isoTimestampOf(value)

/**
 * Runs `effect` in one transaction. The effect's own failures pass through
 * unchanged; only the failures of the transaction itself (BEGIN, COMMIT, a
 * statement left unmapped) become a StoreError.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Transaction.of({
    run: (effect) => sql.withTransaction(effect).pipe(catchSqlError("transaction"))
  })
})

export const layer: Layer.Layer<Transaction, never, SqlClient.SqlClient> = Layer.effect(Transaction, make)
