import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Protocol } from "../../src/model/Entity.ts"
import { EntityTypes } from "../../src/model/EntityType.ts"
import {
  DomainsBody,
  EvidenceBody,
  HistoryBody,
  ListOf,
  MethodologyBody,
  QuestionsBody,
  RubricBody
} from "../../src/model/Responses.ts"
import { GradeLadder, GradeRounding } from "../../src/scoring/GradeLadder.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

const entity = { slug: "aave-v4", name: "Aave V4" }
const weights = { security: 62.5, technology: 37.5 }

/** The api-facts "Domains (Pro)" example, verbatim. */
const domains = {
  entity,
  composite_score: 78.4,
  grade: "BBB",
  letter_grade: "BBB",
  intrinsic_composite_score: 81.2,
  intrinsic_letter_grade: "A",
  largest_drag_hint: "largest drag: oracle",
  has_unrated_dependencies: true,
  domain_scores: { security: 0.8125, technology: 0.6667 },
  last_rated_at: "2026-08-01T00:00:00+00:00"
}

const question = {
  question_id: "PROT-SEC-01",
  domain: "security",
  text: "Has the code been audited by independent firms?",
  weight: 3,
  max_score: 4,
  score: 3,
  confidence: "high",
  response: "Four audits",
  rationale: "Recent audits, findings fixed"
}

const methodology = {
  name: "DeFi Risk Ratings Methodology",
  version: "1.0",
  total_questions: 7 * 40 + 26,
  entity_types: EntityTypes.map((type, i) => ({
    type,
    questions: i === 0 ? 66 : 40,
    domains: ["security", "governance"],
    domain_count: 2
  })),
  grade_scale: GradeLadder.map((b) => ({
    grade: b.grade,
    min_score: b.min_score,
    description: b.description
  })),
  grade_rounding: GradeRounding,
  attribution: "Data: Example Ratings (https://ratings.example)",
  methodology_url: "https://ratings.example/methodology"
}

describe("Responses", () => {
  it("a list wrapper has items (array) and total (integer >= 0)", () => {
    const Protocols = ListOf(Protocol)
    roundTrip(Protocols, { items: [], total: 0 })
    roundTrip(ListOf(Schema.String), { items: ["a", "b"], total: 120 })
    failure(Protocols, { items: [], total: -1 })
    failure(Protocols, { items: [], total: 1.5 })
    failure(Protocols, { items: [{ slug: "aave" }], total: 1 })
  })

  it("domains body matches the api-facts shape; unrated means nulls and domain_scores {}", () => {
    roundTrip(DomainsBody, domains)
    roundTrip(DomainsBody, {
      entity,
      composite_score: null,
      grade: null,
      letter_grade: null,
      intrinsic_composite_score: null,
      intrinsic_letter_grade: null,
      largest_drag_hint: null,
      has_unrated_dependencies: false,
      domain_scores: {},
      last_rated_at: null
    })
    failure(DomainsBody, { ...domains, domain_scores: null })
    assert.include(failure(DomainsBody, { ...domains, intrinsic_composite_score: 70 }), "drag only reduces")
  })

  it("history body lists rating versions with reasoning; changed_by is optional", () => {
    const entry = {
      scorecard_id: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
      scorecard_version: 2,
      grade: "A",
      letter_grade: "A",
      composite_score: 80.1,
      intrinsic_composite_score: 80.1,
      intrinsic_letter_grade: "A",
      published_at: "2026-05-01T00:00:00Z",
      reasoning: "Oracle migration completed; re-rated by the committee."
    }
    roundTrip(HistoryBody, {
      entity,
      items: [entry, { ...entry, scorecard_version: 1, changed_by: "analyst" }],
      total: 2
    })
    roundTrip(HistoryBody, { entity, items: [], total: 0 })
    failure(HistoryBody, { entity, items: [{ ...entry, reasoning: undefined }], total: 1 })
  })

  it("questions body: per-question scores and rationale, per-question weight, domain_weights, scorecard_version, scorecard_published_at", () => {
    const body = {
      entity,
      scorecard_version: 3,
      scorecard_published_at: "2026-08-02T10:00:00+00:00",
      domain_weights: weights,
      items: [
        question,
        { ...question, question_id: "PROT-SEC-07", score: null, confidence: "not_applicable" }
      ]
    }
    roundTrip(QuestionsBody, body)
    assert.include(failure(QuestionsBody, { ...body, domain_weights: { security: 50 } }), "sum to 50")
    assert.include(
      failure(QuestionsBody, { ...body, items: [{ ...question, confidence: "not_applicable" }] }),
      "score must be null"
    )
    assert.include(failure(QuestionsBody, { ...body, items: [{ ...question, score: 5 }] }), "must not exceed")
  })

  it("bridge questions return every question with null scores until bridge scorecards exist", () => {
    roundTrip(QuestionsBody, {
      entity: { slug: "example-bridge", name: "Example Bridge" },
      scorecard_version: null,
      scorecard_published_at: null,
      domain_weights: { security: 30, validator_set: 25, operational: 25, governance: 20 },
      items: [{ ...question, score: null, confidence: null, response: null, rationale: null }]
    })
  })

  it("rubric body: per-question criteria with per-question weight and domain_weights", () => {
    const { score: _s, confidence: _c, response: _r, rationale: _ra, ...rest } = question
    const entry = {
      ...rest,
      criteria: [
        { score: 0, description: "No audit" },
        { score: 4, description: "Audited" }
      ]
    }
    roundTrip(RubricBody, { entity, domain_weights: weights, items: [entry] })
  })

  it("evidence body: evidence and reasoning trails with per-question weight and domain_weights", () => {
    const body = {
      entity,
      scorecard_version: 3,
      scorecard_published_at: "2026-08-02T10:00:00+00:00",
      domain_weights: weights,
      items: [
        {
          question_id: "PROT-SEC-01",
          domain: "security",
          weight: 3,
          evidence: [
            {
              kind: "audit",
              url: "https://example.com/audit.pdf",
              excerpt: "No critical issues",
              collected_at: "2026-07-20T00:00:00Z"
            },
            { kind: "analyst_note", url: null, excerpt: null, collected_at: null }
          ],
          reasoning: "Two independent audits cover the deployed code."
        }
      ]
    }
    roundTrip(EvidenceBody, body)
    failure(EvidenceBody, { ...body, items: [{ ...body.items[0], evidence: [{ kind: "audit" }] }] })
  })

  it("methodology body matches api-facts: counts per entity type (all seven) and the grade ladder", () => {
    roundTrip(MethodologyBody, methodology)
    const [first, ...others] = methodology.entity_types
    assert.include(
      failure(MethodologyBody, { ...methodology, entity_types: [{ ...first, domain_count: 3 }, ...others] }),
      "domain_count (3) must equal the 2 domains listed"
    )
    assert.include(
      failure(MethodologyBody, { ...methodology, total_questions: 300 }),
      "total_questions (300)"
    )
    assert.include(failure(MethodologyBody, { ...methodology, entity_types: others }), "missing: protocol")
    const scale = methodology.grade_scale
    for (const grade_scale of [
      [...scale].reverse(),
      scale.slice(1),
      scale.map((b, i) => (i === scale.length - 1 ? { ...b, min_score: 10 } : b)),
      scale.map((b, i) => (i === 1 ? { ...b, min_score: 95 } : b))
    ]) {
      assert.include(
        failure(MethodologyBody, { ...methodology, grade_scale }),
        "grade_scale must list every grade"
      )
    }
  })

  it("every response body carries a description for the OpenAPI document", () => {
    const bodies = { DomainsBody, HistoryBody, QuestionsBody, RubricBody, EvidenceBody, MethodologyBody }
    for (const [name, schema] of Object.entries(bodies)) {
      const doc = Schema.toJsonSchemaDocument(schema)
      const definition = doc.definitions[name] as { readonly description?: unknown } | undefined
      assert.isString(definition?.description, name)
    }
    const list = Schema.toJsonSchemaDocument(ListOf(Protocol, { description: "Protocols" })).schema
    assert.strictEqual((list as { readonly description?: unknown }).description, "Protocols")
    const named = Schema.toJsonSchemaDocument(
      ListOf(Protocol, { identifier: "ProtocolList", description: "Protocols" })
    )
    assert.strictEqual(
      (named.definitions.ProtocolList as { readonly description?: unknown }).description,
      "Protocols"
    )
  })
})
