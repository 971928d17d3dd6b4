import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { domainScores, type ScorableAnswer } from "../../src/scoring/DomainScore.ts"

const a = (
  domain: string | null,
  score: number | null,
  max_score: number,
  weight: number,
  confidence: ScorableAnswer["confidence"] = "high"
): ScorableAnswer => ({ domain, score, max_score, weight, confidence })

const ok = (answers: ReadonlyArray<ScorableAnswer>) => Result.getOrThrow(domainScores(answers))

describe("DomainScore (spec part 1, level 1)", () => {
  it("rule 1: each scored question contributes weight x (score / max_score), divided by the sum of the same weights", () => {
    // (3 * 4/4 + 1 * 1/2) / (3 + 1) = 3.5 / 4
    assert.deepStrictEqual(ok([a("security", 4, 4, 3), a("security", 1, 2, 1)]), { security: 0.875 })
  })

  it("rule 1: the domain score is a fraction from 0 to 1", () => {
    const s = ok([a("security", 0, 4, 1), a("technology", 5, 5, 2)])
    assert.strictEqual(s.security, 0)
    assert.strictEqual(s.technology, 1)
  })

  it("rule 2: questions served with a null score are excluded and the remaining weights renormalise", () => {
    const withNull = ok([a("security", 4, 4, 3), a("security", null, 4, 5, "low"), a("security", 0, 4, 1)])
    assert.deepStrictEqual(withNull, { security: 0.75 })
  })

  it("rule 3: a null score with confidence not_applicable is excluded like a domain that does not fire", () => {
    const s = ok([a("security", 2, 4, 1), a("governance", null, 4, 1, "not_applicable")])
    assert.deepStrictEqual(s, { security: 0.5 })
    assert.isFalse("governance" in s)
  })

  it("a domain none of whose questions is scored does not fire", () => {
    assert.deepStrictEqual(ok([a("security", null, 4, 1), a("security", null, 4, 2, "not_applicable")]), {})
  })

  it("an answer with no domain belongs to no domain", () => {
    assert.deepStrictEqual(ok([a(null, 4, 4, 1), a("security", 1, 4, 1)]), { security: 0.25 })
  })

  it("bad answers are typed failures naming the answer, never a throw", () => {
    const cases: Array<[ScorableAnswer, string]> = [
      [a("security", 5, 4, 1), "outside 0..4"],
      [a("security", -1, 4, 1), "outside 0..4"],
      [a("security", 1, 0, 1), "max_score"],
      [a("security", 1, 4, 0), "weight"],
      [a("security", 1, 4, Number.NaN), "weight"],
      [a("security", 1, 4, 1, "not_applicable"), "not_applicable"]
    ]
    for (const [answer, reason] of cases) {
      const r = domainScores([a("security", 1, 4, 1), answer])
      assert.isTrue(Result.isFailure(r))
      if (Result.isFailure(r)) {
        assert.strictEqual(r.failure._tag, "InvalidAnswer")
        assert.strictEqual("index" in r.failure ? r.failure.index : undefined, 1)
        assert.include(r.failure.message, reason)
      }
    }
  })
})
