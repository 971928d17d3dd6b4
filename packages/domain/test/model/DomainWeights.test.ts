import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { DomainWeights, sumOfWeights } from "../../src/model/DomainWeights.ts"

const failure = (input: unknown): string => {
  const result = Schema.decodeUnknownResult(DomainWeights)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

describe("DomainWeights", () => {
  it("domain_weights is a map from domain to percentage-point weight and round-trips", () => {
    const weights = {
      security: 25,
      technology: 15,
      governance: 15,
      economic: 15,
      operational: 10,
      transparency: 20
    }
    assert.deepStrictEqual(
      Schema.encodeSync(DomainWeights)(Schema.decodeUnknownSync(DomainWeights)(weights)),
      weights
    )
    assert.strictEqual(sumOfWeights(weights), 100)
  })

  it("domain_weights always sums to 100 (within 1e-6), and the failure names the actual sum", () => {
    assert.include(
      failure({ security: 60, governance: 39.5 }),
      "domain weights must sum to 100, but they sum to 99.5"
    )
    assert.include(failure({ security: 60, governance: 41 }), "they sum to 101")
    assert.include(failure({}), "they sum to 0")
    // A renormalised set of thirds is exact to 1e-6 once rounded, as the scoring core publishes it.
    Schema.decodeUnknownSync(DomainWeights)({ a: 33.333333, b: 33.333333, c: 33.333334 })
    Schema.decodeUnknownSync(DomainWeights)({ a: 100 / 3, b: 100 / 3, c: 100 / 3 })
    failure({ a: 33.3333, b: 33.3333, c: 33.3333 })
  })

  it("each weight is a finite number >= 0", () => {
    failure({ security: 110, governance: -10 })
    failure({ security: "100" })
    Schema.decodeUnknownSync(DomainWeights)({ security: 100, unused: 0 })
  })
})
