/**
 * The served quantum-readiness payloads (spec part 4 "Quantum readiness" rules
 * 1-4), built from the latest snapshot, the last refresh outcome and the time.
 *
 * Every payload, available or not, names the third-party source and links to
 * it (rule 4). `stale: true` is set only when a refresh failed after the served
 * snapshot was fetched and that snapshot has expired (rule 3): an expired
 * snapshot with no failed refresh behind it is served without the flag, since
 * nothing says the source has moved on. Nothing here reads or writes a grade:
 * the data is shown beside ratings, never fed into them.
 */
import {
  isUsableReading,
  type QuantumChainReading,
  type QuantumLeagueTable,
  type QuantumRow,
  type QuantumUnavailable
} from "../model/Quantum.ts"
import { isExpired, LayerQu, type QuantumRefreshOutcome, type QuantumSnapshot } from "./QuantumSnapshot.ts"

/** The reasons an `available: false` payload gives; kept short and stable so clients can branch on them. */
export const QuantumUnavailableReason = {
  /** No snapshot could be served: the source has not been reached, or never was. */
  SourceUnreachable: "source unreachable",
  /** The chain exists in the service but the source has no usable reading for it. */
  NotAssessed: "not assessed by source",
  /** The service has no chain with this slug. */
  UnknownChain: "unknown chain"
} as const
export type QuantumUnavailableReason =
  (typeof QuantumUnavailableReason)[keyof typeof QuantumUnavailableReason]

export interface ReadinessState {
  /** The latest stored snapshot, if any was ever stored. */
  readonly snapshot: QuantumSnapshot | undefined
  /** The last recorded refresh attempt, if any. */
  readonly lastOutcome: QuantumRefreshOutcome | undefined
  /** Epoch milliseconds. */
  readonly now: number
}

interface Attribution {
  readonly source: string
  readonly source_url: string
  readonly attribution: string
}

/** The attribution fields every payload carries; a sample snapshot says it is one. */
export const attributionOf = (snapshot: QuantumSnapshot | undefined): Attribution => {
  const source = snapshot?.source ?? LayerQu.source
  const source_url = snapshot?.source_url ?? LayerQu.source_url
  const credit = `Post-quantum readiness data: ${source} (${source_url}), a third-party source. Shown for information; it does not feed ratings or grades.`
  return {
    source,
    source_url,
    attribution:
      snapshot?.sample === true
        ? `Sample data shipped with the service, not a live reading. ${credit}`
        : credit
  }
}

/**
 * Whether the served snapshot must be flagged stale: it has expired, and a
 * refresh attempted after it was fetched has failed.
 */
export const isStale = (state: ReadinessState): boolean => {
  const { snapshot, lastOutcome, now } = state
  return (
    snapshot !== undefined &&
    lastOutcome !== undefined &&
    !lastOutcome.ok &&
    Date.parse(lastOutcome.at) >= Date.parse(snapshot.as_of) &&
    isExpired(snapshot, now)
  )
}

/**
 * The instant (epoch ms) from which `isStale` may answer otherwise with the
 * same snapshot and outcome: the snapshot's expiry, while it is still ahead.
 * Past it, or with no snapshot, only a new snapshot or outcome changes a
 * payload, so nothing in it depends on the clock (undefined). A cache keeps
 * a payload no later than this.
 */
export const clockChangesAt = (state: ReadinessState): number | undefined => {
  if (state.snapshot === undefined) return undefined
  const expires = Date.parse(state.snapshot.expires_at)
  return Number.isFinite(expires) && state.now < expires ? expires : undefined
}

const staleFlag = (state: ReadinessState): { readonly stale?: true } =>
  isStale(state) ? { stale: true } : {}

export const unavailable = (
  reason: QuantumUnavailableReason,
  snapshot: QuantumSnapshot | undefined
): QuantumUnavailable => ({ available: false, reason, ...attributionOf(snapshot) })

/** GET /quantum-readiness: the whole table, or `available: false` when no snapshot exists. */
export const leagueTable = (state: ReadinessState): QuantumLeagueTable | QuantumUnavailable => {
  const { snapshot } = state
  if (snapshot === undefined) return unavailable(QuantumUnavailableReason.SourceUnreachable, undefined)
  return {
    available: true,
    ...attributionOf(snapshot),
    as_of: snapshot.as_of,
    ...staleFlag(state),
    rows: snapshot.rows,
    rows_skipped: snapshot.rows_skipped
  }
}

/**
 * The row serving a service chain. Should the source list one chain twice, a
 * usable reading wins over an unusable one, then source order decides.
 */
export const rowForChain = (rows: ReadonlyArray<QuantumRow>, chainSlug: string): QuantumRow | undefined => {
  let first: QuantumRow | undefined
  for (const row of rows) {
    if (row.matched_chain_slug !== chainSlug) continue
    if (isUsableReading(row)) return row
    first ??= row
  }
  return first
}

export interface ChainQuery {
  readonly slug: string
  /** Whether the service has a chain with this slug, whatever its status (drafts count). */
  readonly known: boolean
}

/**
 * GET /chains/{slug}/quantum-readiness. An unknown chain, or one without a
 * usable reading (clients need qri, band and stage), is a 200-style
 * `available: false` with a reason, never an error (rule 2).
 */
export const chainReading = (
  state: ReadinessState,
  query: ChainQuery
): QuantumChainReading | QuantumUnavailable => {
  const { snapshot } = state
  if (!query.known) return unavailable(QuantumUnavailableReason.UnknownChain, snapshot)
  if (snapshot === undefined) return unavailable(QuantumUnavailableReason.SourceUnreachable, undefined)
  const row = rowForChain(snapshot.rows, query.slug)
  if (row === undefined || !isUsableReading(row)) {
    return unavailable(QuantumUnavailableReason.NotAssessed, snapshot)
  }
  return {
    available: true,
    chain_slug: query.slug,
    qri: row.qri,
    band: row.band,
    band_label: row.band_label,
    stage: row.stage,
    hybrid: row.hybrid,
    danger: row.danger,
    ci: row.ci,
    ...attributionOf(snapshot),
    as_of: snapshot.as_of,
    ...staleFlag(state)
  }
}
