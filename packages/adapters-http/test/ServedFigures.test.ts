/**
 * Issue 13 point 3 over HTTP: a scorecard published through the Publisher is
 * served with the very domain scores its composite was computed from. A client
 * reads the scorecard-by-id body (domain_scores, domain_weights, the intrinsic
 * and headline pairs), recomputes sum(domain_score x weight) from the numbers as
 * written in the JSON, rounds half-up to one decimal and gets the served
 * composite; `/domains` serves the same figures.
 */
import { randomUUID } from "node:crypto"
import { assert, describe } from "@effect/vitest"
import { PluralOf, ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import { ScorecardRepository, type StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { GradeLadder } from "@ratings/domain/scoring/GradeLadder"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { Publisher } from "@ratings/domain/services/Publisher"
import { Effect, Layer } from "effect"
import { entityId, slugOf } from "./fixtures.ts"
import { onEachBackend, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

/** Tenths of a point of the decimal a JSON number's text spells, half-up (non-negative figures). */
const tenthsHalfUp = (digits: bigint, exp: number): bigint => {
  if (exp >= -1) return digits * 10n ** BigInt(exp + 1)
  const p = 10n ** BigInt(-1 - exp)
  return (digits + p / 2n) / p
}
const decimalOf = (text: string): { digits: bigint; exp: number } => {
  const [mantissa = "", e = "0"] = text.toLowerCase().split("e")
  const [int = "", frac = ""] = mantissa.split(".")
  return { digits: BigInt(int + frac), exp: Number(e) - frac.length }
}

/** The body with each number's JSON text, found by the object that holds it and its key. */
const parseWithText = (json: string) => {
  const texts = new WeakMap<object, Map<string, string>>()
  const body: Json = JSON.parse(
    json,
    function (this: object, key: string, value: unknown, ctx?: { source?: string }) {
      if (typeof value === "number" && ctx?.source !== undefined) {
        const own = texts.get(this) ?? new Map<string, string>()
        own.set(key, ctx.source)
        texts.set(this, own)
      }
      return value
    }
  )
  const text = (holder: object, key: string) => texts.get(holder)?.get(key) ?? assert.fail(`no number ${key}`)
  return { body, text }
}

/** sum(domain_score x weight) exactly, rounded half-up to tenths, from the served text. */
const recomputedTenths = (json: string): { served: bigint; recomputed: bigint } => {
  const { body, text } = parseWithText(json)
  let digits = 0n
  const exp = -20
  for (const domain of Object.keys(body.domain_weights)) {
    const s = decimalOf(text(body.domain_scores, domain))
    const w = decimalOf(text(body.domain_weights, domain))
    const e = s.exp + w.exp
    assert.isAtLeast(e, exp, "figures with more than 20 decimals")
    digits += s.digits * w.digits * 10n ** BigInt(e - exp)
  }
  const served = decimalOf(text(body, "intrinsic_composite_score"))
  return { served: tenthsHalfUp(served.digits, served.exp), recomputed: tenthsHalfUp(digits, exp) }
}

const gradeOfTenths = (tenths: bigint) => GradeLadder.find((b) => tenths >= BigInt(b.min_score) * 10n)?.grade

/**
 * A draft of protocol-gamma (a published entity with no scorecard) whose security
 * domain scores 0.76449 unrounded, served as 0.7645, and whose technology domain
 * scores 0.6665: on the served figures the composite is 50 x 0.7645 + 50 x 0.6665
 * = 71.55 -> 71.6, where the unrounded 71.5495 would give 71.5.
 */
const draftOf = (): StoredScorecard => {
  const answer = (question_id: string, domain: string, score: number, max_score: number, weight: number) => ({
    id: randomUUID(),
    question_id,
    domain,
    score,
    max_score,
    weight,
    confidence: "high" as const,
    response: null,
    rationale: null
  })
  return {
    id: randomUUID(),
    entity_id: entityId("protocol", "gamma"),
    entity_type: "protocol",
    status: "draft",
    scorecard_version: 1,
    grade: null,
    letter_grade: null,
    composite_score: null,
    intrinsic_composite_score: null,
    intrinsic_letter_grade: null,
    largest_drag_hint: null,
    has_unrated_dependencies: false,
    domain_scores: null,
    mvc_gates: null,
    last_rated_at: null,
    scorecard_published_at: null,
    domain_weights: { security: 50, technology: 50 },
    answers: [
      answer("PROTOCOL-SEC-01", "security", 4, 4, 76_449),
      answer("PROTOCOL-SEC-02", "security", 0, 4, 23_551),
      answer("PROTOCOL-TEC-01", "technology", 1, 1, 1333),
      answer("PROTOCOL-TEC-02", "technology", 0, 1, 667)
    ],
    dependencies: [],
    evidence: []
  }
}

onEachBackend((it) => {
  describe("served figures recompute (issue 13 point 3)", () => {
    it.effect(
      "a published scorecard serves the rounded domain scores its composite was computed from: by id and on /domains",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const draft = draftOf()
          yield* (yield* ScorecardRepository).saveDraft(draft)
          yield* Effect.provide(
            Effect.gen(function* () {
              const publisher = yield* Publisher
              yield* publisher.publish({
                entity_type: "protocol",
                slug: slugOf("protocol", "gamma"),
                reasoning: "First rating",
                actor: "analyst:test"
              })
            }),
            Publisher.layer.pipe(Layer.provide(Scoring.layer))
          )

          const byId = yield* server.get(`/api/v1/${ScorecardByIdSegment.protocol}/${draft.id}`, {
            caller: "enterprise"
          })
          assert.strictEqual(byId.status, 200, byId.text)
          const card = byId.json as Json
          assert.deepStrictEqual(card.domain_scores, { security: 0.7645, technology: 0.6665 })
          const { served, recomputed } = recomputedTenths(byId.text)
          assert.strictEqual(served, recomputed)
          assert.strictEqual(card.intrinsic_composite_score, 71.6)
          assert.strictEqual(card.intrinsic_letter_grade, gradeOfTenths(served))
          assert.strictEqual(card.composite_score, card.intrinsic_composite_score) // no dependency drags
          assert.strictEqual(card.grade, card.intrinsic_letter_grade)

          const domains = yield* server.get(
            `/api/v1/${PluralOf.protocol}/${slugOf("protocol", "gamma")}/domains`,
            {
              caller: "pro"
            }
          )
          assert.strictEqual(domains.status, 200, domains.text)
          const body = domains.json as Json
          assert.deepStrictEqual(body.domain_scores, card.domain_scores)
          assert.strictEqual(body.intrinsic_composite_score, card.intrinsic_composite_score)
          assert.strictEqual(body.composite_score, card.composite_score)
        })
    )
  })
})
