import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { checkDomainWeights, composite, publishedComposite } from "../../src/scoring/Composite.ts"

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

describe("publishedComposite (issue 13 point 3)", () => {
  it("is sum(domain_score x weight) on the figures as written, half-up to one decimal", () => {
    // 0.7645 x 100 is 76.44999999999999 in floating point; on the written figures it is 76.45.
    assert.strictEqual(Result.getOrThrow(publishedComposite({ s: 0.7645 }, { s: 100 })), 76.5)
    // Weights of at most 6 decimals (as renormalise writes them): 0.8765 x 33.333333 = 29.2166663745 ...
    const six = { a: 33.333333, b: 33.333333, c: 33.333334 }
    assert.strictEqual(Result.getOrThrow(publishedComposite({ a: 0.7645, b: 0.7645, c: 0.7645 }, six)), 76.5)
    // ... and weights of more decimals, read as their JSON text.
    const third = { a: 100 / 3, b: 100 / 3, c: 100 / 3 }
    assert.strictEqual(
      Result.getOrThrow(publishedComposite({ a: 0.7645, b: 0.7645, c: 0.7645 }, third)),
      76.5
    )
    // Below a tie stays below: 38.22 + 38.225 = 76.445.
    assert.strictEqual(
      Result.getOrThrow(publishedComposite({ s: 0.7644, t: 0.7645 }, { s: 50, t: 50 })),
      76.4
    )
  })

  it("refuses what composite refuses", () => {
    const r = publishedComposite({ security: 0.5 }, { security: 50, technology: 50 })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "MissingDomainScore")
  })
})
