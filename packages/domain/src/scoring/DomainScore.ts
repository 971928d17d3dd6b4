/**
 * Level 1 of score composition: the weighted score of
 * each domain from its answers. A hot path: one pass, no Effect per answer.
 */
import { Result } from "effect"
import type { Confidence } from "../model/Answer.ts"
import { invalid as invalidInput, isRecord } from "./InputGuard.ts"
import { InvalidAnswer, type InvalidInput } from "./ScoringError.ts"

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
): Result.Result<DomainScoreMap, InvalidAnswer | InvalidInput> => {
  if (!Array.isArray(answers)) return Result.fail(invalidInput("answers", "an array of answers", answers))
  const sums = new Map<string, [number, number]>()
  for (let i = 0; i < answers.length; i++) {
    const a: unknown = answers[i]
    const wrong = shapeError(a, i)
    if (wrong !== undefined) return Result.fail(wrong)
    const { score, weight, max_score: max, domain } = a as ScorableAnswer
    if (!(weight > 0) || weight === Infinity)
      return Result.fail(invalid(i, "weight", "weight must be a finite number above 0"))
    if (!(max > 0) || max === Infinity)
      return Result.fail(invalid(i, "max_score", "max_score must be a finite number above 0"))
    if (score === null) continue
    if ((a as ScorableAnswer).confidence === "not_applicable") {
      return Result.fail(
        invalid(i, "score", "an answer with confidence not_applicable must have a null score")
      )
    }
    if (!(score >= 0 && score <= max))
      return Result.fail(invalid(i, "score", `score ${score} is outside 0..${max}`))
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

const invalid = (index: number, field: string, reason: string) =>
  new InvalidAnswer({ field: `answers[${index}].${field}`, index, message: `answer ${index}: ${reason}` })

/** Whether answer `i` has the fields scoring reads, each of its type; an `InvalidInput` naming the first that has not. */
const shapeError = (a: unknown, i: number): InvalidInput | undefined => {
  const at = `answers[${i}]`
  if (!isRecord(a)) return invalidInput(at, "an answer object", a)
  if (a.domain !== null && typeof a.domain !== "string")
    return invalidInput(`${at}.domain`, "a string or null", a.domain)
  if (a.score !== null && typeof a.score !== "number")
    return invalidInput(`${at}.score`, "a number or null", a.score)
  if (typeof a.max_score !== "number") return invalidInput(`${at}.max_score`, "a number", a.max_score)
  if (typeof a.weight !== "number") return invalidInput(`${at}.weight`, "a number", a.weight)
  const c = a.confidence
  if (c !== undefined && c !== null && typeof c !== "string")
    return invalidInput(`${at}.confidence`, "a string or null", c)
  return undefined
}
