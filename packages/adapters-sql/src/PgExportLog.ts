/**
 * The ExportLog port on Postgres: each export's watermark row, and the export
 * quota counted from the same rows. `recordWithinQuota` checks and records in
 * one transaction under a transaction-scoped advisory lock on the account, so
 * concurrent exports of one account queue, in this process or any other, and
 * two calls at the quota edge cannot both record. The lock goes with the
 * transaction; the count reads through export_log_account_time.
 */
import { PgClient } from "@effect/sql-pg"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { ExportLog, type ExportRecord, type QuotaOutcome } from "@ratings/domain/ports/ExportLog"
import { Effect, Layer, Option } from "effect"
import { catchSqlError, isoOf, isUuid, orStoreError } from "./PgTransaction.ts"

/** First key of the two-key advisory lock: keeps these locks apart from any other use of advisory locks. */
export const QuotaLockSpace = 0x45585054 // "EXPT"

interface ExportRow {
  readonly export_id: string
  readonly account_id: string
  readonly key_id: string | null
  readonly entity_type: EntityType
  readonly format: "csv" | "json"
  readonly fields: ReadonlyArray<string>
  readonly row_count: number
  readonly created_at: Date
}

const toRecord = (row: ExportRow): ExportRecord => ({ ...row, created_at: isoOf(row.created_at) })

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
          const [window] = yield* sql<{ used: number; oldest: Date | null }>`
            SELECT count(*)::int AS used, min(created_at) AS oldest FROM export_log
            WHERE account_id = ${record.account_id}::text AND created_at > ${windowStart}::timestamptz`
          if (window !== undefined && window.used >= quota && window.oldest !== null) {
            return { recorded: false, oldest: isoOf(window.oldest) } satisfies QuotaOutcome
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
      ? sql<ExportRow>`SELECT export_id, account_id, key_id, entity_type, format, fields, row_count, created_at
          FROM export_log WHERE export_id = ${exportId}::uuid`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toRecord)),
          orStoreError(`find export ${exportId}`)
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
