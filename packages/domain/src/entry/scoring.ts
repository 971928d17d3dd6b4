/**
 * `@ratings/domain/scoring`: score composition, answers to graded composite,
 * for tools that embed the core. `scoreEntity` is the whole pipeline from
 * plain data; the other functions are its steps, exported because their
 * properties are the methodology's promises. `Scoring` is the same as an
 * Effect service. Everything here is pure (no I/O, no Node API, safe in a
 * browser) and total: any input gets a value or a typed error naming the
 * field at fault, never a throw.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityTypeNames.ts"
import type { DomainWeightMap } from "../scoring/Composite.ts"
import {
  applyDrag as drag,
  checkDependencies,
  type Dependency,
  type DragResult
} from "../scoring/DependencyDrag.ts"
import { checkNumber, checkWeights } from "../scoring/InputGuard.ts"
import { renormalise as renormaliseWeights } from "../scoring/Renormalise.ts"
import { checkedDefaultWeights } from "../scoring/ScoreEntity.ts"
import type { InvalidInput } from "../scoring/ScoringError.ts"

export type { EntityType } from "../model/EntityTypeNames.ts"
export { EntityTypes } from "../model/EntityTypeNames.ts"
export {
  type CompositeError,
  checkDomainWeights,
  composite,
  type DomainScoreScale,
  type DomainWeightMap,
  publishedComposite
} from "../scoring/Composite.ts"
export type { Dependency, DragResult } from "../scoring/DependencyDrag.ts"
export { type DomainScoreMap, domainScores, type ScorableAnswer } from "../scoring/DomainScore.ts"
export {
  activeDomainWeights,
  type ScoreInput,
  type ScoreResult,
  scoreEntity
} from "../scoring/ScoreEntity.ts"
export { Scoring } from "../scoring/Scoring.ts"
export {
  DomainWeightsSumError,
  InvalidAnswer,
  InvalidDomainScore,
  InvalidDomainWeight,
  InvalidInput,
  MissingDomainScore,
  NothingScored,
  type ScoringError,
  UnweightedDomain
} from "../scoring/ScoringError.ts"

/**
 * Weights rescaled to sum to exactly 100, each to 1e-6 points, the rounding
 * residue on the largest (of equal ones, the first by name). All zero: `{}`.
 */
export const renormalise = (weights: DomainWeightMap): Result.Result<DomainWeightMap, InvalidInput> =>
  Result.map(checkWeights("weights", weights), renormaliseWeights)

/**
 * Dependency drag on an intrinsic composite (0-100): the headline is the
 * intrinsic figure less the largest exposure x (intrinsic - dependency's
 * composite); an unrated dependency (composite null) drags nothing and is flagged.
 */
export const applyDrag = (
  intrinsic: number,
  dependencies: ReadonlyArray<Dependency>
): Result.Result<DragResult, InvalidInput> => {
  const score = checkNumber("intrinsic", intrinsic, 0, 100)
  if (Result.isFailure(score)) return Result.fail(score.failure)
  return Result.map(checkDependencies("dependencies", dependencies), (ds) => drag(score.success, ds))
}

/** The methodology's default domain weights of an entity of this type with these categories. */
export const defaultDomainWeights: (
  entityType: EntityType,
  categories: ReadonlyArray<string>
) => Result.Result<DomainWeightMap, InvalidInput> = checkedDefaultWeights
