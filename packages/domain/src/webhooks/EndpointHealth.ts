/**
 * Endpoint health, as delivery services (Svix, Stripe) keep it: an endpoint
 * whose every attempt failed for a set period is disabled, and a delivered
 * attempt ends a failing run. Pure: attempts are summed up per rule
 * (`observe`), and `nextHealth` gives a rule's health after one summary;
 * both outbox backends apply exactly this (Postgres in one statement).
 */
import { type AlertRuleHealth, HealthyEndpoint } from "../model/AlertRule.ts"
import { isoOf, millisOf } from "../model/Delivery.ts"

/** The default period of failures after which an endpoint is disabled: 5 days. */
export const DefaultDisableAfterMs = 5 * 24 * 3_600_000

/** The reason a disabled rule shows, for a run of failures of `disableAfterMs`. */
export const disabledReason = (disableAfterMs: number): string =>
  `every delivery attempt failed for ${formatPeriod(disableAfterMs)}; enable the rule once the endpoint works`

const formatPeriod = (ms: number): string => {
  const units: ReadonlyArray<readonly [number, string]> = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1_000, "second"]
  ]
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? "" : "s"}`
  }
  return `${ms} ms`
}

/** One attempt as health sees it: its rule, when it started, and whether it delivered. */
export interface AttemptSeen {
  readonly rule_id: string
  readonly at: number
  readonly delivered: boolean
}

/** What a batch of attempts showed of one rule's endpoint (epoch ms). */
export interface EndpointObservation {
  readonly rule_id: string
  /** Whether an attempt of the batch delivered: the failing run before it ends. */
  readonly delivered: boolean
  /** The first failed attempt after the batch's last delivered one, if any. */
  readonly failing_from: number | null
  /** The batch's last failed attempt, if any failed after the last delivered one. */
  readonly last_failure: number | null
}

/** Sums up attempts per rule, in time order; rules appear in the order first seen. */
export const observe = (attempts: ReadonlyArray<AttemptSeen>): ReadonlyArray<EndpointObservation> => {
  const byRule = new Map<
    string,
    { delivered: boolean; failing_from: number | null; last_failure: number | null }
  >()
  for (const seen of [...attempts].sort((a, b) => a.at - b.at)) {
    const o = byRule.get(seen.rule_id) ?? { delivered: false, failing_from: null, last_failure: null }
    if (seen.delivered) {
      o.delivered = true
      o.failing_from = null
      o.last_failure = null
    } else {
      o.failing_from ??= seen.at
      o.last_failure = seen.at
    }
    byRule.set(seen.rule_id, o)
  }
  return [...byRule].map(([rule_id, o]) => ({ rule_id, ...o }))
}

/**
 * A rule's health after an observation: a delivery ends the failing run
 * (the failures after it start a new one); a failure starts a run or
 * extends it; a run whose last failure is `disableAfterMs` or more after its
 * start disables the endpoint, at that failure. Disabled stays disabled.
 */
export const nextHealth = (
  health: AlertRuleHealth,
  observation: EndpointObservation,
  disableAfterMs: number,
  reason: string
): AlertRuleHealth => {
  const since =
    observation.delivered || health.failing_since === null
      ? observation.failing_from
      : millisOf(health.failing_since)
  const failing_since = since === null ? null : isoOf(since)
  if (health.disabled) return { ...health, failing_since }
  const last = observation.last_failure
  if (since !== null && last !== null && last - since >= disableAfterMs) {
    return { disabled: true, disabled_at: isoOf(last), disabled_reason: reason, failing_since }
  }
  return { ...HealthyEndpoint, failing_since }
}
