import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { scoreEntity } from "@ratings/domain/scoring/ScoreEntity"
import { baselineScore } from "../scoringBaseline.ts"
import { makeCards } from "../scoringData.ts"

describe("scoring benchmark", () => {
  it("the baseline loop computes the same figures as the core, so the comparison is fair", () => {
    for (const card of makeCards(200, 300, 7)) {
      const core = Result.getOrThrow(
        scoreEntity({
          entity_type: "protocol",
          categories: [],
          answers: card.answers,
          domain_weights: card.domain_weights
        })
      )
      const base = baselineScore(card)
      assert.strictEqual(core.composite_score, base.composite)
      assert.strictEqual(core.grade, base.grade)
    }
  })
})
