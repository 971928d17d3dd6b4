/**
 * Port: the export log. Every export is recorded with its watermark
 * (`__export_id`), who made it and what it held, so a leaked file can be traced;
 * the same log is the durable, shared counter of the bulk export quota.
 */
import { Context, type Effect, type Option } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { StoreError } from "./StoreError.ts"

export interface ExportRecord {
  readonly export_id: string
  readonly account_id: string
  /** The API key that made the export; null for an admin token (account `admin:<subject>`). */
  readonly key_id: string | null
  readonly entity_type: EntityType
  readonly format: "csv" | "json"
  readonly fields: ReadonlyArray<string>
  readonly row_count: number
  readonly created_at: string
}

export type QuotaOutcome = { readonly recorded: true } | { readonly recorded: false; readonly oldest: string }

export class ExportLog extends Context.Service<
  ExportLog,
  {
    /**
     * Records the export if the account made fewer than `quota` exports since
     * `windowStart`, atomically (check and insert in one step, shared by every
     * server process). Returns the oldest export inside the window when the quota
     * is used up, so the caller can compute Retry-After.
     */
    readonly recordWithinQuota: (
      record: ExportRecord,
      windowStart: string,
      quota: number
    ) => Effect.Effect<QuotaOutcome, StoreError>
    readonly find: (exportId: string) => Effect.Effect<Option.Option<ExportRecord>, StoreError>
    /**
     * Removes an export's record, so it no longer counts against the quota:
     * for an export the server recorded but could not deliver (its response
     * cut by a shutdown). Nothing happens for an unknown id.
     */
    readonly withdraw: (exportId: string) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/ExportLog") {}
