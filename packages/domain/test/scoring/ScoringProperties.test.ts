/**
 * Property tests of score composition (spec part 1 rules 1-8): the invariants
 * that must hold for every scorecard, not just the examples.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { GradeLadder, gradeOf } from "@ratings/domain/grades"
import {
  activeDomainWeights,
  applyDrag,
  composite,
  domainScores,
  type DomainWeightMap,
  renormalise,
  type ScorableAnswer,
  scoreEntity
} from "@ratings/domain/scoring"

/** "dist" in the domain-dist project (vitest.config.ts), which runs these same tests against the build. */
const From = process.env.RATINGS_DOMAIN_FROM === "dist" ? "dist" : "src"

const Domains = ["security", "technology", "governance", "economic", "operational"]
const RUNS = { numRuns: 300 }

const answerArb = (domains: ReadonlyArray<string>): fc.Arbitrary<ScorableAnswer> =>
  fc
    .record({
      domain: fc.constantFrom(...domains),
      max_score: fc.constantFrom(1, 3, 4, 5, 10),
      weight: fc.double({ min: 0.1, max: 10, noNaN: true }),
      kind: fc.constantFrom("scored", "scored", "scored", "null", "na"),
      ratio: fc.double({ min: 0, max: 1, noNaN: true })
    })
    .map(({ domain, max_score, weight, kind, ratio }) => ({
      domain,
      max_score,
      weight,
      score: kind === "scored" ? Math.round(ratio * max_score) : null,
      confidence:
        kind === "na" ? ("not_applicable" as const) : kind === "null" ? ("low" as const) : ("high" as const)
    }))

/** A scorecard: weights over some domains (sum 100) and answers on those domains, at least one scored. */
const cardArb = fc
  .subarray(Domains, { minLength: 1 })
  .chain((domains) =>
    fc.record({
      weights: fc
        .array(fc.integer({ min: 1, max: 50 }), { minLength: domains.length, maxLength: domains.length })
        .map((raw) =>
          Result.getOrThrow(renormalise(Object.fromEntries(domains.map((d, i) => [d, raw[i]!]))))
        ),
      answers: fc.array(answerArb(domains), { minLength: 1, maxLength: 40 })
    })
  )
  .filter(({ answers }) => answers.some((a) => a.score !== null))

/** The unrounded intrinsic composite, for comparisons that rounding would blur. */
const rawComposite = (answers: ReadonlyArray<ScorableAnswer>, weights: DomainWeightMap): number => {
  const scores = Result.getOrThrow(domainScores(answers))
  const active = Result.getOrThrow(activeDomainWeights(weights, scores))
  return Result.getOrThrow(composite(scores, active))
}

const score = (answers: ReadonlyArray<ScorableAnswer>, weights: DomainWeightMap) =>
  Result.getOrThrow(
    scoreEntity({ entity_type: "protocol", categories: [], answers, domain_weights: weights })
  )

const shuffle = <A>(xs: ReadonlyArray<A>, seed: number): A[] => {
  const out = [...xs]
  let s = seed >>> 0 || 1
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0
    const j = s % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe("Scoring properties", () => {
  it(`imports the scoring core from the package's ${From}`, () => {
    // The same resolution (export conditions) as the imports above: dist/*.js for the build, src/*.ts otherwise.
    const where = import.meta.resolve("@ratings/domain/scoring")
    const expected =
      From === "dist" ? "/packages/domain/dist/entry/scoring.js" : "/packages/domain/src/entry/scoring.ts"
    assert.isTrue(where.endsWith(expected), `${where} ends with ${expected}`)
  })

  it("domain score is in [0, 1]", () => {
    fc.assert(
      fc.property(cardArb, ({ answers }) => {
        for (const s of Object.values(Result.getOrThrow(domainScores(answers)))) {
          if (!(s >= 0 && s <= 1)) return false
        }
        return true
      }),
      RUNS
    )
  })

  it("composite is in [0, 100]", () => {
    fc.assert(
      fc.property(cardArb, ({ answers, weights }) => {
        const r = score(answers, weights)
        return (
          r.composite_score >= 0 &&
          r.composite_score <= 100 &&
          r.intrinsic_composite_score >= 0 &&
          r.intrinsic_composite_score <= 100
        )
      }),
      RUNS
    )
  })

  it("published domain_weights always sum to 100", () => {
    fc.assert(
      fc.property(cardArb, ({ answers, weights }) => {
        const w = score(answers, weights).domain_weights
        return Math.abs(Object.values(w).reduce((a, b) => a + b, 0) - 100) <= 1e-6
      }),
      RUNS
    )
  })

  it("scaling a domain's question weights by any k > 0 changes nothing", () => {
    fc.assert(
      fc.property(
        cardArb,
        fc.double({ min: 0.001, max: 1000, noNaN: true }),
        fc.constantFrom(...Domains),
        ({ answers, weights }, k, domain) => {
          const scaled = answers.map((a) => (a.domain === domain ? { ...a, weight: a.weight * k } : a))
          return Math.abs(rawComposite(scaled, weights) - rawComposite(answers, weights)) <= 1e-9
        }
      ),
      RUNS
    )
  })

  it("a null-score question equals its removal", () => {
    fc.assert(
      fc.property(cardArb, fc.nat(), ({ answers, weights }, pick) => {
        const i = pick % answers.length
        const nulled = answers.map((a, j) =>
          j === i ? { ...a, score: null, confidence: "low" as const } : a
        )
        const removed = answers.filter((_, j) => j !== i)
        if (!removed.some((a) => a.score !== null)) return true
        assert.deepStrictEqual(score(nulled, weights), score(removed, weights))
        return true
      }),
      RUNS
    )
  })

  it("not_applicable equals removal", () => {
    fc.assert(
      fc.property(cardArb, fc.nat(), ({ answers, weights }, pick) => {
        const i = pick % answers.length
        const na = answers.map((a, j) =>
          j === i ? { ...a, score: null, confidence: "not_applicable" as const } : a
        )
        const removed = answers.filter((_, j) => j !== i)
        if (!removed.some((a) => a.score !== null)) return true
        assert.deepStrictEqual(score(na, weights), score(removed, weights))
        return true
      }),
      RUNS
    )
  })

  it("order of questions and domains does not matter", () => {
    fc.assert(
      fc.property(cardArb, fc.integer(), ({ answers, weights }, seed) => {
        const reorderedWeights = Object.fromEntries(shuffle(Object.entries(weights), seed + 1))
        const a = rawComposite(answers, weights)
        const b = rawComposite(shuffle(answers, seed), reorderedWeights)
        return Math.abs(a - b) <= 1e-9
      }),
      RUNS
    )
  })

  it("raising one score never lowers the composite", () => {
    fc.assert(
      fc.property(
        cardArb,
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ({ answers, weights }, pick, up) => {
          const scored = answers.flatMap((a, i) => (a.score === null ? [] : [i]))
          const i = scored[pick % scored.length]!
          const a = answers[i]!
          const raised = answers.map((x, j) =>
            j === i ? { ...x, score: a.score! + Math.round(up * (a.max_score - a.score!)) } : x
          )
          const before = score(answers, weights)
          const after = score(raised, weights)
          return (
            rawComposite(raised, weights) >= rawComposite(answers, weights) &&
            after.composite_score >= before.composite_score &&
            after.intrinsic_composite_score >= before.intrinsic_composite_score
          )
        }
      ),
      RUNS
    )
  })

  it("percentage and fraction domain scores give the same composite", () => {
    fc.assert(
      fc.property(cardArb, ({ answers, weights }) => {
        const scores = Result.getOrThrow(domainScores(answers))
        const active = Result.getOrThrow(activeDomainWeights(weights, scores))
        const percent = Object.fromEntries(Object.entries(scores).map(([d, s]) => [d, s * 100]))
        const f = Result.getOrThrow(composite(scores, active, "fraction"))
        const p = Result.getOrThrow(composite(percent, active, "percent"))
        return Math.abs(f - p) <= 1e-9
      }),
      RUNS
    )
  })

  it("headline <= intrinsic under drag", () => {
    const depArb = fc.record({
      entity_type: fc.constantFrom("chain" as const, "oracle" as const, "bridge" as const),
      slug: fc.constantFrom("a", "b", "c"),
      composite_score: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
      exposure: fc.double({ min: 0.01, max: 1, noNaN: true })
    })
    fc.assert(
      fc.property(cardArb, fc.array(depArb, { maxLength: 5 }), ({ answers, weights }, dependencies) => {
        const r = Result.getOrThrow(
          scoreEntity({
            entity_type: "protocol",
            categories: [],
            answers,
            domain_weights: weights,
            dependencies
          })
        )
        const raw = Result.getOrThrow(applyDrag(rawComposite(answers, weights), dependencies))
        return (
          r.composite_score <= r.intrinsic_composite_score &&
          raw.composite_score <= rawComposite(answers, weights) &&
          raw.composite_score >= 0
        )
      }),
      RUNS
    )
  })

  it("drag never lets the headline fall as the intrinsic score rises", () => {
    const depArb = fc.record({
      entity_type: fc.constant("chain" as const),
      slug: fc.string(),
      composite_score: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
      exposure: fc.double({ min: 0.01, max: 1, noNaN: true })
    })
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.array(depArb, { maxLength: 4 }),
        (x, y, deps) => {
          const [lo, hi] = x <= y ? [x, y] : [y, x]
          const drag = (x: number) => Result.getOrThrow(applyDrag(x, deps)).composite_score
          return drag(lo) <= drag(hi) + 1e-9
        }
      ),
      RUNS
    )
  })

  it("the grade never falls as the score rises", () => {
    const rank = (g: string) => GradeLadder.findIndex((b) => b.grade === g)
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (x, y) => {
          const [lo, hi] = x <= y ? [x, y] : [y, x]
          const grade = (x: number) => Result.getOrThrow(gradeOf(x))
          return rank(grade(hi)) <= rank(grade(lo))
        }
      ),
      { numRuns: 2000 }
    )
  })
})
