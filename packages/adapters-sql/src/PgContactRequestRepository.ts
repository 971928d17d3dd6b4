/**
 * The ContactRequestRepository port on Postgres (migration 0007).
 *
 * `submit` is one statement: an INSERT with ON CONFLICT on the partial unique
 * index over open requests (`contact_requests_open_once`). A conflict turns
 * into a no-op update of the open row, which the statement then returns: the
 * answer is the stored request, which is the new one exactly when its id is
 * the one just generated. Two identical requests at once, in one process or
 * in two, queue on the index entry: the second sees the first's row once it
 * commits, and never stores a second.
 *
 * Failures name the operation and the database's message, never the detail
 * of the row (which would hold the requester's address): nothing here may
 * put an e-mail address in a log.
 */
import { PgClient } from "@effect/sql-pg"
import {
  ContactRequestRecord,
  ContactRequestStatus,
  type NewContactRequest,
  contactKeysOf,
  receiptOf
} from "@ratings/domain/model/ContactRequest"
import { EntityType } from "@ratings/domain/model/EntityType"
import {
  type ContactCloseOutcome,
  ContactRequestRepository,
  type ContactStatusFilter
} from "@ratings/domain/ports/ContactRequestRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer, Predicate, Schema } from "effect"
import { SqlError } from "effect/sql"
import { decodeRows, IsoFromDate, IsoOrNullFromDate } from "./PgRows.ts"
import { isoOf, isUuid } from "./PgTransaction.ts"

const Row = Schema.Struct({
  ...ContactRequestRecord.fields,
  entity_type: Schema.NullOr(EntityType),
  status: ContactRequestStatus,
  created_at: IsoFromDate,
  closed_at: IsoOrNullFromDate
})
const decodeRecords = decodeRows(Row)

const Columns =
  "id::text AS id, protocol_name, entity_type, contact_email, request_type, message, status, created_at, closed_at"

/** The database's own message (it names a constraint, never a value); never the detail, which quotes the row. */
const messageOf = (error: SqlError.SqlError): string => {
  const cause = error.reason.cause
  const server = Predicate.hasProperty(cause, "message") ? cause.message : undefined
  return typeof server === "string" && server !== "" ? server : error.reason._tag
}

/** A failure of `what` as a StoreError that holds no stored value. */
const failed =
  (what: string) =>
  (error: SqlError.SqlError | Schema.SchemaError): StoreError =>
    new StoreError({
      message: SqlError.isSqlError(error)
        ? `${what}: ${messageOf(error)}`
        : `${what}: a stored row does not decode`
    })

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient

  const submit = Effect.fn("PgContactRequestRepository.submit")(function* (request: NewContactRequest) {
    const { entity_key, email_key } = contactKeysOf(request)
    const rows = yield* sql`
      INSERT INTO contact_requests AS c (id, protocol_name, entity_type, contact_email, request_type, message,
        entity_key, email_key, status, created_at)
      VALUES (${request.id}::uuid, ${request.protocol_name}::text, ${request.entity_type}::text,
        ${request.contact_email}::text, ${request.request_type}::text, ${request.message}::text,
        ${entity_key}::text, ${email_key}::text, 'open', ${request.created_at}::timestamptz)
      ON CONFLICT (entity_key, email_key) WHERE status = 'open'
        DO UPDATE SET status = c.status
      RETURNING ${sql.literal(Columns)}`.pipe(
      Effect.flatMap(decodeRecords),
      Effect.mapError(failed("submit coverage request"))
    )
    const stored = rows[0]
    if (stored === undefined)
      return yield* new StoreError({ message: "submit coverage request: no row returned" })
    return { receipt: receiptOf(stored), created: stored.id === request.id }
  })

  const list = (status: ContactStatusFilter, limit: number) =>
    Effect.gen(function* () {
      const where = status === "all" ? sql`TRUE` : sql`status = ${status}::text`
      const items = yield* sql`SELECT ${sql.literal(Columns)} FROM contact_requests WHERE ${where}
        ORDER BY created_at, id LIMIT ${limit}`.pipe(Effect.flatMap(decodeRecords))
      const [count] = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM contact_requests
        WHERE ${where}`
      return { items, total: count?.total ?? 0 }
    }).pipe(Effect.mapError(failed("list coverage requests")))

  const close = (id: string, at: string): Effect.Effect<ContactCloseOutcome, StoreError> =>
    isUuid(id)
      ? sql<{ closed_now: boolean; closed_at: Date }>`
          WITH target AS (SELECT id, closed_at FROM contact_requests WHERE id = ${id}::uuid FOR UPDATE),
          closed AS (
            UPDATE contact_requests c SET status = 'closed', closed_at = ${at}::timestamptz
            FROM target WHERE c.id = target.id AND target.closed_at IS NULL
            RETURNING c.closed_at
          )
          SELECT (SELECT count(*) FROM closed) > 0 AS closed_now,
            coalesce((SELECT closed_at FROM closed), target.closed_at) AS closed_at
          FROM target`.pipe(
          Effect.map(([row]): ContactCloseOutcome => {
            if (row === undefined) return { _tag: "NotFound" }
            const closed_at = isoOf(row.closed_at)
            return row.closed_now ? { _tag: "Closed", closed_at } : { _tag: "AlreadyClosed", closed_at }
          }),
          Effect.mapError(failed("close coverage request"))
        )
      : Effect.succeed({ _tag: "NotFound" })

  return ContactRequestRepository.of({ submit, list, close })
})

export const layer: Layer.Layer<ContactRequestRepository, never, PgClient.PgClient> = Layer.effect(
  ContactRequestRepository,
  make
)
