import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Scorecard, ScorecardDetail } from "../../src/model/Scorecard.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

/** What an anonymous caller sees on a protocol's scorecard list. */
const publicItem = {
  id: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
  entity_id: "3f1c2a9e-8b7d-4c1e-9a2b-5d6e7f8a9b0c",
  entity_type: "protocol",
  status: "published",
  scorecard_version: 3,
  grade: "BBB",
  letter_grade: "BBB",
  composite_score: 78.4,
  intrinsic_composite_score: 81.2,
  intrinsic_letter_grade: "A",
  largest_drag_hint: "chain: ethereum",
  has_unrated_dependencies: true,
  domain_scores: null,
  mvc_gates: null,
  last_rated_at: "2026-08-01T00:00:00+00:00",
  scorecard_published_at: "2026-08-02T10:00:00+00:00"
}

const chainItem = {
  ...publicItem,
  entity_type: "chain",
  largest_drag_hint: null,
  has_unrated_dependencies: false,
  intrinsic_composite_score: 78.4,
  intrinsic_letter_grade: "BBB",
  domain_scores: { security: 0.8125, decentralization: 0.6667 },
  mvc_gates: { censorship_resistance: true, liveness: true, upgrade_delay: false }
}

const detail = {
  ...publicItem,
  domain_scores: { security: 0.8125, technology: 0.6667 },
  domain_weights: { security: 62.5, technology: 37.5 },
  answers: [
    {
      id: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d",
      question_id: "PROT-SEC-01",
      domain: "security",
      score: 3,
      max_score: 4,
      weight: 2,
      confidence: "high",
      response: "Four audits",
      rationale: null
    },
    {
      id: "7b8c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e",
      question_id: "PROT-SEC-07",
      domain: "security",
      score: null,
      max_score: 4,
      weight: 1,
      confidence: "not_applicable",
      response: null,
      rationale: "No bridge component"
    }
  ]
}

describe("Scorecard", () => {
  it("a list item round-trips; anonymous and Free callers get domain_scores and mvc_gates null", () => {
    roundTrip(Scorecard, publicItem)
  })

  it("a chain list item for Pro carries domain_scores fractions and mvc_gates", () => {
    roundTrip(Scorecard, chainItem)
  })

  it("an unrated or draft scorecard carries null figures", () => {
    roundTrip(Scorecard, {
      ...publicItem,
      status: "draft",
      grade: null,
      letter_grade: null,
      composite_score: null,
      intrinsic_composite_score: null,
      intrinsic_letter_grade: null,
      largest_drag_hint: null,
      last_rated_at: null,
      scorecard_published_at: null
    })
  })

  it("mvc_gates is populated for chains only; other entity types return null", () => {
    const message = failure(Scorecard, { ...publicItem, mvc_gates: { liveness: true } })
    assert.include(message, "mvc_gates is populated for chains only")
    roundTrip(Scorecard, { ...chainItem, mvc_gates: null })
  })

  it("dependency drag may reduce the headline composite_score; the intrinsic pair carries the un-reduced figure", () => {
    const message = failure(Scorecard, {
      ...publicItem,
      composite_score: 82,
      intrinsic_composite_score: 81.2
    })
    assert.include(message, "dependency drag only reduces")
    roundTrip(Scorecard, { ...publicItem, intrinsic_composite_score: null, intrinsic_letter_grade: null })
  })

  it("composite_score is 0-100, domain scores are 0-1 fractions, grades come from the ladder", () => {
    failure(Scorecard, { ...publicItem, composite_score: 101, intrinsic_composite_score: 101 })
    failure(Scorecard, { ...chainItem, domain_scores: { security: 81.25 } })
    failure(Scorecard, { ...publicItem, letter_grade: "BB" })
    failure(Scorecard, { ...publicItem, status: "archived" })
    failure(Scorecard, { ...publicItem, scorecard_version: 0 })
    failure(Scorecard, { ...publicItem, last_rated_at: "2026-08-01" })
  })

  it("the by-id route carries the full per-answer array and the entity's domain_weights", () => {
    roundTrip(ScorecardDetail, detail)
    assert.include(failure(ScorecardDetail, { ...detail, domain_weights: { security: 60 } }), "sum to 60")
    const [first] = detail.answers
    assert.include(
      failure(ScorecardDetail, {
        ...detail,
        answers: [{ ...first, score: 1, confidence: "not_applicable" }]
      }),
      "score must be null"
    )
  })
})
