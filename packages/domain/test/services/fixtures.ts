/**
 * Small, hand-built records for use-case tests over the in-memory ports. The
 * entity builder and the timestamp are the port contracts' own
 * (support/contract/ratings-fixtures.ts); the scorecard here is smaller (one
 * answer, one domain) than the contracts' and its figures are the ones these
 * tests assert on.
 */
import type { StoredEntity } from "../../src/ports/EntityRepository.ts"
import type { StoredScorecard } from "../../src/ports/ScorecardRepository.ts"

import { T0 } from "../support/contract/ratings-fixtures.ts"

export { entity, T0, unscored } from "../support/contract/ratings-fixtures.ts"

let counter = 0
export const uuid = (n = ++counter) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

export const scorecard = (
  e: StoredEntity,
  version: number,
  status: "draft" | "published" | "superseded",
  over: Partial<StoredScorecard> = {}
): StoredScorecard => ({
  id: uuid(),
  entity_id: e.record.id,
  entity_type: e.entity_type,
  status,
  scorecard_version: version,
  grade: "A",
  letter_grade: "A",
  composite_score: 80,
  intrinsic_composite_score: 80,
  intrinsic_letter_grade: "A",
  largest_drag_hint: null,
  has_unrated_dependencies: false,
  domain_scores: { security: 0.8 },
  mvc_gates: e.entity_type === "chain" ? { finality: true } : null,
  last_rated_at: status === "draft" ? null : T0,
  scorecard_published_at: status === "draft" ? null : T0,
  domain_weights: { security: 100 },
  answers: [
    {
      id: uuid(),
      question_id: "Q-1",
      domain: "security",
      score: 4,
      max_score: 5,
      weight: 2,
      confidence: "high",
      response: "yes",
      rationale: "two audits"
    }
  ],
  dependencies: [],
  evidence: [
    {
      question_id: "Q-1",
      evidence: [{ kind: "audit", url: null, excerpt: "ok", collected_at: T0 }],
      reasoning: "audited"
    }
  ],
  ...over
})
