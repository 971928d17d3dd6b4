/**
 * Level 2 of score composition: the composite from
 * domain scores and the entity's own domain weights.
 */
import { Result } from "effect"
import { WeightSumTolerance } from "../model/WeightSum.ts"
import * as Decimal from "./Decimal.ts"
import type { DomainScoreMap } from "./DomainScore.ts"
import { invalid, isRecord } from "./InputGuard.ts"
import {
  DomainWeightsSumError,
  InvalidDomainScore,
  InvalidDomainWeight,
  type InvalidInput,
  MissingDomainScore,
  UnweightedDomain
} from "./ScoringError.ts"

/** Domain -> percentage-point weight. An entity's map always sums to 100. */
export type DomainWeightMap = { readonly [domain: string]: number }

/** Domain scores may be carried as 0-1 fractions or as 0-100 percentages. */
export type DomainScoreScale = "fraction" | "percent"

/** Weights are finite, non-negative and sum to 100. */
export const checkDomainWeights = (
  weights: DomainWeightMap
): Result.Result<DomainWeightMap, DomainWeightsSumError | InvalidDomainWeight | InvalidInput> => {
  if (!isRecord(weights))
    return Result.fail(invalid("domain_weights", "an object of domain -> weight", weights))
  let sum = 0
  for (const domain in weights) {
    const w: unknown = weights[domain]
    if (typeof w !== "number" || !(w >= 0) || w === Infinity) {
      return Result.fail(
        new InvalidDomainWeight({
          field: `domain_weights.${domain}`,
          domain,
          weight: typeof w === "number" ? w : Number.NaN,
          message: `domain weight of ${domain} must be a number >= 0`
        })
      )
    }
    sum += w
  }
  if (Math.abs(sum - 100) > WeightSumTolerance) {
    return Result.fail(
      new DomainWeightsSumError({
        field: "domain_weights",
        sum,
        message: `domain weights must sum to 100, but they sum to ${sum}`
      })
    )
  }
  return Result.succeed(weights)
}

export type CompositeError =
  | InvalidInput
  | DomainWeightsSumError
  | InvalidDomainWeight
  | InvalidDomainScore
  | MissingDomainScore
  | UnweightedDomain

/**
 * composite = sum over domains of domain_score_d x domain_weight_d, in 0-100.
 * With percentage domain scores the sum is divided by 100. Every weighted domain
 * must have a score and every scored domain a weight: the weights are the set the
 * entity was actually scored on.
 */
export const composite = (
  scores: DomainScoreMap,
  weights: DomainWeightMap,
  scale: DomainScoreScale = "fraction"
): Result.Result<number, CompositeError> => {
  const checked = checkDomainWeights(weights)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  if (!isRecord(scores)) return Result.fail(invalid("domain_scores", "an object of domain -> score", scores))
  if (scale !== "fraction" && scale !== "percent") {
    return Result.fail(invalid("scale", '"fraction" or "percent"', scale))
  }
  const top = scale === "percent" ? 100 : 1
  let total = 0
  for (const domain in weights) {
    const s = scores[domain]
    if (s === undefined) {
      return Result.fail(
        new MissingDomainScore({
          field: `domain_scores.${domain}`,
          domain,
          message: `domain ${domain} is weighted but has no score`
        })
      )
    }
    if (typeof s !== "number" || !(s >= 0 && s <= top)) {
      return Result.fail(
        new InvalidDomainScore({
          field: `domain_scores.${domain}`,
          domain,
          score: typeof s === "number" ? s : Number.NaN,
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
          field: `domain_weights.${domain}`,
          domain,
          message: `domain ${domain} has a score but no weight in domain_weights`
        })
      )
    }
  }
  const value = scale === "percent" ? total / 100 : total
  return Result.succeed(value < 0 ? 0 : Math.min(value, 100))
}

/**
 * The published composite: that sum over the domain scores as published (0-1
 * fractions) and the weights as published, in exact decimal arithmetic on the
 * figures a client reads, rounded half-up to one decimal. So a client that
 * recomputes sum(domain_score_d x domain_weight_d) from one response and rounds
 * it half-up gets the composite that response serves, to the last decimal.
 */
export const publishedComposite = (
  scores: DomainScoreMap,
  weights: DomainWeightMap
): Result.Result<number, CompositeError> => {
  const checked = composite(scores, weights)
  if (Result.isFailure(checked)) return checked
  const value = exactTenths(scores, weights) ?? Decimal.roundHalfUp(decimalSum(scores, weights), 1)
  return Result.succeed(value < 0 ? 0 : Math.min(value, 100))
}

const decimalSum = (scores: DomainScoreMap, weights: DomainWeightMap): Decimal.Decimal => {
  let total = Decimal.zero
  for (const domain in weights) {
    total = Decimal.add(
      total,
      Decimal.mul(Decimal.fromNumber(scores[domain]!), Decimal.fromNumber(weights[domain]!))
    )
  }
  return total
}

/**
 * The common case without BigInt: scores of at most 4 decimals and weights of
 * at most 6 (as `renormalise` writes them) make the sum an integer count of
 * 1e-10 points, below 2^53, so integer arithmetic on doubles is exact. A number
 * equal to k / 10^n is the double nearest that decimal, which is the decimal its
 * JSON text spells. Returns undefined when a figure has more decimals.
 */
const exactTenths = (scores: DomainScoreMap, weights: DomainWeightMap): number | undefined => {
  let units = 0
  for (const domain in weights) {
    const s = scores[domain]!
    const w = weights[domain]!
    const k = Math.round(s * 1e4)
    const m = Math.round(w * 1e6)
    if (k / 1e4 !== s || m / 1e6 !== w || m > 1e9) return undefined
    units += k * m
  }
  // units / 1e10 points; half-up to tenths is floor((units + 5e8) / 1e9), exact on integers.
  const shifted = units + 5e8
  return (shifted - (shifted % 1e9)) / 1e10
}
