import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  isUsableReading,
  QuantumChainReading,
  QuantumChainResponse,
  QuantumLeagueResponse,
  QuantumLeagueTable,
  QuantumRow,
  QuantumUnavailable
} from "../../src/model/Quantum.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

const attribution = {
  source: "LayerQu",
  source_url: "https://layerqu.com/dashboard/",
  attribution: "Post-quantum readiness data: LayerQu (layerqu.com)"
}

/** The api-facts league-table row, verbatim. */
const ethereum = {
  slug: "ethereum",
  name: "Ethereum",
  profile: "L1",
  qri: 25,
  band: 2,
  band_label: "Acknowledged",
  stage: 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5,
  matched_chain_slug: "ethereum"
}
const unmatched = {
  ...ethereum,
  slug: "qrl",
  name: "QRL",
  qri: 91.5,
  band: 7,
  stage: 5,
  hybrid: "PASS",
  danger: null,
  matched_chain_slug: null
}

const table = {
  available: true,
  ...attribution,
  as_of: "2026-08-01T06:00:00Z",
  rows: [ethereum, unmatched],
  rows_skipped: 1
}

const { slug: _slug, name: _name, profile: _profile, matched_chain_slug: _m, ...reading } = ethereum
const single = {
  available: true,
  chain_slug: "ethereum",
  ...reading,
  ...attribution,
  as_of: "2026-08-01T06:00:00Z"
}
const unavailable = { available: false, reason: "not assessed by source", ...attribution }

describe("Quantum readiness", () => {
  it("a league-table row round-trips, including danger null (the source may stop publishing it)", () => {
    roundTrip(QuantumRow, ethereum)
    roundTrip(QuantumRow, unmatched)
    roundTrip(QuantumRow, { ...ethereum, qri: null, band: null, band_label: null, stage: null, ci: null })
  })

  it("matched_chain_slug is the service chain slug when the chain exists in the service, else null", () => {
    failure(QuantumRow, { ...ethereum, matched_chain_slug: "Ethereum Mainnet" })
    failure(QuantumRow, { ...ethereum, matched_chain_slug: undefined })
  })

  it("band is an integer 1 to 7, stage an integer 0 to 5, qri 0 to 100", () => {
    for (const band of [0, 8, 2.5]) failure(QuantumRow, { ...ethereum, band })
    for (const stage of [-1, 6, 1.5]) failure(QuantumRow, { ...ethereum, stage })
    for (const qri of [-0.1, 100.1]) failure(QuantumRow, { ...ethereum, qri })
    roundTrip(QuantumRow, { ...ethereum, band: 1, stage: 0, qri: 0 })
    roundTrip(QuantumRow, { ...ethereum, band: 7, stage: 5, qri: 100 })
  })

  it("the league table round-trips with as_of, attribution and rows_skipped", () => {
    roundTrip(QuantumLeagueTable, table)
    roundTrip(QuantumLeagueResponse, table)
    failure(QuantumLeagueTable, { ...table, rows_skipped: -1 })
  })

  it("every available payload carries as_of (snapshot time)", () => {
    const { as_of: _a, ...noAsOf } = table
    assert.include(failure(QuantumLeagueTable, noAsOf), "as_of")
    const { as_of: _b, ...singleNoAsOf } = single
    assert.include(failure(QuantumChainReading, singleNoAsOf), "as_of")
  })

  it("stale: true appears only when an expired snapshot is served; otherwise the key is absent", () => {
    roundTrip(QuantumLeagueTable, { ...table, stale: true })
    roundTrip(QuantumChainReading, { ...single, stale: true })
    failure(QuantumLeagueTable, { ...table, stale: false })
    failure(QuantumChainReading, { ...single, stale: false })
  })

  it("every payload carries attribution to the third-party source", () => {
    for (const key of ["source", "source_url", "attribution"] as const) {
      const { [key]: _dropped, ...rest } = unavailable
      failure(QuantumUnavailable, rest)
      const { [key]: _d2, ...tableRest } = table
      failure(QuantumLeagueTable, tableRest)
    }
  })

  it("one chain by service chain slug round-trips", () => {
    roundTrip(QuantumChainReading, single)
    roundTrip(QuantumChainResponse, single)
  })

  it("unknown and unassessed chains return available: false with a reason", () => {
    roundTrip(QuantumUnavailable, unavailable)
    roundTrip(QuantumChainResponse, unavailable)
    roundTrip(QuantumLeagueResponse, { ...unavailable, reason: "source unreachable" })
    failure(QuantumChainResponse, { available: false, ...attribution })
    failure(QuantumChainResponse, { ...unavailable, available: true })
  })

  it("a reading is usable only when qri, band and stage are non-null", () => {
    assert.isTrue(isUsableReading(ethereum))
    assert.isTrue(isUsableReading({ ...ethereum, danger: null, ci: null }))
    assert.isFalse(isUsableReading({ ...ethereum, qri: null }))
    assert.isFalse(isUsableReading({ ...ethereum, band: null }))
    assert.isFalse(isUsableReading({ ...ethereum, stage: null }))
    assert.isTrue(isUsableReading({ ...ethereum, stage: 0 }))
  })
})
