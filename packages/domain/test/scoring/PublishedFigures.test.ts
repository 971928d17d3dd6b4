/**
 * Issue 13 point 3: the figures one response serves recompute. A client reads
 * the JSON of a scorecard (domain_scores, domain_weights, the intrinsic pair,
 * the headline pair), recomputes sum(domain_score_d x domain_weight_d) in exact
 * decimal arithmetic on the numbers as written, rounds half-up to one decimal,
 * and must get the served intrinsic composite and its grade; the headline must
 * be the drag applied to that served intrinsic composite. The client here is
 * written from the wire text, independently of the core's own arithmetic.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { GradeLadder } from "@ratings/domain/grades"
import {
  type Dependency,
  type DomainWeightMap,
  renormalise,
  type ScorableAnswer,
  scoreEntity,
  type ScoreResult
} from "@ratings/domain/scoring"

const Domains = ["security", "technology", "governance", "economic", "operational", "transparency"]
const RUNS = { numRuns: 500 }

// ---- the client: exact decimals from the JSON text of each served number ----

/** A served number as the decimal its JSON text spells: digits x 10^exp. */
interface Dec {
  readonly digits: bigint
  readonly exp: number
}

const decOf = (text: string): Dec => {
  const [mantissa = "", e = "0"] = text.toLowerCase().split("e")
  const [int = "", frac = ""] = mantissa.split(".")
  return { digits: BigInt(int + frac), exp: Number(e) - frac.length }
}
const at = (d: Dec, exp: number): bigint => d.digits * 10n ** BigInt(d.exp - exp)
const plus = (a: Dec, b: Dec): Dec => {
  const exp = Math.min(a.exp, b.exp)
  return { digits: at(a, exp) + at(b, exp), exp }
}
const minus = (a: Dec, b: Dec): Dec => plus(a, { digits: -b.digits, exp: b.exp })
const times = (a: Dec, b: Dec): Dec => ({ digits: a.digits * b.digits, exp: a.exp + b.exp })
const sign = (a: Dec): number => (a.digits > 0n ? 1 : a.digits < 0n ? -1 : 0)
/** Half-up to one decimal, as tenths (non-negative figures only). */
const tenthsHalfUp = (a: Dec): bigint => {
  if (a.exp >= -1) return at(a, -1)
  const p = 10n ** BigInt(-1 - a.exp)
  return (a.digits + p / 2n) / p
}
const tenthsOf = (text: string): bigint => at(decOf(text), -1)

/** Parses a served body keeping each number's JSON text, found by the object holding it and its key. */
const parseServed = (json: string) => {
  const texts = new WeakMap<object, Map<string, string>>()
  const body = JSON.parse(
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
  const text = (holder: object, key: string) =>
    texts.get(holder)?.get(key) ?? assert.fail(`no number at ${key}`)
  return { body, text }
}

/** The grade a client reads off the published ladder (`/methodology` grade_scale). */
const ladderGrade = (tenths: bigint) =>
  GradeLadder.find((b) => tenths >= BigInt(b.min_score) * 10n)?.grade ?? assert.fail("off the ladder")

interface ServedDependency {
  readonly slug: string
  /** The dependency's own served headline and the exposure, as JSON text. */
  readonly composite_score: string | null
  readonly exposure: string
}

/** Checks one served scorecard the way a client would; returns what disagrees, or undefined. */
const recompute = (json: string, dependencies: ReadonlyArray<ServedDependency>): string | undefined => {
  const { body, text } = parseServed(json)
  let sum: Dec = { digits: 0n, exp: 0 }
  for (const domain of Object.keys(body.domain_weights)) {
    const score = body.domain_scores[domain]
    if (score === undefined) return `weighted domain ${domain} has no served score`
    sum = plus(sum, times(decOf(text(body.domain_scores, domain)), decOf(text(body.domain_weights, domain))))
  }
  const intrinsic = tenthsOf(text(body, "intrinsic_composite_score"))
  if (tenthsHalfUp(sum) !== intrinsic) return `intrinsic: sum ${sum.digits}e${sum.exp} does not round to it`
  if (ladderGrade(intrinsic) !== body.intrinsic_letter_grade) return "intrinsic_letter_grade"
  const I: Dec = { digits: intrinsic, exp: -1 }
  let largest: Dec = { digits: 0n, exp: 0 }
  for (const d of dependencies) {
    if (d.composite_score === null) continue
    const gap = minus(I, decOf(d.composite_score))
    if (sign(gap) <= 0) continue
    const drag = times(decOf(d.exposure), gap)
    if (sign(minus(drag, largest)) > 0) largest = drag
  }
  const headline = minus(I, largest)
  const expected = sign(headline) < 0 ? 0n : tenthsHalfUp(headline)
  const served = tenthsOf(text(body, "composite_score"))
  if (served !== expected) return `headline: served ${served} tenths, recomputed ${expected}`
  if (ladderGrade(served) !== body.grade || body.letter_grade !== body.grade) return "grade"
  if (body.largest_drag_hint === null && served !== intrinsic) return "no drag, yet headline != intrinsic"
  return undefined
}

/** The served JSON of a result. */
const serve = (r: ScoreResult): string => JSON.stringify(r)

// ---- generated scorecards ----

const answerArb = (domains: ReadonlyArray<string>): fc.Arbitrary<ScorableAnswer> =>
  fc
    .record({
      domain: fc.constantFrom(...domains),
      max_score: fc.constantFrom(1, 3, 4, 5, 7, 10),
      weight: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.double({ min: 0.1, max: 10, noNaN: true })),
      kind: fc.constantFrom("scored", "scored", "scored", "null", "na"),
      ratio: fc.double({ min: 0, max: 1, noNaN: true })
    })
    .map(({ domain, max_score, weight, kind, ratio }) => ({
      domain,
      max_score,
      weight,
      score: kind === "scored" ? Math.round(ratio * max_score) : null,
      confidence: kind === "na" ? ("not_applicable" as const) : kind === "null" ? ("low" as const) : null
    }))

/** Weights as an entity may carry them: whole points, renormalised, or raw shares that sum to 100 in floats. */
const weightsArb = (domains: ReadonlyArray<string>): fc.Arbitrary<DomainWeightMap> =>
  fc
    .tuple(
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: domains.length, maxLength: domains.length }),
      fc.constantFrom("renormalised", "shares")
    )
    .map(([raw, kind]) => {
      const byDomain = Object.fromEntries(domains.map((d, i) => [d, raw[i]!]))
      if (kind === "renormalised") return Result.getOrThrow(renormalise(byDomain))
      const total = raw.reduce((a, b) => a + b, 0)
      return Object.fromEntries(domains.map((d, i) => [d, (raw[i]! / total) * 100]))
    })
    .filter((w) => Math.abs(Object.values(w).reduce((a, b) => a + b, 0) - 100) <= 1e-6)

const dependencyArb: fc.Arbitrary<Dependency> = fc.record({
  entity_type: fc.constantFrom("chain" as const, "oracle" as const, "bridge" as const),
  slug: fc.constantFrom("a", "b", "c"),
  // A dependency's served headline has one decimal.
  composite_score: fc.option(
    fc.integer({ min: 0, max: 1000 }).map((t) => t / 10),
    { nil: null }
  ),
  exposure: fc.oneof(
    fc.integer({ min: 1, max: 100 }).map((p) => p / 100),
    fc.double({ min: 0.01, max: 1, noNaN: true })
  )
})

const cardArb = fc
  .subarray(Domains, { minLength: 1 })
  .chain((domains) =>
    fc.record({
      weights: weightsArb(domains),
      answers: fc.array(answerArb(domains), { minLength: 1, maxLength: 40 }),
      dependencies: fc.array(dependencyArb, { maxLength: 4 })
    })
  )
  .filter(({ answers }) => answers.some((a) => a.score !== null))

const scoreCard = (card: {
  weights: DomainWeightMap
  answers: ReadonlyArray<ScorableAnswer>
  dependencies: ReadonlyArray<Dependency>
}) =>
  scoreEntity({
    entity_type: "protocol",
    categories: [],
    answers: card.answers,
    domain_weights: card.weights,
    dependencies: card.dependencies
  })

const servedDeps = (deps: ReadonlyArray<Dependency>): ReadonlyArray<ServedDependency> =>
  deps.map((d) => ({
    slug: d.slug,
    composite_score: d.composite_score === null ? null : JSON.stringify(d.composite_score),
    exposure: JSON.stringify(d.exposure)
  }))

describe("published figures recompute from one response (issue 13 point 3)", () => {
  it("for any scorecard, the served domain scores x served weights, rounded half-up, give the served composite and grade", () => {
    fc.assert(
      fc.property(cardArb, (card) => {
        const r = scoreCard(card)
        if (Result.isFailure(r)) return true // only weights the core refuses; nothing is served
        const problem = recompute(serve(r.success), servedDeps(card.dependencies))
        if (problem !== undefined) assert.fail(`${problem}\n${serve(r.success)}`)
        return true
      }),
      RUNS
    )
  })

  it("served domain scores are the domain scores of the served answers, half-up to 4 decimals", () => {
    fc.assert(
      fc.property(cardArb, (card) => {
        const r = scoreCard(card)
        if (Result.isFailure(r)) return true
        for (const [domain, served] of Object.entries(r.success.domain_scores)) {
          let num = 0
          let den = 0
          for (const a of card.answers) {
            if (a.domain !== domain || a.score === null) continue
            num += (a.weight * a.score) / a.max_score
            den += a.weight
          }
          const tenThousandths = Math.floor(
            (num / den) * 10_000 + 0.5 + 1e-9 * Math.max(1, (num / den) * 10_000)
          )
          assert.strictEqual(served, Math.min(tenThousandths, 10_000) / 10_000, domain)
        }
        return true
      }),
      RUNS
    )
  })

  it("the composite is computed from the served (rounded) domain scores, not the unrounded ones", () => {
    // security scores 0.76449, served as 0.7645: 0.7645 x 100 = 76.45, half-up 76.5 (76.449 would give 76.4).
    const r = Result.getOrThrow(
      scoreEntity({
        entity_type: "protocol",
        categories: [],
        domain_weights: { security: 100 },
        answers: [
          { domain: "security", score: 1, max_score: 1, weight: 76_449 },
          { domain: "security", score: 0, max_score: 1, weight: 23_551 }
        ]
      })
    )
    assert.deepStrictEqual(r.domain_scores, { security: 0.7645 })
    assert.strictEqual(r.intrinsic_composite_score, 76.5)
    assert.strictEqual(r.intrinsic_letter_grade, "A")
    assert.isUndefined(recompute(serve(r), []))
  })

  it("an exact tie rounds half-up even where floating point puts it a hair below (0.7645 x 100 is 76.44999999999999)", () => {
    assert.strictEqual(0.7645 * 100, 76.44999999999999)
    const r = Result.getOrThrow(
      scoreEntity({
        entity_type: "protocol",
        categories: [],
        domain_weights: { security: 100 / 3, technology: 100 / 3, governance: 100 / 3 },
        answers: [
          { domain: "security", score: 1, max_score: 1, weight: 7645 },
          { domain: "security", score: 0, max_score: 1, weight: 2355 },
          { domain: "technology", score: 1, max_score: 1, weight: 7645 },
          { domain: "technology", score: 0, max_score: 1, weight: 2355 },
          { domain: "governance", score: 1, max_score: 1, weight: 7645 },
          { domain: "governance", score: 0, max_score: 1, weight: 2355 }
        ]
      })
    )
    assert.strictEqual(r.intrinsic_composite_score, 76.5)
    assert.isUndefined(recompute(serve(r), []))
  })

  it("the headline is the drag applied to the served intrinsic composite, half-up to one decimal", () => {
    const deps: ReadonlyArray<Dependency> = [
      { entity_type: "oracle", slug: "thin-oracle", composite_score: 50, exposure: 0.5 }
    ]
    const r = Result.getOrThrow(
      scoreEntity({
        entity_type: "protocol",
        categories: [],
        domain_weights: { security: 50, technology: 50 },
        answers: [
          { domain: "security", score: 7, max_score: 8, weight: 1 },
          { domain: "technology", score: 3, max_score: 4, weight: 1 }
        ],
        dependencies: deps
      })
    )
    // Intrinsic 81.25 is served as 81.3; the client sees 81.3 - 0.5 x (81.3 - 50) = 65.65 -> 65.7.
    assert.strictEqual(r.intrinsic_composite_score, 81.3)
    assert.strictEqual(r.composite_score, 65.7)
    assert.isUndefined(recompute(serve(r), servedDeps(deps)))
  })

  it("the client reads each served number as its JSON text", () => {
    const { body, text } = parseServed('{"domain_scores":{"security":0.7645},"composite_score":1e-7}')
    assert.strictEqual(text(body.domain_scores, "security"), "0.7645")
    assert.deepStrictEqual(decOf(text(body, "composite_score")), { digits: 1n, exp: -7 })
    assert.strictEqual(tenthsHalfUp(decOf("76.45")), 765n)
    assert.strictEqual(tenthsHalfUp(decOf("76.4499999999")), 764n)
  })

  it("renormalised weights do not depend on the order the map lists its domains in (the residue of equal largest weights goes to the first by name)", () => {
    // 47, 4, 47 of 98: the rounding residue of a millionth falls to one of the two equal 47s.
    const one = Result.getOrThrow(renormalise({ security: 47, economic: 4, operational: 47 }))
    const other = Result.getOrThrow(renormalise({ operational: 47, security: 47, economic: 4 }))
    assert.deepStrictEqual(one, other)
    assert.deepStrictEqual(one, { security: 47.959184, economic: 4.081633, operational: 47.959183 })
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("security", "technology", "economic", "operational", "governance"), {
          minLength: 1
        }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 5, maxLength: 5 }),
        (domains, raw) => {
          const forward = Object.fromEntries(domains.map((d, i) => [d, raw[i]!]))
          const backward = Object.fromEntries([...domains].reverse().map((d) => [d, forward[d]!]))
          assert.deepStrictEqual(
            Result.getOrThrow(renormalise(backward)),
            Result.getOrThrow(renormalise(forward))
          )
        }
      )
    )
  })
})
