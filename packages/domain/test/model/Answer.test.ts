import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { Answer, Confidences } from "../../src/model/Answer.ts"

const roundTrip = (input: unknown) => {
  const decoded = Schema.decodeUnknownSync(Answer)(input)
  assert.deepStrictEqual(Schema.encodeSync(Answer)(decoded), input)
}

const failure = (input: unknown): string => {
  const result = Schema.decodeUnknownResult(Answer)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

const answer = {
  id: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d",
  question_id: "PROT-SEC-01",
  domain: "security",
  score: 3,
  max_score: 4,
  weight: 2,
  confidence: "high",
  response: "Four audits by three firms since 2023; all high findings fixed.",
  rationale: "Multiple recent audits, no open criticals."
}

describe("Answer", () => {
  it("an answer round-trips: id (UUID), question_id, domain, score, max_score, weight, confidence, response, rationale", () => {
    roundTrip(answer)
    roundTrip({ ...answer, domain: null, response: null, rationale: null, confidence: null })
  })

  it("questions served with a null score are excluded: a null score is valid with any confidence", () => {
    for (const confidence of [...Confidences, null]) roundTrip({ ...answer, score: null, confidence })
  })

  it("a null score with confidence not_applicable means the question was ruled out: not_applicable requires a null score", () => {
    roundTrip({ ...answer, score: null, confidence: "not_applicable" })
    assert.include(failure({ ...answer, score: 0, confidence: "not_applicable" }), "score must be null")
    assert.include(failure({ ...answer, score: 3, confidence: "not_applicable" }), "not_applicable")
  })

  it("score is at most max_score", () => {
    roundTrip({ ...answer, score: 4 })
    assert.include(failure({ ...answer, score: 4.5 }), "score (4.5) must not exceed max_score (4)")
  })

  it("score is >= 0, max_score and weight are > 0, confidence is one of the four values", () => {
    failure({ ...answer, score: -1 })
    failure({ ...answer, max_score: 0, score: 0 })
    failure({ ...answer, weight: 0 })
    failure({ ...answer, confidence: "certain" })
    failure({ ...answer, id: "PROT-SEC-01" })
  })

  it("any valid answer round-trips (property)", () => {
    const validAnswer = fc
      .record({
        id: fc.uuid(),
        question_id: fc.string({ minLength: 1 }),
        domain: fc.option(fc.string(), { nil: null }),
        max_score: fc.double({ min: 0.01, max: 100, noNaN: true }),
        ratio: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        weight: fc.double({ min: Number.MIN_VALUE, max: 1e6, noNaN: true }),
        confidence: fc.option(fc.constantFrom(...Confidences), { nil: null }),
        response: fc.option(fc.string(), { nil: null }),
        rationale: fc.option(fc.string(), { nil: null })
      })
      .map(({ ratio, ...a }) => {
        const score =
          ratio === null || a.confidence === "not_applicable"
            ? null
            : Math.min(ratio * a.max_score, a.max_score)
        return { ...a, score }
      })
    fc.assert(
      fc.property(validAnswer, (a) => {
        const decoded = Schema.decodeUnknownSync(Answer)(a)
        assert.deepStrictEqual(Schema.encodeSync(Answer)(decoded), a)
      })
    )
  })
})
