import { assert, describe, it } from "@effect/vitest"
import {
  areIndependent,
  corroboratedTier,
  independentSourceCount,
  MinIndependentSources,
  normaliseHandle,
  recordClaim
} from "../../src/incidents/SourceIndependence.ts"

describe("SourceIndependence", () => {
  it("at every served tier at least two independent sources are required", () => {
    assert.strictEqual(MinIndependentSources, 2)
    for (const tier of ["rumored", "corroborated", "confirmed"] as const) {
      assert.isNull(corroboratedTier([{ handle: "blockaid", claimed_tier: tier }]), `one source at ${tier}`)
      assert.strictEqual(
        corroboratedTier([
          { handle: "blockaid", claimed_tier: tier },
          { handle: "peckshield", claimed_tier: tier }
        ]),
        tier
      )
    }
  })

  it("the served tier is the highest tier two independent sources claim; a higher claim supports lower tiers", () => {
    assert.strictEqual(
      corroboratedTier([
        { handle: "blockaid", claimed_tier: "confirmed" },
        { handle: "peckshield", claimed_tier: "rumored" }
      ]),
      "rumored"
    )
    assert.strictEqual(
      corroboratedTier([
        { handle: "blockaid", claimed_tier: "confirmed" },
        { handle: "peckshield", claimed_tier: "corroborated" },
        { handle: "certik", claimed_tier: "rumored" }
      ]),
      "corroborated"
    )
  })

  it("the same source reporting twice never counts as two sources", () => {
    assert.isFalse(areIndependent("@BlockAid", " blockaid "))
    assert.isTrue(areIndependent("blockaid", "peckshield"))
    assert.strictEqual(independentSourceCount(["blockaid", "@blockaid", "BLOCKAID"]), 1)
    assert.isNull(
      corroboratedTier([
        { handle: "blockaid", claimed_tier: "confirmed" },
        { handle: "@BlockAid", claimed_tier: "confirmed" }
      ])
    )
  })

  it("handles are normalised by trimming, lower-casing and dropping a leading @, nothing more", () => {
    assert.strictEqual(normaliseHandle("  @PeckShieldAlert "), "peckshieldalert")
    assert.strictEqual(normaliseHandle("blockaid.io"), "blockaid.io")
    assert.isTrue(areIndependent("blockaid", "blockaid.io"))
  })

  it("recordClaim keeps one entry per source with its strongest claimed tier", () => {
    let sources = recordClaim([], { handle: "@BlockAid", claimed_tier: "corroborated", url: "https://x/1" })
    sources = recordClaim(sources, { handle: "peckshield", claimed_tier: "rumored" })
    sources = recordClaim(sources, { handle: "blockaid", claimed_tier: "rumored" })
    sources = recordClaim(sources, { handle: "peckshield", claimed_tier: "confirmed" })
    assert.deepStrictEqual(sources, [
      { handle: "blockaid", claimed_tier: "corroborated", url: "https://x/1" },
      { handle: "peckshield", claimed_tier: "confirmed" }
    ])
  })
})
