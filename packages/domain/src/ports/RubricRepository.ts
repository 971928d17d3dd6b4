/**
 * Port: the question catalogue and rubric of each entity type, in canonical
 * order. Bridges use the 62-question catalogue.
 */
import { Context, type Effect } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { Question } from "../model/Question.ts"
import type { StoreError } from "./StoreError.ts"

export class RubricRepository extends Context.Service<
  RubricRepository,
  {
    readonly questions: (type: EntityType) => Effect.Effect<ReadonlyArray<Question>, StoreError>
    /** How many questions each type's catalogue holds (0 for a type without one), in one read. */
    readonly questionCounts: () => Effect.Effect<Readonly<Record<EntityType, number>>, StoreError>
    readonly replace: (
      type: EntityType,
      questions: ReadonlyArray<Question>
    ) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/RubricRepository") {}
