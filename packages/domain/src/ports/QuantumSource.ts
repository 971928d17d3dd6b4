/**
 * Port: the third-party quantum-readiness dataset (LayerQu). It hands back the
 * rows as raw JSON values; reading and checking them is the domain's job
 * (`quantum/QuantumRows.ts`), so an adapter never decides which rows count.
 *
 * `QuantumSourceMemory.layer` (memory/QuantumSourceMemory.ts) is scripted:
 * tests tell it, through the `QuantumSourceMemory` service, what the next
 * fetch returns or that the source is unreachable.
 */
import { Context, type Effect, Schema } from "effect"

/** The source could not be read at all (unreachable, timed out, not a JSON array). */
export class QuantumSourceError extends Schema.TaggedError<QuantumSourceError>()("QuantumSourceError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

export class QuantumSource extends Context.Service<
  QuantumSource,
  {
    /** The upstream's rows, unchecked. */
    readonly fetch: Effect.Effect<ReadonlyArray<unknown>, QuantumSourceError>
    /** True when this source serves the sample data shipped with the service, not the live upstream. */
    readonly sample?: boolean
  }
>()("@ratings/domain/ports/QuantumSource") {}
