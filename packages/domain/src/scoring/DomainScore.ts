/**
 * Level 1 of score composition: the weighted score of
 * each domain from its answers. A hot path: one pass, no Effect per answer.
 */
import { Result } from "effect"
import type { Confidence } from "../model/Answer.ts"
import { InvalidAnswer } from "./ScoringError.ts"

/** The parts of an answer that scoring reads (the Answer schema satisfies it). */
export interface ScorableAnswer {
  readonly domain: string | null
  readonly score: number | null
  readonly max_score: number
  readonly weight: number
  readonly confidence?: Confidence | null | undefined
}

/** Domain -> fraction in [0, 1]. Domains that do not fire are absent. */
export type DomainScoreMap = { readonly [domain: string]: number }

/**
 * domain_score = sum(w_i * s_i / max_i) / sum(w_i) over the domain's scored questions.
 * A null score is excluded and the remaining weights renormalise (it adds to neither sum).
 * A null score with confidence not_applicable is excluded the same way; a domain none of
 * whose questions is scored does not fire and is absent from the result.
 * An answer with no domain belongs to no domain and is not scored.
 */
export const domainScores = (
  answers: ReadonlyArray<ScorableAnswer>
): Result.Result<DomainScoreMap, InvalidAnswer> => {
  const sums = new Map<string, [number, number]>()
  for (let i = 0; i < answers.length; i++) {
    const a = answers[i]!
    const score = a.score
    const weight = a.weight
    const max = a.max_score
    if (!(weight > 0) || weight === Infinity)
      return Result.fail(invalid(i, "weight must be a finite number above 0"))
    if (!(max > 0) || max === Infinity)
      return Result.fail(invalid(i, "max_score must be a finite number above 0"))
    if (score === null) continue
    if (a.confidence === "not_applicable") {
      return Result.fail(invalid(i, "an answer with confidence not_applicable must have a null score"))
    }
    if (!(score >= 0 && score <= max)) return Result.fail(invalid(i, `score ${score} is outside 0..${max}`))
    const domain = a.domain
    if (domain === null) continue
    const acc = sums.get(domain)
    if (acc === undefined) sums.set(domain, [(weight * score) / max, weight])
    else {
      acc[0] += (weight * score) / max
      acc[1] += weight
    }
  }
  const out: Record<string, number> = {}
  for (const [domain, [num, den]] of sums) {
    const s = num / den
    // Floating error can push a perfect domain a hair above 1; a domain score is a fraction in [0, 1].
    out[domain] = Math.min(s, 1)
  }
  return Result.succeed(out)
}

const invalid = (index: number, reason: string) =>
  new InvalidAnswer({ index, message: `answer ${index}: ${reason}` })
