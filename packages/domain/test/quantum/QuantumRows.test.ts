import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  MaxQuantumTextLength,
  makeChainMatcher,
  matchRows,
  normaliseChainKey,
  readRows
} from "../../src/quantum/QuantumRows.ts"
import { arbitrumRow, chains, ethereumRow, goodRows, solanaRow } from "./QuantumFixtures.ts"

const malformed: ReadonlyArray<unknown> = [
  null,
  "ethereum",
  42,
  [],
  { ...ethereumRow, qri: 101 },
  { ...ethereumRow, qri: -1 },
  { ...ethereumRow, qri: "25" },
  { ...ethereumRow, band: 0 },
  { ...ethereumRow, band: 8 },
  { ...ethereumRow, band: 2.5 },
  { ...ethereumRow, stage: 6 },
  { ...ethereumRow, danger: "yes" },
  { ...ethereumRow, hybrid: null },
  {
    name: "No Slug",
    profile: "L1",
    qri: 1,
    band: 1,
    band_label: "x",
    stage: 0,
    hybrid: "FAIL",
    danger: null,
    ci: 1
  },
  { ...ethereumRow, ci: Number.NaN }
]

describe("QuantumRows", () => {
  it("malformed source rows are skipped and counted in rows_skipped; they never fail the whole snapshot", () => {
    const raw = [ethereumRow, ...malformed.slice(0, 7), solanaRow, ...malformed.slice(7), arbitrumRow]
    const read = readRows(raw)
    assert.strictEqual(read.rows_skipped, malformed.length)
    assert.deepStrictEqual(
      read.rows.map((r) => r.slug),
      ["ethereum", "solana", "arb1"]
    )
    assert.deepStrictEqual(readRows(malformed), { rows: [], rows_skipped: malformed.length })
    assert.deepStrictEqual(readRows([]), { rows: [], rows_skipped: 0 })
  })

  it("a source row whose text holds a NUL character is skipped and counted (it could not be stored)", () => {
    const read = readRows([
      ethereumRow,
      { ...solanaRow, name: "Sol\u0000ana" },
      { ...arbitrumRow, profile: "L2\u0000" }
    ])
    assert.strictEqual(read.rows_skipped, 2)
    assert.deepStrictEqual(
      read.rows.map((r) => r.slug),
      ["ethereum"]
    )
  })

  it("a text field longer than MaxQuantumTextLength costs the row: it is skipped and counted", () => {
    const longest = "x".repeat(MaxQuantumTextLength)
    const over = `${longest}x`
    const fits = [
      { ...ethereumRow, name: longest },
      { ...ethereumRow, slug: longest, profile: longest, band_label: longest, hybrid: longest }
    ]
    const tooLong = (["slug", "name", "profile", "band_label", "hybrid"] as const).map((field) => ({
      ...ethereumRow,
      [field]: over
    }))
    const read = readRows([...fits, ...tooLong])
    assert.strictEqual(read.rows.length, fits.length)
    assert.strictEqual(read.rows_skipped, tooLong.length)
  })

  it("every source row is either kept or counted as skipped, and kept rows keep source order", () => {
    const anyRow = fc.oneof(fc.constantFrom(...goodRows), fc.constantFrom(...malformed), fc.anything())
    fc.assert(
      fc.property(fc.array(anyRow, { maxLength: 40 }), (raw) => {
        const read = readRows(raw)
        assert.strictEqual(read.rows.length + read.rows_skipped, raw.length)
        const expected = raw
          .filter((r) => goodRows.includes(r as never))
          .map((r) => (r as { slug: string }).slug)
        assert.deepStrictEqual(
          read.rows.map((r) => r.slug),
          expected
        )
      })
    )
  })

  it("danger may be null (the source stopped publishing it): null, or an absent key, passes through as null", () => {
    const { danger: _, ...withoutDanger } = ethereumRow
    const read = readRows([solanaRow, withoutDanger, { ...ethereumRow, ci: undefined }])
    assert.strictEqual(read.rows_skipped, 1, "a key present as undefined is not a published null")
    assert.deepStrictEqual(
      read.rows.map((r) => r.danger),
      [null, null]
    )
    assert.deepStrictEqual(read.rows[0], solanaRow)
  })

  it("extra upstream fields are dropped, not served", () => {
    const read = readRows([{ ...ethereumRow, internal_note: "x" }])
    assert.deepStrictEqual(read.rows, [ethereumRow])
  })

  it("matched_chain_slug is the service chain slug when the chain exists in the service database (drafts included, not necessarily rated)", () => {
    const rows = matchRows(readRows(goodRows).rows, chains)
    const bySource = Object.fromEntries(rows.map((r) => [r.slug, r.matched_chain_slug]))
    assert.strictEqual(bySource.ethereum, "ethereum")
    assert.strictEqual(bySource.solana, "solana", "solana is a draft in the service and still matches")
    assert.strictEqual(bySource.arb1, "arbitrum-one", "matched by name when the source slug differs")
    assert.strictEqual(bySource.tron, "tron", "names compare case-insensitively")
  })

  it("matched_chain_slug is null when the service has no such chain", () => {
    const rows = matchRows(readRows(goodRows).rows, [{ slug: "base", name: "Base", status: "published" }])
    assert.deepStrictEqual(
      rows.map((r) => r.matched_chain_slug),
      [null, null, null, null]
    )
    assert.deepStrictEqual(
      matchRows(readRows([ethereumRow]).rows, []).map((r) => r.matched_chain_slug),
      [null]
    )
  })

  it("matching ignores case, spaces and punctuation, and is never fuzzy", () => {
    assert.strictEqual(normaliseChainKey("BNB Chain"), normaliseChainKey("bnb-chain"))
    assert.strictEqual(normaliseChainKey("BNB_chain"), "bnbchain")
    const match = makeChainMatcher([{ slug: "bnb-chain", name: "BNB Smart Chain", status: "draft" }])
    assert.strictEqual(match({ slug: "BNB_Chain", name: "whatever" }), "bnb-chain")
    assert.strictEqual(match({ slug: "bsc", name: "bnb smart-chain" }), "bnb-chain")
    assert.strictEqual(match({ slug: "bnb", name: "BNB" }), null)
    assert.strictEqual(match({ slug: "---", name: "" }), null)
  })

  it("a slug match wins over a name match, and a name two service chains share matches neither, whatever the order", () => {
    const directory = [
      { slug: "polygon", name: "Polygon PoS", status: "published" as const },
      { slug: "polygon-pos", name: "Polygon", status: "draft" as const },
      { slug: "optimism", name: "OP Mainnet", status: "published" as const },
      { slug: "op-mainnet-legacy", name: "OP Mainnet", status: "draft" as const }
    ]
    for (const list of [directory, [...directory].reverse()]) {
      const match = makeChainMatcher(list)
      assert.strictEqual(match({ slug: "polygon", name: "Polygon" }), "polygon")
      assert.strictEqual(match({ slug: "op", name: "OP Mainnet" }), null)
      assert.strictEqual(match({ slug: "optimism", name: "OP Mainnet" }), "optimism")
    }
  })
})
