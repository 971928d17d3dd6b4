/**
 * The domain's IdGenerator on the platform's cryptographic UUID v4.
 */
import { randomUUID } from "node:crypto"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import { Effect, Layer } from "effect"

export const NodeIdGenerator = Layer.succeed(
  IdGenerator,
  IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) })
)
