/**
 * Builders shared by the incident tests: a valid report with overridable
 * fields, served items, and a lifecycle context with a counting matcher.
 */
import type { LifecycleContext } from "../../src/incidents/IncidentLifecycle.ts"
import {
  makeMatcher,
  type ProtocolMatcher,
  type RatedProtocol
} from "../../src/incidents/IncidentMatching.ts"
import type { Incident, IncidentReport } from "../../src/model/Incident.ts"

export const T0 = Date.parse("2026-08-01T00:00:00Z")
export const HOUR = 60 * 60 * 1000
export const DAY = 24 * HOUR

export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

type Overrides = { -readonly [K in keyof IncidentReport]?: IncidentReport[K] } & { readonly handle?: string }

let nonceCounter = 0

/** A report about the same Aave V3 hack unless overridden; each call gets a fresh nonce. */
export const report = (overrides: Overrides = {}): IncidentReport => {
  const { handle, ...rest } = overrides
  nonceCounter += 1
  return {
    nonce: `nonce-${nonceCounter}`,
    protocol_name: "Aave V3",
    chain: "ethereum",
    exploit_class: "REENTRANCY",
    loss_estimate_usd: 1_000_000,
    victim_addresses: ["0x1111111111111111111111111111111111111111"],
    source: { handle: handle ?? "blockaid" },
    claimed_tier: "rumored",
    first_seen_at: "2026-08-01T00:00:00+00:00",
    ...rest
  }
}

export interface CountingMatcher {
  readonly matcher: ProtocolMatcher
  readonly calls: () => number
  /** Replaces the rated list, as publishing a scorecard would. */
  readonly rate: (rated: ReadonlyArray<RatedProtocol>) => void
}

export const countingMatcher = (initial: ReadonlyArray<RatedProtocol> = []): CountingMatcher => {
  let current = makeMatcher(initial)
  let calls = 0
  return {
    matcher: (name) => {
      calls += 1
      return current(name)
    },
    calls: () => calls,
    rate: (rated) => {
      current = makeMatcher(rated)
    }
  }
}

export const ctx = (
  now: number,
  matcher: ProtocolMatcher = makeMatcher([]),
  incidentId = uuid(1)
): LifecycleContext => ({
  now,
  incidentId,
  matcher
})

/** A served item; only the fields a feed test cares about need overriding. */
export const served = (overrides: { -readonly [K in keyof Incident]?: Incident[K] } = {}): Incident => ({
  incident_id: uuid(1),
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
  first_seen_at: "2026-08-01T00:00:00+00:00",
  resolved_at: null,
  resolution: null,
  ...overrides
})
