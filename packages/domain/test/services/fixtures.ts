/**
 * Small, hand-built records for use-case tests over the in-memory ports.
 */
import type { EntityRecord } from "../../src/model/Entity.ts"
import type { EntityType } from "../../src/model/EntityType.ts"
import type { StoredEntity } from "../../src/ports/EntityRepository.ts"
import type { StoredScorecard } from "../../src/ports/ScorecardRepository.ts"

let counter = 0
export const uuid = (n = ++counter) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

export const T0 = "2026-08-01T00:00:00+00:00"

export const entity = (
  entity_type: EntityType,
  slug: string,
  over: Partial<Record<string, unknown>> = {}
): StoredEntity => {
  const base = {
    id: uuid(),
    name: slug
      .split("-")
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(" "),
    slug,
    status: "published",
    categories: [],
    chains: [{ slug: "ethereum", name: "Ethereum" }],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: false,
    created_at: T0,
    updated_at: T0
  }
  const extra =
    entity_type === "bridge"
      ? {
          signer_count: null,
          signing_threshold: null,
          has_message_attestation: true,
          pause_mechanism: null,
          validator_set_owner: null
        }
      : entity_type === "vault"
        ? { curator_id: null, curator: null, is_framework: false }
        : entity_type === "token"
          ? { symbol: slug.toUpperCase(), chain: { slug: "ethereum", name: "Ethereum" } }
          : {}
  return { entity_type, record: { ...base, ...extra, ...over } as unknown as EntityRecord }
}

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
