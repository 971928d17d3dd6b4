import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { applyReports, toServed } from "../../src/incidents/IncidentLifecycle.ts"
import { Incident, IncidentFeedQuery, IncidentRecord, IncidentReport } from "../../src/model/Incident.ts"
import { ctx, report, T0 } from "./IncidentFixtures.ts"

const decodes = <S extends Schema.Decoder<unknown>>(schema: S, input: unknown): boolean =>
  Result.isSuccess(Schema.decodeUnknownResult(schema)(input))

describe("Incident model", () => {
  it("the served item has exactly the api-facts incident fields", () => {
    assert.sameMembers(Object.keys(Incident.fields), [
      "incident_id",
      "protocol_name",
      "slug",
      "matched_protocol",
      "status",
      "exploit_class",
      "loss_estimate_usd",
      "chain",
      "confidence_bps",
      "source_count",
      "sources",
      "detected_at",
      "first_seen_at",
      "resolved_at",
      "resolution"
    ])
  })

  it("the ingest nonce and victim addresses are stored but never served", () => {
    assert.includeMembers(Object.keys(IncidentRecord.fields), ["nonces", "victim_addresses"])
    for (const key of Object.keys(Incident.fields)) assert.notMatch(key, /nonce|victim/)

    const state = applyReports(undefined, [report({ handle: "a" }), report({ handle: "b" })], ctx(T0))!
    const item = toServed(state)!
    // Even a record passed whole to the served schema comes out without them.
    const encoded = Schema.encodeUnknownSync(Incident)({
      ...item,
      nonces: state.nonces,
      victim_addresses: ["0x1"]
    })
    assert.notProperty(encoded, "nonces")
    assert.notProperty(encoded, "victim_addresses")
    assert.deepStrictEqual(encoded, item)
  })

  it("records built by the lifecycle decode with the stored-record schema", () => {
    const state = applyReports(undefined, [report({ handle: "a" }), report({ handle: "b" })], ctx(T0))!
    assert.deepStrictEqual(Schema.decodeUnknownSync(IncidentRecord)(state), state)
  })

  it("a report needs an upper-case exploit class, a zoned first_seen_at, a non-negative loss and confidence in 0..10000", () => {
    assert.isTrue(decodes(IncidentReport, report()))
    assert.isTrue(decodes(IncidentReport, { ...report(), confidence_bps: 10_000, loss_estimate_usd: null }))
    assert.isFalse(decodes(IncidentReport, { ...report(), exploit_class: "reentrancy" }))
    assert.isFalse(decodes(IncidentReport, { ...report(), first_seen_at: "2026-08-01T00:00:00" }))
    assert.isFalse(decodes(IncidentReport, { ...report(), loss_estimate_usd: -1 }))
    assert.isFalse(decodes(IncidentReport, { ...report(), confidence_bps: 10_001 }))
    assert.isFalse(decodes(IncidentReport, { ...report(), claimed_tier: "certain" }))
    assert.isFalse(decodes(IncidentReport, { ...report(), source: { handle: " @ " } }))
    assert.isFalse(decodes(IncidentReport, { ...report(), protocol_name: "--" }))
    assert.isFalse(decodes(IncidentReport, { ...report(), nonce: "" }))
  })

  it("feed query: min_status defaults to confirmed, limit to 50 (1 to 200), offset to 0 (not below 0)", () => {
    assert.deepStrictEqual(Schema.decodeUnknownSync(IncidentFeedQuery)({}), {
      min_status: "confirmed",
      limit: 50,
      offset: 0
    })
    assert.isTrue(
      decodes(IncidentFeedQuery, { limit: 200, offset: 10, min_status: "rumored", slug: "aave-v3" })
    )
    assert.isFalse(decodes(IncidentFeedQuery, { limit: 201 }))
    assert.isFalse(decodes(IncidentFeedQuery, { limit: 0 }))
    assert.isFalse(decodes(IncidentFeedQuery, { offset: -1 }))
    assert.isFalse(decodes(IncidentFeedQuery, { min_status: "high" }))
  })

  it("feed query: since must be a zoned ISO 8601 date-time; a '+' that arrived as a space fails validation", () => {
    assert.isTrue(decodes(IncidentFeedQuery, { since: "2026-08-01T00:00:00+00:00" }))
    assert.isTrue(decodes(IncidentFeedQuery, { since: "2026-08-01T00:00:00Z" }))
    const spaced = Schema.decodeUnknownResult(IncidentFeedQuery)({ since: "2026-08-01T00:00:00 00:00" })
    assert.isTrue(Result.isFailure(spaced))
    assert.match(String((spaced as Result.Failure<unknown, { message: string }>).failure.message), /%2B/)
  })
})
