/**
 * Score composition, whole, for one scorecard: answers ->
 * domain scores -> the entity's active domain weights -> intrinsic composite ->
 * dependency drag -> headline composite, each pair graded on the ladder.
 * Pure and total: every bad input is a typed failure, never a throw.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityTypeNames.ts"
import { bridgeDomainWeights } from "./BridgeRubric.ts"
import { checkDomainWeights, type DomainWeightMap, publishedComposite } from "./Composite.ts"
import { checkDependencies, type Dependency, publishedDrag } from "./DependencyDrag.ts"
import { type DomainScoreMap, type ScorableAnswer, domainScores } from "./DomainScore.ts"
import { type Grade, gradeOf } from "./GradeLadder.ts"
import {
  checkEntityType,
  checkNumberMap,
  checkStrings,
  invalid,
  isRecord,
  listed,
  missingFields
} from "./InputGuard.ts"
import { typeDomainWeights } from "./Methodology.ts"
import { renormalise } from "./Renormalise.ts"
import { InvalidInput, NothingScored, type ScoringError, UnweightedDomain } from "./ScoringError.ts"

export interface ScoreInput {
  readonly entity_type: EntityType
  readonly categories: ReadonlyArray<string>
  readonly answers: ReadonlyArray<ScorableAnswer>
  /** The entity's own weights, summing to 100; the methodology default for its type and categories when absent. */
  readonly domain_weights?: DomainWeightMap | undefined
  readonly dependencies?: ReadonlyArray<Dependency> | undefined
}

export interface ScoreResult {
  /** Domain -> fraction in [0, 1], rounded to 4 decimals; only domains that fired. */
  readonly domain_scores: DomainScoreMap
  /** The domains this entity was actually scored on, renormalised to 100. */
  readonly domain_weights: DomainWeightMap
  readonly intrinsic_composite_score: number
  readonly intrinsic_letter_grade: Grade
  readonly composite_score: number
  readonly grade: Grade
  readonly letter_grade: Grade
  readonly largest_drag_hint: string | null
  readonly has_unrated_dependencies: boolean
}

/** The default weights of an entity of this type and these categories. */
export const defaultDomainWeights = (type: EntityType, categories: ReadonlyArray<string>): DomainWeightMap =>
  type === "bridge" ? bridgeDomainWeights(categories) : typeDomainWeights(type, categories)

/** `defaultDomainWeights` over any input: a type or category list that is not one is an `InvalidInput`. */
export const checkedDefaultWeights = (
  type: EntityType,
  categories: ReadonlyArray<string>
): Result.Result<DomainWeightMap, InvalidInput> => {
  const t = checkEntityType("entity_type", type)
  if (Result.isFailure(t)) return Result.fail(t.failure)
  return Result.map(checkStrings("categories", categories), (cs) => defaultDomainWeights(t.success, cs))
}

/**
 * Keeps the weighted domains that fired. When some did not (every question null
 * or not_applicable), the rest renormalise to 100: a ruled-out question
 * counts like a domain that does not fire.
 */
export const activeDomainWeights = (
  weights: DomainWeightMap,
  scores: DomainScoreMap
): Result.Result<DomainWeightMap, ScoringError> => {
  const checked = checkDomainWeights(weights)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  const scored = checkNumberMap("domain_scores", scores)
  if (Result.isFailure(scored)) return Result.fail(scored.failure)
  for (const domain in scores) {
    if (weights[domain] === undefined) {
      return Result.fail(
        new UnweightedDomain({
          field: `domain_weights.${domain}`,
          domain,
          message: `answers score domain ${domain}, which this entity is not weighted on`
        })
      )
    }
  }
  let all = true
  for (const domain in weights) {
    if (scores[domain] === undefined) {
      all = false
      break
    }
  }
  if (all) return Result.succeed(weights)
  const active: Record<string, number> = {}
  for (const domain in weights) if (scores[domain] !== undefined) active[domain] = weights[domain]!
  return Result.succeed(renormalise(active))
}

const Required = ["entity_type", "categories", "answers"]

/**
 * Why a value is not a score input, naming the field: missing fields first
 * (all of them), then the first field of the wrong type. The answers' own
 * fields are checked where they are read (`domainScores`), in the same pass.
 */
const inputError = (input: unknown): InvalidInput | undefined => {
  if (!isRecord(input)) {
    return invalid("input", `an object with ${listed(Required)}`, input)
  }
  const missing = missingFields(input, Required)
  if (missing.length > 0) {
    return new InvalidInput({
      field: missing[0]!,
      message: `the score input is missing ${listed(missing)}`
    })
  }
  const checks: ReadonlyArray<Result.Result<unknown, InvalidInput> | undefined> = [
    checkEntityType("entity_type", input.entity_type),
    checkStrings("categories", input.categories),
    Array.isArray(input.answers)
      ? undefined
      : Result.fail(invalid("answers", "an array of answers", input.answers)),
    input.domain_weights === undefined ? undefined : checkNumberMap("domain_weights", input.domain_weights),
    input.dependencies === undefined ? undefined : checkDependencies("dependencies", input.dependencies)
  ]
  for (const c of checks) if (c !== undefined && Result.isFailure(c)) return c.failure
  return undefined
}

/**
 * Half-up to the 4 decimals domain scores are published with. A domain score
 * comes out of a floating-point sum, so a tie in exact arithmetic (0.12345) may
 * arrive a hair below; the tolerance keeps it rounding up, as for composites.
 */
const round4 = (x: number): number => {
  const scaled = x * 10_000
  return Math.floor(scaled + 0.5 + 1e-9 * Math.max(1, scaled)) / 10_000
}

/** Domain scores as published: each rounded half-up to 4 decimals. */
const publishedDomainScores = (scores: DomainScoreMap): DomainScoreMap => {
  const out: Record<string, number> = {}
  for (const domain in scores) out[domain] = Math.min(round4(scores[domain]!), 1)
  return out
}

/**
 * Every published figure is computed from the published figures before it, so
 * one response recomputes: the domain scores are rounded to 4 decimals first,
 * the intrinsic composite is sum(domain_score x weight) over those rounded
 * scores (exact, half-up to one decimal), and the headline is the drag applied
 * to that rounded intrinsic composite (half-up to one decimal). Grades are of
 * the published composites.
 */
export const scoreEntity = (input: ScoreInput): Result.Result<ScoreResult, ScoringError> => {
  const wrong = inputError(input)
  if (wrong !== undefined) return Result.fail(wrong)
  const weights = input.domain_weights ?? defaultDomainWeights(input.entity_type, input.categories)
  const checked = checkDomainWeights(weights)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  const scored = domainScores(input.answers)
  if (Result.isFailure(scored)) return Result.fail(scored.failure)
  const scores = scored.success
  const active = activeDomainWeights(weights, scores)
  if (Result.isFailure(active)) return Result.fail(active.failure)
  const activeWeights = active.success
  let weighted = 0
  for (const domain in activeWeights) weighted += activeWeights[domain]!
  if (weighted <= 0) {
    return Result.fail(
      new NothingScored({ field: "answers", message: "no weighted domain has a scored answer" })
    )
  }
  const published = publishedDomainScores(scores)
  const intrinsic = publishedComposite(published, activeWeights)
  if (Result.isFailure(intrinsic)) return Result.fail(intrinsic.failure)
  const intrinsicScore = intrinsic.success
  const drag = publishedDrag(intrinsicScore, input.dependencies ?? [])
  const headlineScore = drag.composite_score
  const headlineGrade = gradeOf(headlineScore)
  return Result.succeed({
    domain_scores: published,
    domain_weights: activeWeights,
    intrinsic_composite_score: intrinsicScore,
    intrinsic_letter_grade: gradeOf(intrinsicScore),
    composite_score: headlineScore,
    grade: headlineGrade,
    letter_grade: headlineGrade,
    largest_drag_hint: drag.largest_drag_hint,
    has_unrated_dependencies: drag.has_unrated_dependencies
  })
}
