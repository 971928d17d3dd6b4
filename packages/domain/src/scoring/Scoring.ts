/**
 * The `Scoring` service: score composition as a service, so use cases (import,
 * publish) depend on it by type and another tool can embed the same core. The
 * work is done by the pure functions it wraps.
 */
import { Context, Effect, Layer, type Result } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { DomainWeightMap } from "./Composite.ts"
import { checkedDefaultWeights, type ScoreInput, type ScoreResult, scoreEntity } from "./ScoreEntity.ts"
import type { InvalidInput, ScoringError } from "./ScoringError.ts"

export class Scoring extends Context.Service<
  Scoring,
  {
    readonly score: (input: ScoreInput) => Effect.Effect<ScoreResult, ScoringError>
    readonly scoreSync: (input: ScoreInput) => Result.Result<ScoreResult, ScoringError>
    readonly defaultDomainWeights: (
      type: EntityType,
      categories: ReadonlyArray<string>
    ) => Result.Result<DomainWeightMap, InvalidInput>
  }
>()("@ratings/domain/scoring/Scoring") {
  static readonly layer = Layer.succeed(
    Scoring,
    Scoring.of({
      score: (input) => Effect.fromResult(scoreEntity(input)),
      scoreSync: scoreEntity,
      defaultDomainWeights: checkedDefaultWeights
    })
  )
}
