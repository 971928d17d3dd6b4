/**
 * Port: fresh identifiers (export watermarks, scorecard and delivery ids). The
 * server's layer uses the platform's cryptographic UUID v4; the in-memory layer
 * counts, so tests see predictable ids.
 */
import { Context, Effect, Layer, Ref } from "effect"

export class IdGenerator extends Context.Service<
  IdGenerator,
  {
    readonly uuid: Effect.Effect<string>
  }
>()("@ratings/domain/ports/IdGenerator") {
  static readonly layerMemory = Layer.effect(
    IdGenerator,
    Effect.gen(function* () {
      const counter = yield* Ref.make(0)
      return IdGenerator.of({
        uuid: Effect.map(
          Ref.updateAndGet(counter, (n) => n + 1),
          (n) => `00000000-0000-4000-a000-${n.toString(16).padStart(12, "0")}`
        )
      })
    })
  )
}
