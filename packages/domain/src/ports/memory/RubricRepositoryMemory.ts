/** The in-memory `RubricRepository` of tests and tools; the contract is the port's (`../RubricRepository.ts`). */
import { Effect, Layer, Ref } from "effect"
import { type EntityType, EntityTypes } from "../../model/EntityType.ts"
import type { Question } from "../../model/Question.ts"
import { RubricRepository } from "../RubricRepository.ts"

const layer = (seed: ReadonlyArray<Question> = []) =>
  Layer.effect(
    RubricRepository,
    Effect.gen(function* () {
      const store = yield* Ref.make<ReadonlyArray<Question>>(seed)
      return RubricRepository.of({
        questions: (type) =>
          Effect.map(Ref.get(store), (qs) =>
            qs.filter((q) => q.entity_type === type).sort((a, b) => a.position - b.position)
          ),
        questionCounts: () =>
          Effect.map(Ref.get(store), (qs) => {
            const counts = Object.fromEntries(EntityTypes.map((t) => [t, 0])) as Record<EntityType, number>
            for (const q of qs) counts[q.entity_type]++
            return counts
          }),
        replace: (type, questions) =>
          Ref.update(store, (qs) => [...qs.filter((q) => q.entity_type !== type), ...questions])
      })
    })
  )

export const RubricRepositoryMemory = { layer }
