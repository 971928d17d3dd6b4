import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { QuantumChainResponse, QuantumLeagueResponse } from "../../src/model/Quantum.ts"
import {
  attributionOf,
  chainReading,
  isStale,
  leagueTable,
  QuantumUnavailableReason,
  type ReadinessState
} from "../../src/quantum/QuantumReadiness.ts"
import { matchRows, readRows } from "../../src/quantum/QuantumRows.ts"
import { makeSnapshot, type QuantumRefreshOutcome, toIso } from "../../src/quantum/QuantumSnapshot.ts"
import { chains, goodRows } from "./QuantumFixtures.ts"

const HOUR = 3_600_000
const fetchedAt = Date.parse("2026-08-01T00:00:00.000Z")
const read = readRows([...goodRows, "junk"])
const snapshot = makeSnapshot(
  { rows: matchRows(read.rows, chains), rows_skipped: read.rows_skipped },
  { now: fetchedAt, ttlMillis: 24 * HOUR }
)
const sampleSnapshot = { ...snapshot, sample: true }

const failedAt = (millis: number): QuantumRefreshOutcome => ({
  at: toIso(millis),
  ok: false,
  error: "timeout"
})
const okAt = (millis: number): QuantumRefreshOutcome => ({ at: toIso(millis), ok: true })

const fresh: ReadinessState = { snapshot, lastOutcome: okAt(fetchedAt), now: fetchedAt + HOUR }
const expiredAfterFailure: ReadinessState = {
  snapshot,
  lastOutcome: failedAt(fetchedAt + 25 * HOUR),
  now: fetchedAt + 25 * HOUR
}
const nothing: ReadinessState = { snapshot: undefined, lastOutcome: failedAt(fetchedAt), now: fetchedAt }

const known = (slug: string) => ({ slug, known: chains.some((c) => c.slug === slug) })

const chainPayloads = (state: ReadinessState) =>
  ["ethereum", "solana", "tron", "base", "no-such-chain"].map((slug) => chainReading(state, known(slug)))

/** Every payload kind the pure builders produce, for rules that hold on all of them. */
const everyPayload = (state: ReadinessState) => [leagueTable(state), ...chainPayloads(state)]
const states = [fresh, expiredAfterFailure, nothing, { ...fresh, snapshot: sampleSnapshot }]

describe("QuantumReadiness", () => {
  it("the league table serves every matched row, rows_skipped and the snapshot time", () => {
    const table = leagueTable(fresh)
    assert.isTrue(table.available)
    if (!table.available) return
    assert.strictEqual(table.as_of, "2026-08-01T00:00:00+00:00")
    assert.strictEqual(table.rows_skipped, 1)
    assert.deepStrictEqual(
      table.rows.map((r) => [r.slug, r.matched_chain_slug]),
      [
        ["ethereum", "ethereum"],
        ["solana", "solana"],
        ["arb1", "arbitrum-one"],
        ["tron", "tron"]
      ]
    )
    assert.isTrue(Schema.is(QuantumLeagueResponse)(table))
  })

  it("every available payload carries as_of (snapshot time)", () => {
    for (const state of states) {
      for (const payload of everyPayload(state)) {
        if (payload.available) assert.strictEqual(payload.as_of, snapshot.as_of)
      }
    }
    assert.isTrue(chainReading(fresh, known("ethereum")).available)
  })

  it("stale: true appears only when an upstream refresh failed and an expired snapshot is served", () => {
    const expiredAt = fetchedAt + 24 * HOUR
    const cases: ReadonlyArray<[string, ReadinessState, boolean]> = [
      ["fresh, last refresh ok", fresh, false],
      [
        "fresh, last refresh failed",
        { snapshot, lastOutcome: failedAt(fetchedAt + HOUR), now: fetchedAt + HOUR },
        false
      ],
      ["expired, refresh never tried", { snapshot, lastOutcome: undefined, now: expiredAt }, false],
      ["expired, last refresh ok", { snapshot, lastOutcome: okAt(fetchedAt), now: expiredAt }, false],
      [
        "expired, a failure from before this snapshot",
        { snapshot, lastOutcome: failedAt(fetchedAt - 1), now: expiredAt },
        false
      ],
      [
        "expired, refresh failed before expiry",
        { snapshot, lastOutcome: failedAt(fetchedAt + HOUR), now: expiredAt },
        true
      ],
      ["expired, refresh failed after expiry", expiredAfterFailure, true]
    ]
    for (const [name, state, stale] of cases) {
      assert.strictEqual(isStale(state), stale, name)
      for (const payload of everyPayload(state)) {
        if (!payload.available) {
          assert.isFalse("stale" in payload, name)
        } else if (stale) {
          assert.strictEqual(payload.stale, true, name)
        } else {
          assert.isFalse("stale" in payload, `${name}: stale is absent, not false`)
        }
      }
    }
  })

  it("stale holds exactly when the snapshot has expired and a refresh after its fetch failed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 48 * HOUR }),
        fc.option(fc.record({ offset: fc.integer({ min: -HOUR, max: 48 * HOUR }), ok: fc.boolean() })),
        (elapsed, attempt) => {
          const lastOutcome =
            attempt === null ? undefined : (attempt.ok ? okAt : failedAt)(fetchedAt + attempt.offset)
          const state = { snapshot, lastOutcome, now: fetchedAt + elapsed }
          const expected = elapsed >= 24 * HOUR && attempt !== null && !attempt.ok && attempt.offset >= 0
          assert.strictEqual(isStale(state), expected)
        }
      )
    )
  })

  it("available: false with a reason means nothing could be served", () => {
    assert.deepStrictEqual(leagueTable(nothing), {
      available: false,
      reason: QuantumUnavailableReason.SourceUnreachable,
      ...attributionOf(undefined)
    })
    assert.strictEqual(chainReading(nothing, known("ethereum")).available, false)
    const reading = chainReading(nothing, known("ethereum"))
    assert.strictEqual(!reading.available && reading.reason, "source unreachable")
  })

  it("unknown chains return HTTP 200 with available: false and a reason", () => {
    for (const state of [fresh, nothing]) {
      const reading = chainReading(state, known("no-such-chain"))
      assert.isFalse(reading.available)
      assert.strictEqual(!reading.available && reading.reason, "unknown chain")
    }
    // The source's own slug is not a service slug: lookups go by service chain slug only.
    assert.strictEqual(chainReading(fresh, known("arb1")).available, false)
    assert.strictEqual(chainReading(fresh, known("arbitrum-one")).available, true)
  })

  it("chains the source has not assessed return HTTP 200 with available: false and a reason", () => {
    // base: in the service, absent from the source; tron: listed without qri, band and stage.
    for (const slug of ["base", "tron"]) {
      const reading = chainReading(fresh, known(slug))
      assert.isFalse(reading.available, slug)
      assert.strictEqual(!reading.available && reading.reason, "not assessed by source", slug)
    }
  })

  it("one chain by service chain slug: the row matched to it, with danger null passed through", () => {
    assert.deepStrictEqual(chainReading(fresh, known("solana")), {
      available: true,
      chain_slug: "solana",
      qri: 40,
      band: 3,
      band_label: "Planning",
      stage: 1,
      hybrid: "PARTIAL",
      danger: null,
      ci: 7,
      ...attributionOf(snapshot),
      as_of: snapshot.as_of
    })
    const table = leagueTable(fresh)
    assert.isTrue(table.available && table.rows.find((r) => r.slug === "solana")?.danger === null)
  })

  it("a chain listed twice by the source is served from its usable reading", () => {
    const twice = {
      ...snapshot,
      rows: [{ ...snapshot.rows[3]!, matched_chain_slug: "ethereum" }, ...snapshot.rows]
    }
    const reading = chainReading({ ...fresh, snapshot: twice }, known("ethereum"))
    assert.isTrue(reading.available && reading.qri === 25)
  })

  it("every payload carries attribution to the third-party source", () => {
    for (const state of states) {
      for (const payload of everyPayload(state)) {
        assert.strictEqual(payload.source, "LayerQu")
        assert.strictEqual(payload.source_url, "https://layerqu.com/dashboard/")
        assert.include(payload.attribution, "LayerQu")
        assert.include(payload.attribution, "https://layerqu.com/dashboard/")
      }
      // The wire schemas require the attribution fields, so conformance re-proves the rule.
      assert.isTrue(Schema.is(QuantumLeagueResponse)(leagueTable(state)))
      for (const payload of chainPayloads(state)) {
        assert.isTrue(Schema.is(QuantumChainResponse)(payload), JSON.stringify(payload))
      }
    }
  })

  it("the shipped sample data says so in its attribution", () => {
    for (const payload of everyPayload({ ...fresh, snapshot: sampleSnapshot })) {
      assert.include(payload.attribution, "Sample data")
    }
    for (const payload of everyPayload(fresh)) assert.notInclude(payload.attribution, "Sample")
  })

  it("the quantum data never feeds grades: scoring imports nothing of it, and it imports nothing of scoring", () => {
    const src = join(import.meta.dirname, "../../src")
    const importsOf = (dir: string) =>
      readdirSync(join(src, dir))
        .filter((f) => f.endsWith(".ts"))
        .flatMap((f) =>
          [...readFileSync(join(src, dir, f), "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!)
        )
    assert.isAbove(importsOf("scoring").length, 0)
    assert.deepStrictEqual(
      importsOf("scoring").filter((s) => /quantum/i.test(s)),
      []
    )
    assert.deepStrictEqual(
      importsOf("quantum").filter((s) => /scoring|Scorecard/i.test(s)),
      []
    )
  })
})
