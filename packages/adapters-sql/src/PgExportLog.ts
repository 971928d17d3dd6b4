/**
 * The ExportLog port on Postgres: each export's watermark row, and the export
 * quota counted from the same rows. `recordWithinQuota` checks and records in
 * one transaction under a transaction-scoped advisory lock on the account, so
 * concurrent exports of one account queue, in this process or any other, and
 * two calls at the quota edge cannot both record. The lock goes with the
 * transaction; the count reads through export_log_account_time.
 */
import { PgClient } from "@effect/sql-pg"
import { EntityType } from "@ratings/domain/model/EntityType"
import { ExportLog, type ExportRecord, type QuotaOutcome } from "@ratings/domain/ports/ExportLog"
import { Effect, Layer, Option, Schema } from "effect"
import { decodeRows, IsoFromDate, IsoOrNullFromDate, orReadError, toReadError } from "./PgRows.ts"
import { catchSqlError, isUuid, orStoreError } from "./PgTransaction.ts"

/** First key of the two-key advisory lock: keeps these locks apart from any other use of advisory locks. */
export const QuotaLockSpace = 0x45585054 // "EXPT"

/** An export_log row decodes to the domain's `ExportRecord`, its timestamp to ISO text. */
const ExportRow = Schema.Struct({
  export_id: Schema.String,
  account_id: Schema.String,
  key_id: Schema.NullOr(Schema.String),
  entity_type: EntityType,
  format: Schema.Literals(["csv", "json"]),
  fields: Schema.Array(Schema.String),
  row_count: Schema.Number,
  created_at: IsoFromDate
})
const decodeExports = decodeRows(ExportRow)

const QuotaWindow = Schema.Struct({ used: Schema.Number, oldest: IsoOrNullFromDate })
const decodeWindow = decodeRows(QuotaWindow)

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient

  const recordWithinQuota = Effect.fn("PgExportLog.recordWithinQuota")(function* (
    record: ExportRecord,
    windowStart: string,
    quota: number
  ) {
    return yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${QuotaLockSpace}, hashtext(${record.account_id}::text))`
          const [window] = yield* sql`
            SELECT count(*)::int AS used, min(created_at) AS oldest FROM export_log
            WHERE account_id = ${record.account_id}::text AND created_at > ${windowStart}::timestamptz`.pipe(
            Effect.flatMap((rows) =>
              Effect.mapError(decodeWindow(rows), toReadError(`record export ${record.export_id}`))
            )
          )
          if (window !== undefined && window.used >= quota && window.oldest !== null) {
            return { recorded: false, oldest: window.oldest } satisfies QuotaOutcome
          }
          yield* sql`INSERT INTO export_log (export_id, account_id, key_id, entity_type, format, fields,
              row_count, created_at)
            VALUES (${record.export_id}::uuid, ${record.account_id}::text, ${record.key_id}::text,
              ${record.entity_type}::text,
              ${record.format}::text, ${[...record.fields]}::text[], ${record.row_count},
              ${record.created_at}::timestamptz)`
          return { recorded: true } satisfies QuotaOutcome
        })
      )
      .pipe(catchSqlError(`record export ${record.export_id}`))
  })

  const find = (exportId: string) =>
    isUuid(exportId)
      ? sql`SELECT export_id, account_id, key_id, entity_type, format, fields, row_count, created_at
          FROM export_log WHERE export_id = ${exportId}::uuid`.pipe(
          Effect.flatMap(decodeExports),
          Effect.map((rows): Option.Option<ExportRecord> => Option.fromNullishOr(rows[0])),
          orReadError(`find export ${exportId}`)
        )
      : Effect.succeedNone

  const withdraw = (exportId: string) =>
    isUuid(exportId)
      ? sql`DELETE FROM export_log WHERE export_id = ${exportId}::uuid`.pipe(
          Effect.asVoid,
          orStoreError(`withdraw export ${exportId}`)
        )
      : Effect.void

  return ExportLog.of({ recordWithinQuota, find, withdraw })
})

export const layer: Layer.Layer<ExportLog, never, PgClient.PgClient> = Layer.effect(ExportLog, make)
