import { assert, describe, it } from "@effect/vitest"
import {
  atLeast,
  compareTiers,
  DefaultMinStatus,
  IncidentTiers,
  isAbove,
  maxTier,
  rankOf
} from "../../src/incidents/IncidentTier.ts"

describe("IncidentTier", () => {
  it("tiers are ordered rumored < corroborated < confirmed", () => {
    assert.deepStrictEqual([...IncidentTiers], ["rumored", "corroborated", "confirmed"])
    assert.isTrue(compareTiers("rumored", "corroborated") < 0)
    assert.isTrue(compareTiers("corroborated", "confirmed") < 0)
    assert.isTrue(compareTiers("confirmed", "rumored") > 0)
    assert.strictEqual(compareTiers("corroborated", "corroborated"), 0)
    assert.deepStrictEqual(["confirmed", "rumored", "corroborated"].sort(compareTiers as never), [
      "rumored",
      "corroborated",
      "confirmed"
    ])
  })

  it("atLeast holds for the tier itself and every tier above it, never for the unserved state", () => {
    assert.isTrue(atLeast("confirmed", "confirmed"))
    assert.isTrue(atLeast("confirmed", "rumored"))
    assert.isTrue(atLeast("corroborated", "rumored"))
    assert.isFalse(atLeast("rumored", "corroborated"))
    assert.isFalse(atLeast("corroborated", "confirmed"))
    assert.isFalse(atLeast(null, "rumored"))
  })

  it("becoming servable ranks as a rise, like any escalation", () => {
    assert.isTrue(rankOf(null) < rankOf("rumored"))
    assert.isTrue(isAbove("rumored", null))
    assert.isTrue(isAbove("confirmed", "corroborated"))
    assert.isFalse(isAbove("rumored", "rumored"))
    assert.isFalse(isAbove("rumored", "confirmed"))
    assert.strictEqual(maxTier("confirmed", "rumored"), "confirmed")
    assert.strictEqual(maxTier(null, "corroborated"), "corroborated")
  })

  it("min_status default is confirmed", () => {
    assert.strictEqual(DefaultMinStatus, "confirmed")
  })
})
