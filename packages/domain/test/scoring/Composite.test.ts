import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { checkDomainWeights, composite } from "../../src/scoring/Composite.ts"

describe("Composite (spec part 1, level 2)", () => {
  it("rule 4: composite = sum over domains of domain_score x domain_weight (percentage points)", () => {
    const c = Result.getOrThrow(
      composite({ security: 0.8, technology: 0.5 }, { security: 60, technology: 40 })
    )
    assert.closeTo(c, 0.8 * 60 + 0.5 * 40, 1e-12)
  })

  it("rule 4: if domain scores are carried as percentages, the result is divided by 100", () => {
    const c = Result.getOrThrow(
      composite({ security: 80, technology: 50 }, { security: 60, technology: 40 }, "percent")
    )
    assert.closeTo(c, 68, 1e-12)
  })

  it("rule 5: domain_weights always sums to 100; other sums are a typed error naming the sum", () => {
    const r = composite({ security: 0.5, technology: 0.5 }, { security: 60, technology: 30 })
    assert.isTrue(Result.isFailure(r))
    if (Result.isFailure(r)) {
      assert.strictEqual(r.failure._tag, "DomainWeightsSumError")
      assert.include(r.failure.message, "sum to 90")
    }
    assert.isTrue(Result.isSuccess(checkDomainWeights({ a: 33.333333, b: 33.333333, c: 33.333334 })))
  })

  it("a negative or non-finite weight is a typed error", () => {
    const r = checkDomainWeights({ a: 120, b: -20 })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "InvalidDomainWeight")
  })

  it("rule 5: domain_weights is the set the entity was scored on: a weighted domain without a score is an error", () => {
    const r = composite({ security: 0.5 }, { security: 50, technology: 50 })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "MissingDomainScore")
  })

  it("a scored domain without a weight is an error", () => {
    const r = composite({ security: 0.5, extra: 1 }, { security: 100 })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "UnweightedDomain")
  })

  it("a domain score outside its scale is an error", () => {
    const r = composite({ security: 1.5 }, { security: 100 })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "InvalidDomainScore")
  })
})
