/**
 * Port: the question catalogue and rubric of each entity type, in canonical
 * order. Bridges use the 62-question catalogue.
 */
import { Context, Effect, Layer, Ref } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { Question } from "../model/Question.ts"
import type { StoreError } from "./StoreError.ts"

export class RubricRepository extends Context.Service<
  RubricRepository,
  {
    readonly questions: (type: EntityType) => Effect.Effect<ReadonlyArray<Question>, StoreError>
    readonly replace: (
      type: EntityType,
      questions: ReadonlyArray<Question>
    ) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/RubricRepository") {
  static readonly layerMemory = (seed: ReadonlyArray<Question> = []) =>
    Layer.effect(
      RubricRepository,
      Effect.gen(function* () {
        const store = yield* Ref.make<ReadonlyArray<Question>>(seed)
        return RubricRepository.of({
          questions: (type) =>
            Effect.map(Ref.get(store), (qs) =>
              qs.filter((q) => q.entity_type === type).sort((a, b) => a.position - b.position)
            ),
          replace: (type, questions) =>
            Ref.update(store, (qs) => [...qs.filter((q) => q.entity_type !== type), ...questions])
        })
      })
    )
}
