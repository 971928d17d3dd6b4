/**
 * Use case: bulk export (spec part 4 "Pro and Enterprise utilities", part 8
 * limits). Published entities only, figures from each one's latest published
 * scorecard, every export watermarked with its own `__export_id` and recorded,
 * and at most 5 exports per account in any rolling 24 hours, whatever the tier.
 */
import { Clock, Context, Effect, Layer, Option, Result, Schema, Stream } from "effect"
import type { AccessDenied } from "../access/Capabilities.ts"
import { Projection } from "../access/Projection.ts"
import type { Caller } from "../model/Caller.ts"
import type { EntityRecord } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import { type ExportField, ExportQuota } from "../model/ExportFields.ts"
import { isoTimestamp } from "../model/Primitives.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import { EntityRepository, type ListPosition } from "../ports/EntityRepository.ts"
import { ExportLog } from "../ports/ExportLog.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { ScorecardRepository } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"

export class ExportQuotaExceeded extends Schema.TaggedError<ExportQuotaExceeded>()("ExportQuotaExceeded", {
  retry_after_seconds: Schema.Number,
  quota: Schema.Number
}) {}

export interface ExportRequest {
  readonly entity_type: EntityType
  readonly fields: ReadonlyArray<ExportField>
  readonly limit: number
  readonly format: "csv" | "json"
}

export type ExportRow = { readonly [K in ExportField]?: unknown } & { readonly __export_id: string }

/**
 * An export ready to send: its watermark, its columns, how many rows it was
 * recorded with, and the rows as a stream of pages. The pages are read from the
 * store one at a time, as the stream is pulled (keyset paging in list order,
 * each page with its own latest-scorecard lookup), so an export of 5000 rows
 * holds one page in memory, never the whole file.
 */
export interface ExportResult {
  readonly export_id: string
  readonly fields: ReadonlyArray<ExportField>
  readonly row_count: number
  readonly pages: Stream.Stream<ReadonlyArray<ExportRow>, StoreError>
  /**
   * Takes the export back: its record is removed, so it does not count
   * against the quota. For an export the server could not deliver (its
   * response cut by a shutdown); never for one the caller abandoned.
   */
  readonly withdraw: Effect.Effect<void, StoreError>
}

/** Rows read from the store per page of a streamed export. */
export const ExportPageSize = 500

/** The account an export counts against: the key's account, or the admin's subject. */
export const accountOf = (caller: Caller): string | undefined =>
  caller._tag === "ApiKey"
    ? caller.account_id
    : caller._tag === "Admin"
      ? `admin:${caller.subject}`
      : undefined

export const rowOf = (
  record: { readonly slug: string; readonly name: string },
  card: Scorecard | undefined,
  fields: ReadonlyArray<ExportField>,
  exportId: string
): ExportRow => {
  const row: Record<string, unknown> = {}
  for (const f of fields) {
    row[f] =
      f === "slug"
        ? record.slug
        : f === "name"
          ? record.name
          : f === "domain_scores"
            ? (card?.domain_scores ?? null)
            : (card?.[f] ?? null)
  }
  row.__export_id = exportId
  return row as ExportRow
}

export class ExportService extends Context.Service<
  ExportService,
  {
    readonly export: (
      caller: Caller,
      request: ExportRequest
    ) => Effect.Effect<ExportResult, AccessDenied | ExportQuotaExceeded | StoreError>
  }
>()("@ratings/domain/services/ExportService") {
  static readonly layer = Layer.effect(
    ExportService,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      const log = yield* ExportLog
      const ids = yield* IdGenerator
      const projection = yield* Projection
      return ExportService.of({
        export: Effect.fn("ExportService.export")(function* (caller, request) {
          const allowed = projection.authorize(caller, "export")
          if (Result.isFailure(allowed)) return yield* allowed.failure
          const account = accountOf(caller)!
          const now = yield* Clock.currentTimeMillis
          const exportId = yield* ids.uuid
          const available = yield* entities.countPublished(request.entity_type)
          const rowCount = Math.min(available, request.limit)
          const outcome = yield* log.recordWithinQuota(
            {
              export_id: exportId,
              account_id: account,
              key_id: caller._tag === "ApiKey" ? caller.key_id : null,
              entity_type: request.entity_type,
              format: request.format,
              fields: request.fields,
              row_count: rowCount,
              created_at: isoTimestamp(now)
            },
            isoTimestamp(now - ExportQuota.windowMs),
            ExportQuota.exports
          )
          if (!outcome.recorded) {
            const freeAt = Date.parse(outcome.oldest) + ExportQuota.windowMs
            return yield* new ExportQuotaExceeded({
              retry_after_seconds: Math.max(1, Math.ceil((freeAt - now) / 1000)),
              quota: ExportQuota.exports
            })
          }
          const page = (position: { readonly sent: number; readonly after: ListPosition | undefined }) =>
            Effect.gen(function* () {
              // At most the rows recorded (row_count): an entity published while the file streams
              // does not make it longer than its record says.
              const size = Math.min(ExportPageSize, rowCount - position.sent)
              const records: ReadonlyArray<EntityRecord> =
                size > 0 ? yield* entities.published(request.entity_type, size, position.after) : []
              const cards = yield* scorecards.latestPublishedOf(
                request.entity_type,
                records.map((r) => r.id)
              )
              const rows = records.map((r) => rowOf(r, cards.get(r.id), request.fields, exportId))
              const last = records.at(-1)
              const sent = position.sent + records.length
              const next =
                last !== undefined && records.length === size && sent < rowCount
                  ? Option.some({ sent, after: { slug: last.slug, id: last.id } })
                  : Option.none()
              return [[rows], next] as const
            })
          return {
            export_id: exportId,
            fields: request.fields,
            row_count: rowCount,
            withdraw: log.withdraw(exportId),
            pages: Stream.paginate({ sent: 0, after: undefined as ListPosition | undefined }, page).pipe(
              Stream.filter((rows) => rows.length > 0)
            )
          }
        })
      })
    })
  )
}
