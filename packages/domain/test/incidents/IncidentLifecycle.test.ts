import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  AggregationWindowMillis,
  aggregationKey,
  applyReport,
  applyReports,
  belongsTo,
  selectIncident,
  toServed
} from "../../src/incidents/IncidentLifecycle.ts"
import { IncidentTiers, rankOf } from "../../src/incidents/IncidentTier.ts"
import { type IncidentRecord, type IncidentReport, isoOfMillis } from "../../src/model/Incident.ts"
import { countingMatcher, ctx, DAY, HOUR, report, T0, uuid } from "./IncidentFixtures.ts"

const mustState = (state: IncidentRecord | undefined): IncidentRecord => {
  assert.isDefined(state)
  return state as IncidentRecord
}

/** Rumored from two sources at T0, so the incident is served. */
const rumoredPair = (at = T0) => {
  const first = applyReport(undefined, report({ handle: "blockaid" }), ctx(at))
  return applyReport(first.state, report({ handle: "peckshield" }), ctx(at))
}

describe("IncidentLifecycle", () => {
  it("at every served tier at least two independent sources are required; nothing single-sourced is served", () => {
    for (const tier of IncidentTiers) {
      const one = applyReport(undefined, report({ handle: "blockaid", claimed_tier: tier }), ctx(T0))
      assert.strictEqual(one.outcome, "created")
      assert.isNull(one.state.status)
      assert.isUndefined(toServed(one.state), `single source at ${tier}`)

      const two = applyReport(one.state, report({ handle: "peckshield", claimed_tier: tier }), ctx(T0))
      assert.strictEqual(two.state.status, tier)
      assert.strictEqual(toServed(two.state)?.status, tier)
    }
    // One source says confirmed, the other only rumored: confirmed is single-sourced, so rumored is served.
    const mixed = applyReports(
      undefined,
      [report({ handle: "blockaid", claimed_tier: "confirmed" }), report({ handle: "peckshield" })],
      ctx(T0)
    )
    assert.strictEqual(toServed(mustState(mixed))?.status, "rumored")
  })

  it("the same source reporting twice does not make two sources", () => {
    const state = applyReports(
      undefined,
      [
        report({ handle: "blockaid", claimed_tier: "confirmed" }),
        report({ handle: "@BlockAid", claimed_tier: "confirmed" }),
        report({ handle: " blockaid ", claimed_tier: "confirmed" })
      ],
      ctx(T0)
    )
    assert.isNull(mustState(state).status)
    assert.isUndefined(toServed(mustState(state)))
    assert.strictEqual(mustState(state).sources.length, 1)
  })

  it("the tier never goes down: a rumored report after confirmed leaves it confirmed", () => {
    const confirmed = applyReports(
      undefined,
      [
        report({ handle: "blockaid", claimed_tier: "confirmed" }),
        report({ handle: "peckshield", claimed_tier: "confirmed" })
      ],
      ctx(T0)
    )
    assert.strictEqual(mustState(confirmed).status, "confirmed")
    const later = applyReport(
      confirmed,
      report({ handle: "certik", claimed_tier: "rumored" }),
      ctx(T0 + HOUR)
    )
    assert.strictEqual(later.outcome, "absorbed")
    assert.strictEqual(later.state.status, "confirmed")
    assert.strictEqual(toServed(later.state)?.status, "confirmed")
  })

  it("escalation keeps the same incident_id", () => {
    const rumored = rumoredPair()
    const escalated = applyReports(
      rumored.state,
      [
        report({ handle: "blockaid", claimed_tier: "confirmed" }),
        report({ handle: "peckshield", claimed_tier: "confirmed" })
      ],
      ctx(T0 + HOUR, undefined, uuid(99))
    )
    assert.strictEqual(mustState(escalated).status, "confirmed")
    assert.strictEqual(mustState(escalated).incident_id, rumored.state.incident_id)
    assert.strictEqual(toServed(mustState(escalated))?.incident_id, uuid(1))
  })

  it("escalation keeps first_seen_at: it is when first reported and does not move", () => {
    const rumored = rumoredPair()
    const escalated = applyReports(
      rumored.state,
      [
        report({ handle: "blockaid", claimed_tier: "corroborated", first_seen_at: "2026-07-31T20:00:00Z" }),
        report({ handle: "peckshield", claimed_tier: "corroborated", first_seen_at: "2026-08-01T05:00:00Z" })
      ],
      ctx(T0 + HOUR)
    )
    assert.strictEqual(mustState(escalated).status, "corroborated")
    assert.strictEqual(mustState(escalated).first_seen_at, "2026-08-01T00:00:00+00:00")
  })

  it("a source's date-times are kept and served in the wire form (+00:00, six-digit fraction), whatever zone it sent", () => {
    const first = applyReport(
      undefined,
      report({ handle: "blockaid", first_seen_at: "2026-08-01T02:00:00.5+02:00" }),
      ctx(T0 + 250)
    )
    assert.strictEqual(first.state.first_seen_at, "2026-08-01T00:00:00.500000+00:00")
    const second = applyReport(
      first.state,
      report({
        handle: "peckshield",
        resolved_at: "2026-08-02T12:00:00.1234567Z",
        resolution: "funds returned"
      }),
      ctx(T0 + 250)
    )
    const served = toServed(second.state)
    assert.strictEqual(served?.first_seen_at, "2026-08-01T00:00:00.500000+00:00")
    assert.strictEqual(served?.resolved_at, "2026-08-02T12:00:00.123456+00:00")
    assert.strictEqual(served?.detected_at, "2026-08-01T00:00:00.250000+00:00")
    const corrected = applyReport(
      second.state,
      report({ handle: "hacken", resolved_at: "2026-08-02T09:00:00-05:00" }),
      ctx(T0 + HOUR)
    )
    assert.strictEqual(corrected.state.resolved_at, "2026-08-02T14:00:00+00:00")
  })

  it("escalation refreshes detected_at; a report that does not escalate leaves it alone", () => {
    const rumored = rumoredPair(T0)
    assert.strictEqual(rumored.outcome, "escalated")
    assert.strictEqual(rumored.state.detected_at, isoOfMillis(T0))

    const absorbed = applyReport(rumored.state, report({ handle: "certik" }), ctx(T0 + HOUR))
    assert.strictEqual(absorbed.outcome, "absorbed")
    assert.strictEqual(absorbed.state.detected_at, isoOfMillis(T0))

    const first = applyReport(
      absorbed.state,
      report({ handle: "blockaid", claimed_tier: "corroborated" }),
      ctx(T0 + 2 * HOUR)
    )
    assert.strictEqual(first.outcome, "absorbed")
    const escalated = applyReport(
      first.state,
      report({ handle: "certik", claimed_tier: "corroborated" }),
      ctx(T0 + 3 * HOUR)
    )
    assert.strictEqual(escalated.outcome, "escalated")
    assert.strictEqual(escalated.state.detected_at, isoOfMillis(T0 + 3 * HOUR))
  })

  it("detected_at on escalation is strictly later than before, even within the same millisecond", () => {
    const rumored = rumoredPair(T0)
    const escalated = applyReports(
      rumored.state,
      [
        report({ handle: "blockaid", claimed_tier: "confirmed" }),
        report({ handle: "peckshield", claimed_tier: "confirmed" })
      ],
      ctx(T0)
    )
    assert.strictEqual(mustState(escalated).detected_at, isoOfMillis(T0 + 1))
  })

  it("matching to a rated protocol re-runs on escalation", () => {
    const m = countingMatcher()
    const rumored = applyReports(
      undefined,
      [report({ handle: "blockaid" }), report({ handle: "peckshield" })],
      ctx(T0, m.matcher)
    )
    assert.isFalse(mustState(rumored).matched_protocol)
    assert.isNull(mustState(rumored).slug)

    m.rate([{ slug: "aave-v3", name: "Aave V3" }])
    const escalated = applyReports(
      rumored,
      [
        report({ handle: "blockaid", claimed_tier: "corroborated" }),
        report({ handle: "peckshield", claimed_tier: "corroborated" })
      ],
      ctx(T0 + HOUR, m.matcher)
    )
    assert.strictEqual(mustState(escalated).status, "corroborated")
    assert.isTrue(toServed(mustState(escalated))?.matched_protocol)
    assert.strictEqual(toServed(mustState(escalated))?.slug, "aave-v3")
  })

  it("an incident stored before its protocol was rated is not re-matched merely because coverage grew", () => {
    const m = countingMatcher()
    const rumored = applyReports(
      undefined,
      [report({ handle: "blockaid" }), report({ handle: "peckshield" })],
      ctx(T0, m.matcher)
    )
    const callsBefore = m.calls()

    m.rate([{ slug: "aave-v3", name: "Aave V3" }])
    const absorbed = applyReports(
      rumored,
      [report({ handle: "certik" }), report({ handle: "blockaid", claimed_tier: "confirmed" })],
      ctx(T0 + HOUR, m.matcher)
    )
    assert.strictEqual(mustState(absorbed).status, "rumored")
    assert.strictEqual(m.calls(), callsBefore)
    assert.isFalse(toServed(mustState(absorbed))?.matched_protocol)
    assert.isNull(toServed(mustState(absorbed))?.slug)
  })

  it("a report whose ingest nonce was already seen changes nothing", () => {
    const rumored = rumoredPair()
    const replay = {
      ...report({ handle: "certik", claimed_tier: "confirmed", loss_estimate_usd: 9e9 }),
      nonce: rumored.state.nonces[0]!
    }
    const again = applyReport(rumored.state, replay, ctx(T0 + DAY))
    assert.strictEqual(again.outcome, "duplicate")
    assert.strictEqual(again.state, rumored.state)
  })

  it("the ingest nonce and victim addresses are stored but never served", () => {
    const r = report({ handle: "blockaid", victim_addresses: ["0xaaaa", "0xbbbb"] })
    const state = applyReports(
      undefined,
      [r, report({ handle: "peckshield", victim_addresses: ["0xbbbb", "0xcccc"] })],
      ctx(T0)
    )
    assert.include(mustState(state).nonces, r.nonce)
    assert.deepStrictEqual(mustState(state).victim_addresses, ["0xaaaa", "0xbbbb", "0xcccc"])

    const item = toServed(mustState(state))
    assert.isDefined(item)
    const text = JSON.stringify(item)
    for (const secret of [r.nonce, "0xaaaa", "0xbbbb", "0xcccc", "nonce", "victim"]) {
      assert.notInclude(text, secret)
    }
  })

  it("a served item carries every api-facts field, with sources as {handle} and source_count", () => {
    const state = applyReports(
      undefined,
      [
        report({ handle: "@BlockAid", loss_estimate_usd: 5, confidence_bps: 4000 }),
        report({ handle: "peckshield", loss_estimate_usd: 7, chain: "ethereum" })
      ],
      ctx(T0, countingMatcher([{ slug: "aave-v3", name: "Aave V3" }]).matcher)
    )
    assert.deepStrictEqual(toServed(mustState(state)), {
      incident_id: uuid(1),
      protocol_name: "Aave V3",
      slug: "aave-v3",
      matched_protocol: true,
      status: "rumored",
      exploit_class: "REENTRANCY",
      loss_estimate_usd: 7,
      chain: "ethereum",
      confidence_bps: 4000,
      source_count: 2,
      sources: [{ handle: "blockaid" }, { handle: "peckshield" }],
      detected_at: isoOfMillis(T0),
      first_seen_at: "2026-08-01T00:00:00+00:00",
      resolved_at: null,
      resolution: null
    })
  })

  it("reports about one hack aggregate into one incident: same protocol, chain and exploit class, within 72 hours", () => {
    const created = applyReport(undefined, report(), ctx(T0)).state
    assert.strictEqual(aggregationKey(report({ protocol_name: "aave-v3" })), aggregationKey(created))
    assert.isTrue(
      belongsTo(created, report({ protocol_name: "AAVE v3", first_seen_at: isoOfMillis(T0 + 71 * HOUR) }))
    )
    assert.isTrue(belongsTo(created, report({ first_seen_at: isoOfMillis(T0 - AggregationWindowMillis) })))
    assert.isFalse(belongsTo(created, report({ chain: "arbitrum" })))
    assert.isFalse(belongsTo(created, report({ chain: null })))
    assert.isFalse(belongsTo(created, report({ exploit_class: "ORACLE_MANIPULATION" })))
    assert.isFalse(belongsTo(created, report({ protocol_name: "Aave V2" })))
  })

  it("the same protocol hacked twice a month apart is two incidents", () => {
    const june = applyReport(
      undefined,
      report({ first_seen_at: "2026-07-01T00:00:00Z" }),
      ctx(T0, undefined, uuid(1))
    ).state
    const august = applyReport(undefined, report(), ctx(T0, undefined, uuid(2))).state
    assert.isFalse(belongsTo(june, report()))
    assert.strictEqual(
      selectIncident([june, august], report({ first_seen_at: "2026-08-02T00:00:00Z" }))?.incident_id,
      uuid(2)
    )
    assert.strictEqual(
      selectIncident([june, august], report({ first_seen_at: "2026-07-02T00:00:00Z" }))?.incident_id,
      uuid(1)
    )
    assert.isUndefined(selectIncident([june, august], report({ first_seen_at: "2026-07-15T00:00:00Z" })))
  })

  // -------------------------------------------------------------------------
  // Property: any sequence of reports about one hack

  const handles = ["blockaid", "@BlockAid", "peckshield", "certik", " CERTIK"]
  const normal = (h: string) => h.trim().toLowerCase().replace(/^@+/, "")

  const arbReport: fc.Arbitrary<IncidentReport> = fc
    .record({
      nonce: fc.constantFrom("n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"),
      handle: fc.constantFrom(...handles),
      claimed_tier: fc.constantFrom(...IncidentTiers),
      shift: fc.integer({ min: -48, max: 48 }),
      loss: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: null })
    })
    .map(({ nonce, handle, claimed_tier, shift, loss }) => ({
      ...report({
        handle,
        claimed_tier,
        loss_estimate_usd: loss,
        first_seen_at: isoOfMillis(T0 + shift * HOUR)
      }),
      nonce
    }))

  it("property: the served tier never falls, incident_id and first_seen_at never change, nothing single-sourced is served", () => {
    fc.assert(
      fc.property(
        fc.array(arbReport, { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: -2 * HOUR, max: 2 * HOUR }), { minLength: 25, maxLength: 25 }),
        (reports, clockSteps) => {
          let state: IncidentRecord | undefined
          let now = T0
          const seenNonces = new Set<string>()
          // Independent model of the claims: first report per nonce wins, strongest tier per source.
          const claims = new Map<string, number>()
          for (const [i, r] of reports.entries()) {
            now += clockSteps[i] ?? 0
            const before = state
            const applied = applyReport(state, r, ctx(now, undefined, uuid(i + 1)))
            state = applied.state

            if (before === undefined) assert.strictEqual(applied.outcome, "created")
            else if (seenNonces.has(r.nonce)) {
              assert.strictEqual(applied.outcome, "duplicate")
              assert.strictEqual(state, before)
            }
            if (!seenNonces.has(r.nonce)) {
              seenNonces.add(r.nonce)
              const h = normal(r.source.handle)
              claims.set(h, Math.max(claims.get(h) ?? -1, rankOf(r.claimed_tier)))
            }

            if (before !== undefined) {
              assert.isTrue(rankOf(state.status) >= rankOf(before.status), "tier never falls")
              assert.strictEqual(state.incident_id, before.incident_id)
              assert.strictEqual(state.first_seen_at, before.first_seen_at)
              if (applied.outcome === "escalated") {
                assert.isTrue(
                  before.detected_at === null ||
                    Date.parse(state.detected_at!) > Date.parse(before.detected_at)
                )
              } else {
                assert.strictEqual(state.detected_at, before.detected_at)
              }
            }

            // Served exactly when two independent sources exist, at the highest tier two of them claim.
            const ranks = [...claims.values()].sort((x, y) => y - x)
            const item = toServed(state)
            assert.strictEqual(item === undefined, ranks.length < 2, "served iff two independent sources")
            if (item !== undefined) assert.strictEqual(rankOf(item.status), ranks[1])
          }
          assert.strictEqual(state?.incident_id, uuid(1))
          assert.strictEqual(state?.first_seen_at, reports[0]!.first_seen_at)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("property: the final tier of a set of distinct reports does not depend on the order they arrive in", () => {
    const distinct = fc.uniqueArray(arbReport, { minLength: 1, maxLength: 10, selector: (r) => r.nonce })
    fc.assert(
      fc.property(
        distinct.chain((rs) =>
          fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length }))
        ),
        ([inOrder, shuffled]) => {
          const a = applyReports(undefined, inOrder, ctx(T0))
          const b = applyReports(undefined, shuffled, ctx(T0))
          assert.strictEqual(a?.status, b?.status)
          assert.strictEqual(toServed(mustState(a)) === undefined, toServed(mustState(b)) === undefined)
        }
      ),
      { numRuns: 300 }
    )
  })
})
