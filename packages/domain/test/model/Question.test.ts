import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Question, RubricEntry } from "../../src/model/Question.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

const criteria = [
  { score: 0, description: "No audit" },
  { score: 2, description: "One audit, findings open" },
  { score: 4, description: "Several recent audits, findings fixed" }
]

const protocolQuestion = {
  id: "PROT-SEC-01",
  entity_type: "protocol",
  domain: "security",
  text: "Has the code been audited by independent firms?",
  weight: 3,
  max_score: 4,
  criteria,
  position: 1
}

const chainGate = {
  ...protocolQuestion,
  id: "CHAIN-DEC-04",
  entity_type: "chain",
  domain: "decentralization",
  text: "Can users force-include transactions?",
  position: 12,
  gate: "censorship_resistance"
}

describe("Question", () => {
  it("a catalogue question round-trips with its criteria, weight, max_score and canonical position", () => {
    roundTrip(Question, protocolQuestion)
    roundTrip(Question, chainGate)
    roundTrip(Question, { ...chainGate, gate: null })
  })

  it("gate: only chain questions decide a minimum-viable-chain gate", () => {
    assert.include(failure(Question, { ...protocolQuestion, gate: "liveness" }), "only chain questions")
    roundTrip(Question, { ...protocolQuestion, gate: null })
  })

  it("a rubric level's score is within 0..max_score", () => {
    const over = [...criteria, { score: 5, description: "Beyond the maximum" }]
    assert.include(
      failure(Question, { ...protocolQuestion, criteria: over }),
      "must not exceed max_score (4)"
    )
    assert.include(failure(RubricEntry, { ...toRubric(protocolQuestion), criteria: over }), "max_score (4)")
  })

  it("weight and max_score are above 0; position is a non-negative integer", () => {
    failure(Question, { ...protocolQuestion, weight: 0 })
    failure(Question, { ...protocolQuestion, max_score: 0 })
    failure(Question, { ...protocolQuestion, position: 1.5 })
    failure(Question, { ...protocolQuestion, entity_type: "protocols" })
  })

  it("a rubric entry round-trips: question_id, domain, text, weight, max_score, criteria", () => {
    roundTrip(RubricEntry, toRubric(protocolQuestion))
  })
})

function toRubric(q: typeof protocolQuestion) {
  return {
    question_id: q.id,
    domain: q.domain,
    text: q.text,
    weight: q.weight,
    max_score: q.max_score,
    criteria
  }
}
