/**
 * The incident tables at the adapter boundary: the columns the reads select,
 * the schemas their rows decode with (built from the domain's `IncidentRecord`
 * and `Incident`), the mappings to the domain's objects, and how a failure of
 * a statement or of a row's decoding reaches the domain (a StoreError, a
 * unique violation marked as a conflict the ingest retries).
 */
import type { IncidentLifecyclePolicy } from "@ratings/domain/incidents/IncidentLifecycle"
import { IncidentTier } from "@ratings/domain/incidents/IncidentTier"
import {
  Incident,
  IncidentRecord,
  type IncidentSource,
  parseZonedDateTime
} from "@ratings/domain/model/Incident"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Result, Schema } from "effect"
import { SqlError } from "effect/sql"
import { decodeRows } from "../PgRows.ts"

const ConflictPrefix = "incident write conflict"

/** A write refused because it was decided on a stale read; running the ingest again resolves it. */
export const isIncidentConflict = (error: StoreError): boolean => error.message.startsWith(ConflictPrefix)

export const conflict = (why: string) => new StoreError({ message: `${ConflictPrefix}: ${why}` })

const toStoreError = (operation: string) => (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation"
    ? conflict(`${operation}: ${error.message}`)
    : new StoreError({ message: `incidents, ${operation}: ${error.message}` })

export const mapSqlError =
  (operation: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError, R> =>
    Effect.catch(
      effect,
      (error): Effect.Effect<never, Exclude<E, SqlError.SqlError> | StoreError> =>
        SqlError.isSqlError(error)
          ? Effect.fail(toStoreError(operation)(error))
          : Effect.fail(error as Exclude<E, SqlError.SqlError>)
    )

/** Decodes the rows of a statement with `row`; a row that does not fit is a StoreError naming the read. */
export const decodeWith = <S extends Schema.Codec<unknown, unknown>>(row: S, operation: string) => {
  const decode = decodeRows(row)
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<S["Type"]>, StoreError> =>
    Effect.mapError(
      decode(rows) as Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError>,
      (error) =>
        new StoreError({ message: `incidents, ${operation}: a stored row does not decode: ${error.message}` })
    )
}

/** Advisory locks of this module live in their own key space (the two-int form). */
export const IncidentLockSpace = 0x1c1de7

/** A zoned date-time as an instant truncated to milliseconds, as the lifecycle reads it. */
export const instantOf = (text: string): Date | undefined => {
  const parsed = parseZonedDateTime(text)
  return Result.isSuccess(parsed) ? new Date(parsed.success) : undefined
}

export const RecordColumns = `
      i.incident_id, i.protocol_name, i.chain, i.exploit_class, i.status, i.first_seen_at_text,
      i.detected_at_text, i.slug, i.matched_protocol, i.loss_estimate_usd, i.victim_addresses,
      i.confidence_bps, i.resolved_at_text, i.resolution,
      ARRAY(SELECT n.nonce FROM incident_nonces n WHERE n.incident_id = i.incident_id ORDER BY n.position)
        AS nonces,
      (SELECT coalesce(
         jsonb_agg(jsonb_build_object('handle', s.handle, 'claimed_tier', s.claimed_tier, 'url', s.url)
           ORDER BY s.position),
         '[]'::jsonb)
       FROM incident_sources s WHERE s.incident_id = i.incident_id) AS sources`

/** A source as stored: its url column is null when the source gave none. */
const SourceRow = Schema.Struct({
  handle: Schema.String,
  claimed_tier: IncidentTier,
  url: Schema.NullOr(Schema.String)
})

const {
  first_seen_at: FirstSeenAt,
  detected_at: DetectedAt,
  resolved_at: ResolvedAt,
  sources: _sources,
  ...RecordFields
} = IncidentRecord.fields

/** The stored record, its date-times as the text columns that keep them as given. */
export const RecordRow = Schema.Struct({
  ...RecordFields,
  first_seen_at_text: FirstSeenAt,
  detected_at_text: DetectedAt,
  resolved_at_text: ResolvedAt,
  sources: Schema.Array(SourceRow)
})
export type RecordRow = typeof RecordRow.Type

export const toRecord = (row: RecordRow): IncidentRecord => ({
  incident_id: row.incident_id,
  protocol_name: row.protocol_name,
  chain: row.chain,
  exploit_class: row.exploit_class,
  status: row.status,
  first_seen_at: row.first_seen_at_text,
  detected_at: row.detected_at_text,
  slug: row.slug,
  matched_protocol: row.matched_protocol,
  loss_estimate_usd: row.loss_estimate_usd,
  victim_addresses: row.victim_addresses,
  confidence_bps: row.confidence_bps,
  nonces: row.nonces,
  sources: row.sources.map(
    (s): IncidentSource =>
      s.url === null
        ? { handle: s.handle, claimed_tier: s.claimed_tier }
        : { handle: s.handle, claimed_tier: s.claimed_tier, url: s.url }
  ),
  resolved_at: row.resolved_at_text,
  resolution: row.resolution
})

/** Served columns only: no nonce, no victim address. */
export const FeedColumns = `
            i.incident_id, i.protocol_name, i.slug, i.matched_protocol, i.status, i.exploit_class,
            i.loss_estimate_usd, i.chain, i.confidence_bps, i.detected_at_text, i.first_seen_at_text,
            i.resolved_at_text, i.resolution,
            ARRAY(SELECT s.handle FROM incident_sources s WHERE s.incident_id = i.incident_id ORDER BY s.position)
              AS handles`

export const FeedRow = Schema.Struct({
  incident_id: Incident.fields.incident_id,
  protocol_name: Incident.fields.protocol_name,
  slug: Incident.fields.slug,
  matched_protocol: Incident.fields.matched_protocol,
  status: Incident.fields.status,
  exploit_class: Incident.fields.exploit_class,
  loss_estimate_usd: Incident.fields.loss_estimate_usd,
  chain: Incident.fields.chain,
  confidence_bps: Schema.NullOr(Incident.fields.confidence_bps),
  handles: Schema.Array(Schema.String),
  detected_at_text: Incident.fields.detected_at,
  first_seen_at_text: Incident.fields.first_seen_at,
  resolved_at_text: Incident.fields.resolved_at,
  resolution: Incident.fields.resolution
})
export type FeedRow = typeof FeedRow.Type

/** The served item of a feed row; `floors` gives the confidence of one no report gave (the lifecycle's). */
export const toIncident = (
  row: FeedRow,
  floors: IncidentLifecyclePolicy["defaultConfidenceBps"]
): Incident => ({
  incident_id: row.incident_id,
  protocol_name: row.protocol_name,
  slug: row.slug,
  matched_protocol: row.matched_protocol,
  status: row.status,
  exploit_class: row.exploit_class,
  loss_estimate_usd: row.loss_estimate_usd,
  chain: row.chain,
  confidence_bps: row.confidence_bps ?? floors[row.status],
  source_count: row.handles.length,
  sources: row.handles.map((handle) => ({ handle })),
  detected_at: row.detected_at_text,
  first_seen_at: row.first_seen_at_text,
  resolved_at: row.resolved_at_text,
  resolution: row.resolution
})

export const CountRow = Schema.Struct({ total: Schema.Number })
export const NoncesRow = Schema.Struct({ nonces: Schema.Array(Schema.String) })
export const IdRow = Schema.Struct({ incident_id: Schema.String })
