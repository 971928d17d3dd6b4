/**
 * `@ratings/domain/scoring`: score composition, answers to graded composite, for tools that
 * embed the core. `scoreEntity` is the whole pipeline from plain data; the
 * other functions are its steps, exported because their properties are the
 * methodology's promises. `Scoring` is the same as an Effect service.
 * Everything here is pure: no I/O, no Node API, safe in a browser.
 */
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
export { applyDrag, type Dependency, type DragResult } from "../scoring/DependencyDrag.ts"
export { type DomainScoreMap, domainScores, type ScorableAnswer } from "../scoring/DomainScore.ts"
export { renormalise } from "../scoring/Renormalise.ts"
export {
  activeDomainWeights,
  defaultDomainWeights,
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
  MissingDomainScore,
  NothingScored,
  type ScoringError,
  UnweightedDomain
} from "../scoring/ScoringError.ts"
