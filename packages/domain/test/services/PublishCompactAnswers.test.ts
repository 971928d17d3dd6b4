/**
 * A draft whose answers an import holds in its answer table is published
 * without making its answers: scored from the table's shared field tuples,
 * the published scorecard keeps the table's slice, and everything a reader
 * sees is what the same draft with plain answers publishes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { isPubliclyReadable } from "../../src/access/Projection.ts"
import { answerSliceOf } from "../../src/import/ImportAnswerTable.ts"
import type { StoredScorecard } from "../../src/ports/ScorecardRepository.ts"
import { scoreEntity } from "../../src/scoring/ScoreEntity.ts"
import { preparePublication } from "../../src/services/publisher/PublishAct.ts"
import { tableBacked } from "../support/contract/ratings-fixtures.ts"
import { entity, scorecard, unscored, uuid } from "./fixtures.ts"

const answerOf = (i: number) => ({
  id: uuid(),
  question_id: `S${i % 4}`,
  domain: i % 2 === 0 ? "security" : "governance",
  score: i % 5,
  max_score: 4,
  weight: 1,
  confidence: "high" as const,
  response: null,
  rationale: i % 3 === 0 ? "audited" : null
})

const chain = entity("chain", "compact-chain")
const plain: StoredScorecard = scorecard(chain, 1, "draft", {
  ...unscored,
  domain_weights: { security: 60, governance: 40 },
  answers: Array.from({ length: 12 }, (_, i) => answerOf(i)),
  dependencies: []
})

/** The same draft, its answers in an answer table whose reads are counted. */
const compactOf = (s: StoredScorecard) => {
  const reads = { n: 0 }
  return { draft: tableBacked(s, reads), reads }
}

const publish = (draft: StoredScorecard) =>
  preparePublication(
    {
      request: { entity_type: "chain", slug: chain.record.slug, reasoning: "compact", actor: "analyst" },
      entity: chain.record,
      draft,
      previous: undefined,
      dependencies: [],
      gateOf: (q) => (q === "S1" ? "custody" : undefined),
      at: Date.parse("2026-10-01T00:00:00Z")
    },
    scoreEntity,
    isPubliclyReadable
  )

describe("publishing a draft held in an answer table", () => {
  it("scores and publishes it without reading its answers, as the plain draft publishes", () => {
    const { draft, reads } = compactOf(plain)
    const compact = publish(draft)
    assert.strictEqual(reads.n, 0, "no answer was made")
    const expected = publish(plain)
    assert.isTrue(Result.isSuccess(compact) && Result.isSuccess(expected))
    if (!Result.isSuccess(compact) || !Result.isSuccess(expected)) return
    assert.isDefined(
      answerSliceOf(compact.success.record.scorecard),
      "the published scorecard keeps the slice"
    )
    assert.strictEqual(reads.n, 0)
    assert.isNotNull(expected.success.record.scorecard.mvc_gates)
    assert.deepStrictEqual(compact.success.record.scorecard.answers, plain.answers)
    assert.deepStrictEqual(compact.success, expected.success)
  })
})
