/**
 * A stored reading of the quantum-readiness source, and the record of the last
 * attempt to refresh it. Both are schemas so that a store can keep them as JSON
 * and read them back checked.
 *
 * A snapshot expires a TTL after it was fetched; expiry alone does not make it
 * stale on the wire: only a failed refresh does (see `QuantumReadiness`).
 */
import { Duration, Schema } from "effect"
import { IsoDateTime, isoTimestamp, NonNegativeInt } from "../model/Primitives.ts"
import { QuantumRow } from "../model/Quantum.ts"
import { MaxQuantumRows } from "./QuantumRows.ts"

export const LayerQu = {
  source: "LayerQu",
  source_url: "https://layerqu.com/dashboard/"
} as const

/** How long a snapshot is current; the upstream publishes about daily. */
export const DefaultSnapshotTtl: Duration.Duration = Duration.hours(24)

export const QuantumSnapshot = Schema.Struct({
  rows: Schema.Array(QuantumRow),
  rows_skipped: NonNegativeInt,
  as_of: IsoDateTime.annotate({ description: "When the rows were fetched from the source" }),
  expires_at: IsoDateTime.annotate({ description: "as_of plus the snapshot TTL" }),
  source: Schema.String,
  source_url: Schema.String,
  sample: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "True for the sample data shipped with the service" })
  )
}).annotate({
  identifier: "QuantumSnapshot",
  description: "One stored reading of the quantum-readiness source"
})
export type QuantumSnapshot = typeof QuantumSnapshot.Type

export const QuantumRefreshOutcome = Schema.Struct({
  at: IsoDateTime,
  ok: Schema.Boolean,
  error: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "QuantumRefreshOutcome", description: "How the last refresh from the source went" })
export type QuantumRefreshOutcome = typeof QuantumRefreshOutcome.Type

/** Epoch milliseconds in the form this service writes (`isoTimestamp`: UTC, `+00:00`). */
export const toIso = (millis: number): string => isoTimestamp(millis)

export interface SnapshotOptions {
  /** Fetch time, epoch milliseconds. */
  readonly now: number
  /** Snapshot lifetime in milliseconds; finite and not negative. */
  readonly ttlMillis: number
  readonly sample?: boolean | undefined
}

export const makeSnapshot = (
  read: { readonly rows: ReadonlyArray<QuantumRow>; readonly rows_skipped: number },
  options: SnapshotOptions
): QuantumSnapshot => ({
  rows: read.rows,
  rows_skipped: read.rows_skipped,
  as_of: toIso(options.now),
  expires_at: toIso(options.now + options.ttlMillis),
  ...LayerQu,
  ...(options.sample === true ? { sample: true } : {})
})

/** Expired from the instant `expires_at` is reached. */
export const isExpired = (snapshot: QuantumSnapshot, now: number): boolean =>
  now >= Date.parse(snapshot.expires_at)

/**
 * Why a store refuses to keep this snapshot, or undefined: one of more than
 * `MaxQuantumRows` rows would be kept but never served, so a save that
 * succeeded would not make it the latest.
 */
export const unstorableReason = (snapshot: QuantumSnapshot): string | undefined =>
  snapshot.rows.length > MaxQuantumRows
    ? `a snapshot of ${snapshot.rows.length} rows is over the ${MaxQuantumRows}-row bound`
    : undefined
