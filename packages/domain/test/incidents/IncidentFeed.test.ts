import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  feedPage,
  type IncidentFeedFilter,
  parseSince,
  toFeedFilter
} from "../../src/incidents/IncidentFeed.ts"
import { applyReport, toServed } from "../../src/incidents/IncidentLifecycle.ts"
import { IncidentTiers, rankOf } from "../../src/incidents/IncidentTier.ts"
import {
  type Incident,
  IncidentFeedQuery,
  type IncidentRecord,
  isoOfMillis
} from "../../src/model/Incident.ts"
import { ctx, HOUR, report, served, T0, uuid } from "./IncidentFixtures.ts"

const filter = (overrides: Partial<IncidentFeedFilter> = {}): IncidentFeedFilter => ({
  min_status: "rumored",
  limit: 50,
  offset: 0,
  ...overrides
})

const ids = (items: ReadonlyArray<Incident>) => items.map((i) => i.incident_id)
const at = (hours: number) => isoOfMillis(T0 + hours * HOUR)

describe("IncidentFeed", () => {
  it("returns incidents newest first by detected_at, ties by incident_id", () => {
    const items = [
      served({ incident_id: uuid(1), detected_at: at(1) }),
      served({ incident_id: uuid(2), detected_at: at(3) }),
      served({ incident_id: uuid(4), detected_at: at(2) }),
      served({ incident_id: uuid(3), detected_at: at(2) }),
      // The same instant written with an offset still sorts by the instant.
      served({ incident_id: uuid(5), detected_at: "2026-08-01T04:00:00+02:00" })
    ]
    assert.deepStrictEqual(ids(feedPage(items, filter()).items), [
      uuid(2),
      uuid(3),
      uuid(4),
      uuid(5),
      uuid(1)
    ])
  })

  it("slug is an exact match", () => {
    const items = [
      served({ incident_id: uuid(1), slug: "aave-v3" }),
      served({ incident_id: uuid(2), slug: "aave-v3-fork" }),
      served({ incident_id: uuid(3), slug: "aave" }),
      served({ incident_id: uuid(4), slug: null, matched_protocol: false })
    ]
    assert.deepStrictEqual(ids(feedPage(items, filter({ slug: "aave-v3" })).items), [uuid(1)])
    assert.deepStrictEqual(ids(feedPage(items, filter({ slug: "AAVE-V3" })).items), [])
    assert.deepStrictEqual(ids(feedPage(items, filter({ slug: "aave" })).items), [uuid(3)])
  })

  it("since keeps only incidents detected strictly after it", () => {
    const items = [
      served({ incident_id: uuid(1), detected_at: at(0) }),
      served({ incident_id: uuid(2), detected_at: isoOfMillis(T0 + 1) }),
      served({ incident_id: uuid(3), detected_at: at(-1) })
    ]
    const since = (raw: string) => {
      const f = toFeedFilter({ since: raw, min_status: "rumored", limit: 50, offset: 0 })
      assert.isTrue(Result.isSuccess(f))
      return ids(feedPage(items, (f as Result.Success<IncidentFeedFilter, string>).success).items)
    }
    assert.deepStrictEqual(since("2026-08-01T00:00:00+00:00"), [uuid(2)])
    assert.deepStrictEqual(since("2026-08-01T00:00:00Z"), [uuid(2)])
    assert.deepStrictEqual(since("2026-08-01T02:00:00+02:00"), [uuid(2)])
    assert.deepStrictEqual(since("2026-07-31T22:59:59.999-01:00"), [uuid(2), uuid(1)])
    assert.deepStrictEqual(since("2026-08-01T00:00:00.0005Z"), [uuid(2)])
  })

  it("min_status defaults to confirmed and lists every incident at or above the requested tier", () => {
    const query = Schema.decodeUnknownSync(IncidentFeedQuery)({})
    assert.strictEqual(query.min_status, "confirmed")
    const items = [
      served({ incident_id: uuid(1), status: "rumored", detected_at: at(3) }),
      served({ incident_id: uuid(2), status: "corroborated", detected_at: at(2) }),
      served({ incident_id: uuid(3), status: "confirmed", detected_at: at(1) })
    ]
    const page = (q: IncidentFeedQuery) => {
      const f = toFeedFilter(q)
      return Result.isSuccess(f) ? ids(feedPage(items, f.success).items) : []
    }
    assert.deepStrictEqual(page(query), [uuid(3)])
    assert.deepStrictEqual(page({ ...query, min_status: "corroborated" }), [uuid(2), uuid(3)])
    assert.deepStrictEqual(page({ ...query, min_status: "rumored" }), [uuid(1), uuid(2), uuid(3)])
  })

  it("incidents at unrated protocols are listed, with matched_protocol false and slug null", () => {
    const items = [
      served({ incident_id: uuid(1), detected_at: at(1) }),
      served({ incident_id: uuid(2), slug: null, matched_protocol: false, detected_at: at(2) })
    ]
    const page = feedPage(items, filter({ min_status: "confirmed" }))
    assert.deepStrictEqual(ids(page.items), [uuid(2), uuid(1)])
    assert.isNull(page.items[0]?.slug)
    assert.isFalse(page.items[0]?.matched_protocol)
  })

  it("limit and offset page the filtered list; total counts the whole filtered list", () => {
    const items = Array.from({ length: 7 }, (_, i) =>
      served({ incident_id: uuid(i + 1), detected_at: at(i), status: i % 2 === 0 ? "confirmed" : "rumored" })
    )
    const first = feedPage(items, filter({ min_status: "confirmed", limit: 2, offset: 0 }))
    const second = feedPage(items, filter({ min_status: "confirmed", limit: 2, offset: 2 }))
    const beyond = feedPage(items, filter({ min_status: "confirmed", limit: 2, offset: 4 }))
    assert.deepStrictEqual(ids(first.items), [uuid(7), uuid(5)])
    assert.deepStrictEqual(ids(second.items), [uuid(3), uuid(1)])
    assert.deepStrictEqual(beyond.items, [])
    assert.deepStrictEqual([first.total, second.total, beyond.total], [4, 4, 4])
  })

  it("parseSince rejects an offset whose '+' arrived as a space instead of reading it as something else", () => {
    const spaced = parseSince("2026-08-01T00:00:00 00:00")
    assert.isTrue(Result.isFailure(spaced))
    assert.match((spaced as Result.Failure<number, string>).failure, /%2B/)
    assert.isTrue(Result.isFailure(parseSince("2026-08-01T00:00:00.123 05:30")))
  })

  it("parseSince accepts ISO 8601 date-times with a zone and rejects anything else with a reason", () => {
    assert.deepStrictEqual(parseSince("2026-08-01T00:00:00+00:00"), Result.succeed(T0))
    assert.deepStrictEqual(parseSince("2026-08-01T00:00:00Z"), Result.succeed(T0))
    assert.deepStrictEqual(parseSince("2026-08-01T05:30:00+05:30"), Result.succeed(T0))
    assert.deepStrictEqual(parseSince("2026-07-31T20:00:00.250-04:00"), Result.succeed(T0 + 250))
    for (const bad of [
      "2026-08-01T00:00:00",
      "2026-08-01",
      "2026-08-01 00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-08-01T24:00:00Z",
      "2026-08-01T00:00:00+0000",
      "1754006400",
      "yesterday",
      ""
    ]) {
      const parsed = parseSince(bad)
      assert.isTrue(Result.isFailure(parsed), bad)
      assert.isAbove((parsed as Result.Failure<number, string>).failure.length, 0)
    }
  })

  it("a consumer polling with since and keying on incident_id sees each escalation exactly once", () => {
    // Two incidents escalate through every tier; the consumer polls between each step.
    let aave: IncidentRecord | undefined
    let curve: IncidentRecord | undefined
    let now = T0
    let cursor: string | undefined
    const seen: Array<string> = []
    const poll = () => {
      const items = [aave, curve].flatMap((s) =>
        s === undefined ? [] : [toServed(s)].filter((i) => i !== undefined)
      )
      const f = toFeedFilter({
        min_status: "rumored",
        limit: 200,
        offset: 0,
        ...(cursor === undefined ? {} : { since: cursor })
      })
      assert.isTrue(Result.isSuccess(f))
      const page = feedPage(items, (f as Result.Success<IncidentFeedFilter, string>).success)
      for (const item of page.items) seen.push(`${item.incident_id}:${item.status}`)
      cursor = page.items[0]?.detected_at ?? cursor
    }
    const step = (which: "aave" | "curve", handle: string, claimed_tier: (typeof IncidentTiers)[number]) => {
      now += 1000
      const r = report({ handle, claimed_tier, protocol_name: which === "aave" ? "Aave V3" : "Curve" })
      if (which === "aave") aave = applyReport(aave, r, ctx(now, undefined, uuid(1))).state
      else curve = applyReport(curve, r, ctx(now, undefined, uuid(2))).state
      poll()
    }
    for (const tier of IncidentTiers) {
      step("aave", "blockaid", tier)
      step("curve", "blockaid", tier)
      step("aave", "peckshield", tier)
      step("aave", "certik", "rumored") // absorbed: must not show up again
      step("curve", "peckshield", tier)
      poll() // nothing new
    }
    assert.deepStrictEqual(seen, [
      `${uuid(1)}:rumored`,
      `${uuid(2)}:rumored`,
      `${uuid(1)}:corroborated`,
      `${uuid(2)}:corroborated`,
      `${uuid(1)}:confirmed`,
      `${uuid(2)}:confirmed`
    ])
  })

  it("property: polling with since never shows an escalation twice and never misses the latest tier", () => {
    const arbStep = fc.oneof(
      fc.record({
        kind: fc.constant("report" as const),
        protocol: fc.constantFrom("Aave V3", "Curve", "Euler"),
        handle: fc.constantFrom("blockaid", "peckshield", "certik"),
        claimed_tier: fc.constantFrom(...IncidentTiers),
        advance: fc.integer({ min: 1, max: 5000 })
      }),
      fc.record({ kind: fc.constant("poll" as const), advance: fc.integer({ min: 1, max: 5000 }) })
    )
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 40 }), (steps) => {
        const states = new Map<string, IncidentRecord>()
        let now = T0
        let cursor: string | undefined
        const seen = new Map<string, Array<number>>()
        const poll = () => {
          const items = [...states.values()].flatMap((s) => {
            const item = toServed(s)
            return item === undefined ? [] : [item]
          })
          const page = feedPage(
            items,
            filter(cursor === undefined ? {} : { sinceMillis: Date.parse(cursor) })
          )
          for (const item of page.items) {
            const ranks = seen.get(item.incident_id) ?? []
            assert.isTrue(
              ranks.every((r) => r < rankOf(item.status)),
              "each escalation is seen once, in order"
            )
            seen.set(item.incident_id, [...ranks, rankOf(item.status)])
          }
          cursor = page.items[0]?.detected_at ?? cursor
        }
        for (const s of steps) {
          now += s.advance
          if (s.kind === "poll") poll()
          else {
            const id = uuid(states.size + 1)
            const existing = states.get(s.protocol)
            const r = report({ protocol_name: s.protocol, handle: s.handle, claimed_tier: s.claimed_tier })
            states.set(
              s.protocol,
              applyReport(existing, r, ctx(now, undefined, existing?.incident_id ?? id)).state
            )
          }
        }
        now += 1
        poll()
        for (const state of states.values()) {
          const item = toServed(state)
          const ranks = seen.get(state.incident_id)
          if (item === undefined) assert.isUndefined(ranks)
          else
            assert.strictEqual(
              ranks?.at(-1),
              rankOf(item.status),
              "the latest tier is seen under the same id"
            )
        }
      }),
      { numRuns: 300 }
    )
  })
})
