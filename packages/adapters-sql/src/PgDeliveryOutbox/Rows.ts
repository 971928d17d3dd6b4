/**
 * The rows of the delivery outbox tables, decoded at the boundary with
 * schemas built from the domain's: a row decodes to the domain's `Delivery`
 * or `DeliveryAttempt` (timestamps to the ISO form the model stores), and a
 * row that does not is a defect carrying a StoreError, never a value cast
 * into shape.
 */
import { Effect, Schema } from "effect"
import { SqlError } from "effect/sql"
import { Delivery, DeliveryAttempt } from "@ratings/domain/model/Delivery"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { IsoFromDate, IsoOrNullFromDate } from "../PgRows.ts"

export const DeliveryRow = Schema.Struct({
  ...Delivery.fields,
  next_attempt_at: IsoOrNullFromDate,
  first_attempt_at: IsoOrNullFromDate,
  created_at: IsoFromDate
})

/** A row the guarded write returns: the index of a write it applied, and the delivery's stored id. */
export const AppliedRow = Schema.Struct({ idx: Schema.Int, delivery_id: Delivery.fields.delivery_id })

export const AttemptRow = Schema.Struct({ ...DeliveryAttempt.fields, started_at: IsoFromDate })

/** The columns of `DeliveryRow`, in table order. */
export const DeliveryColumns =
  "delivery_id, rule_id, event, body, status, cycle, attempts, next_attempt_at, first_attempt_at, last_error, created_at"

/** Decodes rows with `schema`; a row that does not decode is a defect naming the operation. */
export const decodeRows = <S extends Schema.Codec<unknown, unknown>>(schema: S, operation: string) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<S["Type"]>> =>
    Effect.catch(decode(rows), (error) =>
      Effect.die(
        new StoreError({ message: `delivery outbox, ${operation}: a row did not decode: ${error.message}` })
      )
    ) as Effect.Effect<ReadonlyArray<S["Type"]>>
}

/** A database failure as a defect carrying a StoreError (the port has no error channel for it). */
export const orDie =
  (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
    Effect.catch(effect, (error) =>
      SqlError.isSqlError(error)
        ? Effect.die(new StoreError({ message: `delivery outbox, ${operation}: ${error.message}` }))
        : Effect.fail(error as Exclude<E, SqlError.SqlError>)
    )

/** `Array.prototype.slice`'s reading of a limit, so SQL pages as memory does. */
export const limitOf = (limit: number | undefined): number | null =>
  limit === undefined ? null : Number.isFinite(limit) ? Math.max(0, Math.trunc(limit)) : limit > 0 ? null : 0
