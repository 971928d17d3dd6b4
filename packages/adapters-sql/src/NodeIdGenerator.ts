/**
 * The domain's IdGenerator on the platform's cryptographic UUID v4: the ids
 * of what the stores keep (scorecards, deliveries, export watermarks),
 * provided with them.
 */
import { randomUUID } from "node:crypto"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import { Effect, Layer } from "effect"

export const NodeIdGenerator = Layer.succeed(
  IdGenerator,
  IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) })
)
