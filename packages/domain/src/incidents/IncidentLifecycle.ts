/**
 * The incident state machine (spec part 3 "Incident tier") and the rule that
 * decides which incident a report belongs to. Pure and total over validated
 * reports: the use case loads a record, calls `applyReport`, and stores what
 * comes back. The served tier is derived, never claimed: the highest tier at
 * least two independent sources claim, so a single source never gets anything
 * served. A rise of that tier is an escalation: it keeps incident_id and
 * first_seen_at, refreshes detected_at, and re-runs matching to a rated
 * protocol (nothing else does). Date-times are kept in the form this service
 * writes (`canonicalTimestamp`). Use cases and stores read it all through the
 * `IncidentLifecycle` service at the end of this file.
 */
import { Context, Layer, Result } from "effect"
import {
  type Incident,
  type IncidentRecord,
  type IncidentReport,
  isoOfMillis,
  parseZonedDateTime
} from "../model/Incident.ts"
import { canonicalTimestamp } from "../model/Primitives.ts"
import { normaliseName, type ProtocolMatch, type ProtocolMatcher } from "./IncidentMatching.ts"
import { type IncidentTier, isAbove, maxTier } from "./IncidentTier.ts"
import {
  corroboratedTier,
  independentSourceCount,
  MinIndependentSources,
  recordClaim
} from "./SourceIndependence.ts"

export type IngestOutcome = "created" | "escalated" | "absorbed" | "duplicate"

export interface LifecycleContext {
  /**
   * The current instant, epoch milliseconds or an ISO 8601 date-time with a
   * zone. It must denote an instant; anything else throws, as a wiring bug.
   */
  readonly now: number | string
  /** A fresh UUID; used only when the report creates the incident. */
  readonly incidentId: string
  /** Matches a protocol name to a rated protocol; called on creation and on escalation only. */
  readonly matcher: ProtocolMatcher
}

export interface Applied {
  readonly state: IncidentRecord
  readonly outcome: IngestOutcome
}

/**
 * Served when no report carried a confidence: a floor per tier, so a served
 * item always has a number in 0..10000 and it never contradicts its tier badly.
 */
export const DefaultConfidenceBps: { readonly [T in IncidentTier]: number } = {
  rumored: 2500,
  corroborated: 6000,
  confirmed: 9000
}

// ---------------------------------------------------------------------------
// Aggregation

/**
 * Reports about one hack aggregate into one incident when they share this key
 * (protocol name and chain normalised as for matching, exploit class
 * upper-cased) and their first_seen_at lies within this window of the
 * incident's first_seen_at, either side. The window keeps the same protocol
 * hacked twice a month apart as two incidents, while tolerating sources that
 * date one hack a day or two apart.
 */
export const AggregationWindowMillis = 72 * 60 * 60 * 1000

export const aggregationKey = (r: {
  readonly protocol_name: string
  readonly chain: string | null
  readonly exploit_class: string
}): string =>
  JSON.stringify([
    normaliseName(r.protocol_name),
    r.chain === null ? null : normaliseName(r.chain),
    r.exploit_class.trim().toUpperCase()
  ])

/** The aggregation rule as a value: the key reports must share, and the window around first_seen_at. */
export interface Aggregation {
  readonly key: typeof aggregationKey
  readonly windowMillis: number
}

export const StandardAggregation: Aggregation = { key: aggregationKey, windowMillis: AggregationWindowMillis }

const millisOf = (iso: string): number | undefined => {
  const parsed = parseZonedDateTime(iso)
  return Result.isSuccess(parsed) ? parsed.success : undefined
}

/** Distance between the report's first_seen_at and the incident's, or undefined when it does not belong. */
const distanceTo = (rule: Aggregation, state: IncidentRecord, report: IncidentReport): number | undefined => {
  if (rule.key(state) !== rule.key(report)) return undefined
  const a = millisOf(state.first_seen_at)
  const b = millisOf(report.first_seen_at)
  if (a === undefined || b === undefined) return undefined
  const distance = Math.abs(a - b)
  return distance <= rule.windowMillis ? distance : undefined
}

export const belongsTo = (state: IncidentRecord, report: IncidentReport): boolean =>
  distanceTo(StandardAggregation, state, report) !== undefined

/**
 * The incident a report belongs to among candidates, under `rule`. When
 * windows of two incidents overlap, the one whose first_seen_at is nearest
 * wins, then the earlier one, then the smaller id, so the choice does not
 * depend on storage order.
 */
export const selectIncidentBy =
  (rule: Aggregation) =>
  (candidates: Iterable<IncidentRecord>, report: IncidentReport): IncidentRecord | undefined => {
    let best: { readonly state: IncidentRecord; readonly distance: number; readonly at: number } | undefined
    for (const state of candidates) {
      const distance = distanceTo(rule, state, report)
      if (distance === undefined) continue
      const at = millisOf(state.first_seen_at) ?? 0
      if (
        best === undefined ||
        distance < best.distance ||
        (distance === best.distance &&
          (at < best.at || (at === best.at && state.incident_id < best.state.incident_id)))
      ) {
        best = { state, distance, at }
      }
    }
    return best?.state
  }

/** `selectIncidentBy` the standard aggregation rule. */
export const selectIncident = selectIncidentBy(StandardAggregation)

// ---------------------------------------------------------------------------
// Transitions

const instantOf = (now: number | string): number => {
  const at = typeof now === "number" ? now : millisOf(now)
  // A clock that yields no instant is a wiring bug, not a data case to paper over.
  if (at === undefined || !Number.isFinite(at))
    throw new RangeError(`LifecycleContext.now is not an instant: ${now}`)
  return at
}

/**
 * detected_at for an escalation: now, but always strictly after the previous
 * detected_at, so a consumer polling with `since` set to the last detected_at it
 * saw cannot miss an escalation that lands in the same millisecond (or on a
 * server whose clock runs slightly behind).
 */
const nextDetectedAt = (previous: string | null, now: number | string): string => {
  const at = instantOf(now)
  const before = previous === null ? undefined : millisOf(previous)
  return isoOfMillis(before !== undefined && at <= before ? before + 1 : at)
}

const maxOrNull = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b)

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set(a)
  const added = b.map((s) => s.trim()).filter((s) => s !== "" && !seen.has(s) && seen.add(s))
  return added.length === 0 ? a : [...a, ...added]
}

const resolvedAtOf = (report: IncidentReport): string | undefined =>
  report.resolved_at === undefined ? undefined : canonicalTimestamp(report.resolved_at)

const claimOf = (report: IncidentReport) => ({
  handle: report.source.handle,
  claimed_tier: report.claimed_tier,
  url: report.source.url
})

const create = (report: IncidentReport, ctx: LifecycleContext): Applied => {
  const sources = recordClaim([], claimOf(report))
  const status = corroboratedTier(sources)
  const match: ProtocolMatch = ctx.matcher(report.protocol_name)
  const state: IncidentRecord = {
    incident_id: ctx.incidentId,
    protocol_name: report.protocol_name.trim(),
    chain: report.chain === null ? null : report.chain.trim(),
    exploit_class: report.exploit_class,
    status,
    first_seen_at: canonicalTimestamp(report.first_seen_at),
    detected_at: status === null ? null : nextDetectedAt(null, ctx.now),
    slug: match.slug,
    matched_protocol: match.matched_protocol,
    loss_estimate_usd: report.loss_estimate_usd,
    victim_addresses: union([], report.victim_addresses),
    confidence_bps: report.confidence_bps ?? null,
    nonces: [report.nonce],
    sources,
    resolved_at: resolvedAtOf(report) ?? null,
    resolution: report.resolution ?? null
  }
  return { state, outcome: "created" }
}

/**
 * Applies one report to the incident it belongs to (or creates the incident
 * when `state` is undefined). The caller has already chosen the incident with
 * `selectIncident`; this function does not second-guess that choice.
 */
export const applyReport = (
  state: IncidentRecord | undefined,
  report: IncidentReport,
  ctx: LifecycleContext
): Applied => {
  if (state === undefined) return create(report, ctx)
  if (state.nonces.includes(report.nonce)) return { state, outcome: "duplicate" }

  const sources = recordClaim(state.sources, claimOf(report))
  // The max is belt and braces: claims only ever rise, so the derived tier cannot fall.
  const status = maxTier(state.status, corroboratedTier(sources))
  const escalated = isAbove(status, state.status)
  const match: ProtocolMatch = escalated
    ? ctx.matcher(state.protocol_name)
    : { slug: state.slug, matched_protocol: state.matched_protocol }

  const next: IncidentRecord = {
    ...state,
    status,
    detected_at: escalated ? nextDetectedAt(state.detected_at, ctx.now) : state.detected_at,
    slug: match.slug,
    matched_protocol: match.matched_protocol,
    loss_estimate_usd: maxOrNull(state.loss_estimate_usd, report.loss_estimate_usd),
    victim_addresses: union(state.victim_addresses, report.victim_addresses),
    confidence_bps: maxOrNull(state.confidence_bps, report.confidence_bps ?? null),
    nonces: [...state.nonces, report.nonce],
    sources,
    // A later report that states a resolution corrects an earlier one.
    resolved_at: resolvedAtOf(report) ?? state.resolved_at,
    resolution: report.resolution ?? state.resolution
  }
  return { state: next, outcome: escalated ? "escalated" : "absorbed" }
}

/** Applies reports in order; convenient for tests and for replaying a stored log. */
export const applyReports = (
  state: IncidentRecord | undefined,
  reports: ReadonlyArray<IncidentReport>,
  ctx: LifecycleContext
): IncidentRecord | undefined =>
  reports.reduce<IncidentRecord | undefined>((s, r) => applyReport(s, r, ctx).state, state)

// ---------------------------------------------------------------------------
// Projection

/**
 * The served item, or undefined while the incident is not servable, with
 * `floors` as the confidence of an incident no report gave one. The source
 * count is checked again here so that a record built by any other path (a
 * migration, a hand edit) still cannot serve something single-sourced.
 */
export const toServedWith =
  (floors: typeof DefaultConfidenceBps) =>
  (state: IncidentRecord): Incident | undefined => {
    if (state.status === null || state.detected_at === null) return undefined
    if (independentSourceCount(state.sources.map((s) => s.handle)) < MinIndependentSources) return undefined
    return {
      incident_id: state.incident_id,
      protocol_name: state.protocol_name,
      slug: state.slug,
      matched_protocol: state.matched_protocol,
      status: state.status,
      exploit_class: state.exploit_class,
      loss_estimate_usd: state.loss_estimate_usd,
      chain: state.chain,
      confidence_bps: state.confidence_bps ?? floors[state.status],
      source_count: state.sources.length,
      sources: state.sources.map((s) => ({ handle: s.handle })),
      detected_at: state.detected_at,
      first_seen_at: state.first_seen_at,
      resolved_at: state.resolved_at,
      resolution: state.resolution
    }
  }

/** `toServedWith` the standard confidence floors. */
export const toServed = toServedWith(DefaultConfidenceBps)

// ---------------------------------------------------------------------------
// The service

export interface IncidentLifecyclePolicy {
  /** The aggregation rule `selectIncident` applies, for a store that applies it in a query of its own. */
  readonly aggregation: Aggregation
  /** Which stored incident a report belongs to (`selectIncidentBy(aggregation)`). */
  readonly selectIncident: typeof selectIncident
  /** One report applied to its incident, or a new incident (`applyReport`). */
  readonly applyReport: typeof applyReport
  /** The confidence served when no report gave one, for a store that builds served items itself. */
  readonly defaultConfidenceBps: typeof DefaultConfidenceBps
  /** The served item, or undefined while not servable (`toServedWith(defaultConfidenceBps)`). */
  readonly toServed: typeof toServed
}

/**
 * The incident lifecycle as a service, like `Scoring`: use cases and stores
 * read it (`yield* IncidentLifecycle`) rather than import the functions and
 * constants, so another tool can embed the same core behind one seam. A
 * provider replaces a rule and the functions built on it together
 * (`selectIncidentBy`, `toServedWith`). The work is done by the pure
 * functions above, which the property tests check. Without a provider it is
 * those functions; the app provides `IncidentLifecycle.layer` once.
 */
const StandardLifecycle: IncidentLifecyclePolicy = {
  aggregation: StandardAggregation,
  selectIncident,
  applyReport,
  defaultConfidenceBps: DefaultConfidenceBps,
  toServed
}

const lifecycleReference = Context.Reference<IncidentLifecyclePolicy>(
  "@ratings/domain/incidents/IncidentLifecycle",
  { defaultValue: () => StandardLifecycle }
)

export const IncidentLifecycle = Object.assign(lifecycleReference, {
  layer: Layer.succeed(lifecycleReference, StandardLifecycle) as Layer.Layer<never>
})
