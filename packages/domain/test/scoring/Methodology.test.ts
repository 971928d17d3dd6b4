import { assert, describe, it } from "@effect/vitest"
import { EntityTypes } from "../../src/model/EntityType.ts"
import { BaseDomainWeights, extraDomainFor, typeDomainWeights } from "../../src/scoring/Methodology.ts"
import { defaultDomainWeights } from "../../src/scoring/ScoreEntity.ts"

const sum = (m: Record<string, number>) => Object.values(m).reduce((x, y) => x + y, 0)

describe("Methodology tables", () => {
  it("every type's base domain weights sum to 100", () => {
    for (const t of EntityTypes) assert.closeTo(sum(BaseDomainWeights[t]), 100, 1e-9, t)
  })

  it("rule 7: stablecoin tokens carry an extra domain with rebalanced weights", () => {
    const plain = typeDomainWeights("token", ["governance-token"])
    const stable = typeDomainWeights("token", ["stablecoin"])
    assert.isFalse("peg_stability" in plain)
    assert.strictEqual(stable.peg_stability, 20)
    assert.closeTo(stable.security!, plain.security! * 0.8, 1e-9)
    assert.closeTo(sum(stable), 100, 1e-9)
  })

  it("rule 7: LST and LRT vaults carry an extra domain with rebalanced weights", () => {
    for (const c of ["lst", "LRT"]) {
      const w = typeDomainWeights("vault", [c])
      assert.strictEqual(w.staking, 20)
      assert.closeTo(sum(w), 100, 1e-9)
    }
    assert.isUndefined(extraDomainFor("vault", ["lending"]))
    assert.isUndefined(extraDomainFor("protocol", ["stablecoin"]))
  })

  it("rule 5: the default weights of every type and category mix sum to 100", () => {
    for (const t of EntityTypes) {
      for (const cats of [[], ["stablecoin"], ["lst"], ["messaging", "intent-based"]]) {
        assert.closeTo(sum(defaultDomainWeights(t, cats)), 100, 1e-9)
      }
    }
  })
})
