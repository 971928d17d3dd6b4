/** The request to publish an entity's latest draft (the CLI's `ratings publish`, an import's publications). */
import type { EntityType } from "./EntityType.ts"

export interface PublishRequest {
  readonly entity_type: EntityType
  readonly slug: string
  readonly reasoning: string
  readonly actor: string
}
