/**
 * Builders shared by the incident contract tests (and the domain's incident
 * tests, through incidents/IncidentFixtures.ts): served items, the stored
 * records they come from, reports, and a test-only port to rate protocols in
 * whichever store backs `RatedProtocols` (in memory: the domain's
 * test/ports/memory/IncidentRepositoryMemory.test.ts; in Postgres:
 * adapters-sql's PgIncidentRepository.test.ts).
 */
import { Context, type Effect } from "effect"
import { toServed } from "../../../src/incidents/IncidentLifecycle.ts"
import type { IncidentTier } from "../../../src/incidents/IncidentTier.ts"
import {
  type Incident,
  type IncidentRecord,
  type IncidentReport,
  isoOfMillis
} from "../../../src/model/Incident.ts"

export const T0 = Date.parse("2026-08-01T00:00:00Z")
export const HOUR = 60 * 60 * 1000
export const DAY = 24 * HOUR

export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

/**
 * A protocol to store: published, active and public with a published scorecard
 * unless the optional fields say otherwise (`scorecard: null`: none at all).
 */
export interface ProtocolToRate {
  readonly slug: string
  readonly name: string
  readonly status?: string
  readonly is_active?: boolean
  readonly is_private?: boolean
  readonly scorecard?: "published" | "draft" | null
}

/** Stores protocols (by default rated: published with a scorecard) in the store behind `RatedProtocols`. */
export class ProtocolRating extends Context.Service<
  ProtocolRating,
  {
    readonly rate: (protocols: ReadonlyArray<ProtocolToRate>) => Effect.Effect<void, unknown>
  }
>()("@ratings/domain/test-support/ProtocolRating") {}

type Mutable<T> = { -readonly [K in keyof T]?: T[K] }

/**
 * A served item. Each id gets its own first_seen_at a week apart, so items
 * built for feed tests never fall into one another's aggregation window.
 */
export const served = (n: number, overrides: Mutable<Incident> = {}): Incident => ({
  incident_id: uuid(n),
  protocol_name: "Aave V3",
  slug: "aave-v3",
  matched_protocol: true,
  status: "confirmed",
  exploit_class: "REENTRANCY",
  loss_estimate_usd: 1_000_000,
  chain: "ethereum",
  confidence_bps: 9000,
  source_count: 2,
  sources: [{ handle: "blockaid" }, { handle: "peckshield" }],
  detected_at: "2026-08-01T00:00:00+00:00",
  first_seen_at: isoOfMillis(T0 - n * 7 * DAY),
  resolved_at: null,
  resolution: null,
  ...overrides
})

export const VictimAddress = "0x000000000000000000000000000000000000dead"

/** The stored record whose served form is `item`, with a nonce and a victim address of its own. */
export const recordOf = (item: Incident): IncidentRecord => {
  const record: IncidentRecord = {
    incident_id: item.incident_id,
    protocol_name: item.protocol_name,
    chain: item.chain,
    exploit_class: item.exploit_class,
    status: item.status,
    first_seen_at: item.first_seen_at,
    detected_at: item.detected_at,
    slug: item.slug,
    matched_protocol: item.matched_protocol,
    loss_estimate_usd: item.loss_estimate_usd,
    victim_addresses: [VictimAddress],
    confidence_bps: item.confidence_bps,
    nonces: [`secret-nonce-${item.incident_id}`],
    sources: item.sources.map((s) => ({ handle: s.handle, claimed_tier: item.status })),
    resolved_at: item.resolved_at,
    resolution: item.resolution
  }
  const back = toServed(record)
  if (JSON.stringify(back) !== JSON.stringify(item))
    throw new Error(`recordOf does not round-trip ${item.incident_id}`)
  return record
}

let nonceCounter = 0

/** A report about the same Aave V3 hack unless overridden; each call gets a fresh nonce. */
export const report = (
  overrides: Mutable<IncidentReport> & { readonly handle?: string; readonly claimed_tier?: IncidentTier } = {}
): IncidentReport => {
  const { handle, ...rest } = overrides
  nonceCounter += 1
  return {
    nonce: `nonce-${process.pid}-${nonceCounter}`,
    protocol_name: "Aave V3",
    chain: "ethereum",
    exploit_class: "REENTRANCY",
    loss_estimate_usd: 1_000_000,
    victim_addresses: [VictimAddress],
    source: { handle: handle ?? "blockaid" },
    claimed_tier: "rumored",
    first_seen_at: "2026-08-01T00:00:00+00:00",
    ...rest
  }
}

/** Two independent sources claiming the same tier. */
export const pair = (tier: IncidentTier, extra: Parameters<typeof report>[0] = {}) => [
  report({ handle: "blockaid", claimed_tier: tier, ...extra }),
  report({ handle: "peckshield", claimed_tier: tier, ...extra })
]
