/**
 * Builders shared by the incident tests: a valid report with overridable
 * fields and the time constants (both the incident contracts' own, from
 * support/contract), served items, and a lifecycle context with a counting
 * matcher.
 */
import type { LifecycleContext } from "../../src/incidents/IncidentLifecycle.ts"
import {
  makeMatcher,
  type ProtocolMatcher,
  type RatedProtocol
} from "../../src/incidents/IncidentMatching.ts"
import type { Incident } from "../../src/model/Incident.ts"
import { uuid } from "../support/contract/events-incident-fixtures.ts"

/** The incident contracts' own: the hour constants, ids, and a report about the Aave V3 hack. */
export { DAY, HOUR, report, T0, uuid } from "../support/contract/events-incident-fixtures.ts"

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
