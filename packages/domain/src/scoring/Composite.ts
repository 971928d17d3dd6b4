/**
 * Level 2 of score composition (spec part 1 rules 4-5): the composite from
 * domain scores and the entity's own domain weights.
 */
import { Result } from "effect"
import { WeightSumTolerance } from "../model/DomainWeights.ts"
import type { DomainScoreMap } from "./DomainScore.ts"
import {
  DomainWeightsSumError,
  InvalidDomainScore,
  InvalidDomainWeight,
  MissingDomainScore,
  UnweightedDomain
} from "./ScoringError.ts"

/** Domain -> percentage-point weight. An entity's map always sums to 100 (rule 5). */
export type DomainWeightMap = { readonly [domain: string]: number }

/** Domain scores may be carried as 0-1 fractions or as 0-100 percentages (rule 4). */
export type DomainScoreScale = "fraction" | "percent"

/** Rule 5: weights are finite, non-negative and sum to 100. */
export const checkDomainWeights = (
  weights: DomainWeightMap
): Result.Result<DomainWeightMap, DomainWeightsSumError | InvalidDomainWeight> => {
  let sum = 0
  for (const domain in weights) {
    const w = weights[domain]!
    if (!(w >= 0) || w === Infinity) {
      return Result.fail(
        new InvalidDomainWeight({
          domain,
          weight: w,
          message: `domain weight of ${domain} must be a number >= 0`
        })
      )
    }
    sum += w
  }
  if (Math.abs(sum - 100) > WeightSumTolerance) {
    return Result.fail(
      new DomainWeightsSumError({ sum, message: `domain weights must sum to 100, but they sum to ${sum}` })
    )
  }
  return Result.succeed(weights)
}

export type CompositeError =
  | DomainWeightsSumError
  | InvalidDomainWeight
  | InvalidDomainScore
  | MissingDomainScore
  | UnweightedDomain

/**
 * Rule 4: composite = sum over domains of domain_score_d x domain_weight_d, in 0-100.
 * With percentage domain scores the sum is divided by 100. Every weighted domain
 * must have a score and every scored domain a weight: the weights are the set the
 * entity was actually scored on (rule 5).
 */
export const composite = (
  scores: DomainScoreMap,
  weights: DomainWeightMap,
  scale: DomainScoreScale = "fraction"
): Result.Result<number, CompositeError> => {
  const checked = checkDomainWeights(weights)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  const top = scale === "percent" ? 100 : 1
  let total = 0
  for (const domain in weights) {
    const s = scores[domain]
    if (s === undefined) {
      return Result.fail(
        new MissingDomainScore({ domain, message: `domain ${domain} is weighted but has no score` })
      )
    }
    if (!(s >= 0 && s <= top)) {
      return Result.fail(
        new InvalidDomainScore({
          domain,
          score: s,
          message: `domain score of ${domain} must be within 0..${top}`
        })
      )
    }
    total += s * weights[domain]!
  }
  for (const domain in scores) {
    if (weights[domain] === undefined) {
      return Result.fail(
        new UnweightedDomain({
          domain,
          message: `domain ${domain} has a score but no weight in domain_weights`
        })
      )
    }
  }
  const value = scale === "percent" ? total / 100 : total
  return Result.succeed(value < 0 ? 0 : Math.min(value, 100))
}
