import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { mvcGates } from "../../src/scoring/MvcGates.ts"
import { scoreEntity } from "../../src/scoring/ScoreEntity.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"

const ans = (domain: string, score: number | null, weight = 1, max_score = 4) => ({
  domain,
  score,
  max_score,
  weight,
  confidence: score === null ? ("not_applicable" as const) : ("high" as const)
})

describe("ScoreEntity (spec part 1 as a whole)", () => {
  it("scores a protocol end to end: domain scores, weights, intrinsic pair and headline pair", () => {
    const r = Result.getOrThrow(
      scoreEntity({
        entity_type: "protocol",
        categories: ["lending"],
        domain_weights: { security: 50, technology: 50 },
        answers: [ans("security", 4, 3), ans("security", 2, 1), ans("technology", 3)],
        dependencies: [{ entity_type: "oracle", slug: "thin-oracle", composite_score: 50, exposure: 0.5 }]
      })
    )
    assert.deepStrictEqual(r.domain_scores, { security: 0.875, technology: 0.75 })
    assert.deepStrictEqual(r.domain_weights, { security: 50, technology: 50 })
    assert.strictEqual(r.intrinsic_composite_score, 81.3) // 81.25 rounds half-up
    assert.strictEqual(r.intrinsic_letter_grade, "A")
    // The drag applies to the published intrinsic 81.3: 81.3 - 0.5 * (81.3 - 50) = 65.65, half-up 65.7
    assert.strictEqual(r.composite_score, 65.7)
    assert.strictEqual(r.grade, "BBB")
    assert.strictEqual(r.letter_grade, "BBB")
    assert.strictEqual(r.largest_drag_hint, "oracle: thin-oracle")
    assert.isFalse(r.has_unrated_dependencies)
  })

  it("rule 8: the intrinsic pair carries the un-reduced figures", () => {
    const base = { entity_type: "chain" as const, categories: [], domain_weights: { security: 100 } }
    const alone = Result.getOrThrow(scoreEntity({ ...base, answers: [ans("security", 4)] }))
    const dragged = Result.getOrThrow(
      scoreEntity({
        ...base,
        answers: [ans("security", 4)],
        dependencies: [{ entity_type: "bridge", slug: "b", composite_score: 10, exposure: 1 }]
      })
    )
    assert.strictEqual(dragged.intrinsic_composite_score, alone.intrinsic_composite_score)
    assert.strictEqual(dragged.composite_score, 10)
  })

  it("rule 3: a domain all of whose questions are not_applicable does not fire and the rest renormalise to 100", () => {
    const r = Result.getOrThrow(
      scoreEntity({
        entity_type: "protocol",
        categories: [],
        domain_weights: { security: 50, technology: 30, governance: 20 },
        answers: [ans("security", 4), ans("technology", 2), ans("governance", null)]
      })
    )
    assert.deepStrictEqual(r.domain_weights, { security: 62.5, technology: 37.5 })
    assert.strictEqual(r.intrinsic_composite_score, 81.3) // 62.5 + 18.75
  })

  it("rule 5: domain weights that do not sum to 100 are a typed error", () => {
    const r = scoreEntity({
      entity_type: "protocol",
      categories: [],
      domain_weights: { security: 50, technology: 30 },
      answers: [ans("security", 4)]
    })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "DomainWeightsSumError")
  })

  it("answers in a domain the entity is not weighted on are a typed error", () => {
    const r = scoreEntity({
      entity_type: "protocol",
      categories: [],
      domain_weights: { security: 100 },
      answers: [ans("security", 4), ans("marketing", 4)]
    })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "UnweightedDomain")
  })

  it("a scorecard with nothing scored is a typed error, not a zero", () => {
    const r = scoreEntity({ entity_type: "protocol", categories: [], answers: [ans("security", null)] })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "NothingScored")
  })

  it("without its own weights an entity is scored on its type's methodology weights", () => {
    const answers = [
      "security",
      "technology",
      "governance",
      "economic",
      "operational",
      "transparency",
      "dependencies"
    ].map((d) => ans(d, 4))
    const r = Result.getOrThrow(scoreEntity({ entity_type: "protocol", categories: [], answers }))
    assert.strictEqual(r.composite_score, 100)
    assert.strictEqual(r.grade, "AAA")
  })

  it.effect("the Scoring service scores through the same core", () =>
    Effect.gen(function* () {
      const scoring = yield* Scoring
      const r = yield* scoring.score({
        entity_type: "oracle",
        categories: [],
        domain_weights: { security: 100 },
        answers: [ans("security", 3)]
      })
      assert.strictEqual(r.composite_score, 75)
      assert.strictEqual(r.grade, "A")
      const failure = yield* Effect.flip(
        scoring.score({
          entity_type: "oracle",
          categories: [],
          domain_weights: { security: 90 },
          answers: []
        })
      )
      assert.strictEqual(failure._tag, "DomainWeightsSumError")
    }).pipe(Effect.provide(Scoring.layer))
  )
})

describe("MvcGates (spec part 2 Scorecard rule 3)", () => {
  const gateOf = (id: string) =>
    id.startsWith("G1") ? "finality" : id.startsWith("G2") ? "censorship" : null
  const g = (question_id: string, score: number | null) => ({ question_id, ...ans("security", score) })

  it("a gate passes when every scored question of the gate reaches half its max_score", () => {
    assert.deepStrictEqual(mvcGates([g("G1-a", 2), g("G1-b", 4), g("G2-a", 1), g("X", 0)], gateOf), {
      finality: true,
      censorship: false
    })
  })

  it("a gate none of whose questions was scored is not passed", () => {
    assert.deepStrictEqual(mvcGates([g("G1-a", null)], gateOf), { finality: false })
  })
})
