/**
 * The ContactRequestRepository port on Postgres (migrations 0007 and 0008).
 * `submit` is one statement, the same for a new request and a repeat, so two
 * identical requests at once, in one process or in two, never store a second.
 * Failures name the operation and the database's message, never the detail
 * of the row (which would hold the requester's address): nothing here may
 * put an e-mail address in a log.
 */
import { PgClient } from "@effect/sql-pg"
import {
  ContactRequestRecord,
  ContactRequestStatus,
  type NewContactRequest,
  contactKeysOf
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
  closed_at: IsoOrNullFromDate,
  receipt_ids: Schema.Array(Schema.String)
})
const decodeRecords = decodeRows(Row)

/** A request's columns, with its receipts' ids: the request's own first, then the others oldest first. */
const Columns =
  "c.id::text AS id, c.protocol_name, c.entity_type, c.contact_email, c.request_type, c.message, c.status, " +
  "c.created_at, c.closed_at, ARRAY(SELECT r.id::text FROM contact_receipts r WHERE r.request_id = c.id " +
  "AND r.id <> c.id ORDER BY r.created_at, r.id) AS receipt_ids"

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

  /**
   * An INSERT with ON CONFLICT on the partial unique index over open requests
   * (`contact_requests_open_once`), whose conflict is a no-op update of the open
   * row, so the statement has the stored request's id either way; then the
   * submission's receipt against that id. The request is new exactly when its id
   * is the submission's. Two identical requests at once queue on the index entry.
   */
  const submit = Effect.fn("PgContactRequestRepository.submit")(function* (submission: NewContactRequest) {
    const { entity_key, email_key } = contactKeysOf(submission)
    const rows = yield* sql<{ request_id: string }>`
      WITH stored AS (
        INSERT INTO contact_requests AS c (id, protocol_name, entity_type, contact_email, request_type, message,
          entity_key, email_key, status, created_at)
        VALUES (${submission.id}::uuid, ${submission.protocol_name}::text, ${submission.entity_type}::text,
          ${submission.contact_email}::text, ${submission.request_type}::text, ${submission.message}::text,
          ${entity_key}::text, ${email_key}::text, 'open', ${submission.created_at}::timestamptz)
        ON CONFLICT (entity_key, email_key) WHERE status = 'open'
          DO UPDATE SET status = c.status
        RETURNING c.id
      )
      INSERT INTO contact_receipts (id, request_id, created_at)
      SELECT ${submission.id}::uuid, stored.id, ${submission.created_at}::timestamptz FROM stored
      RETURNING request_id::text AS request_id`.pipe(Effect.mapError(failed("submit coverage request")))
    const stored = rows[0]
    if (stored === undefined)
      return yield* new StoreError({ message: "submit coverage request: no row returned" })
    return { request_id: stored.request_id, created: stored.request_id === submission.id }
  })

  const list = (status: ContactStatusFilter, limit: number) =>
    Effect.gen(function* () {
      const where = status === "all" ? sql`TRUE` : sql`status = ${status}::text`
      const rows = yield* sql`SELECT ${sql.literal(Columns)} FROM contact_requests c WHERE ${where}
        ORDER BY c.created_at, c.id LIMIT ${limit}`.pipe(Effect.flatMap(decodeRecords))
      const items = rows.map((r) => ({ ...r, receipt_ids: [r.id, ...r.receipt_ids] }))
      const [count] = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM contact_requests
        WHERE ${where}`
      return { items, total: count?.total ?? 0 }
    }).pipe(Effect.mapError(failed("list coverage requests")))

  const close = (id: string, at: string): Effect.Effect<ContactCloseOutcome, StoreError> =>
    isUuid(id)
      ? sql<{ request_id: string; closed_now: boolean; closed_at: Date }>`
          WITH target AS (
            SELECT id, closed_at FROM contact_requests
            WHERE id = coalesce((SELECT request_id FROM contact_receipts WHERE id = ${id}::uuid), ${id}::uuid)
            FOR UPDATE
          ),
          closed AS (
            UPDATE contact_requests c SET status = 'closed', closed_at = ${at}::timestamptz
            FROM target WHERE c.id = target.id AND target.closed_at IS NULL
            RETURNING c.closed_at
          )
          SELECT target.id::text AS request_id, (SELECT count(*) FROM closed) > 0 AS closed_now,
            coalesce((SELECT closed_at FROM closed), target.closed_at) AS closed_at
          FROM target`.pipe(
          Effect.map(([row]): ContactCloseOutcome => {
            if (row === undefined) return { _tag: "NotFound" }
            const closed = { request_id: row.request_id, closed_at: isoOf(row.closed_at) }
            return row.closed_now ? { _tag: "Closed", ...closed } : { _tag: "AlreadyClosed", ...closed }
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
