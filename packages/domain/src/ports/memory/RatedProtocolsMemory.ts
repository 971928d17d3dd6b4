/** The in-memory `RatedProtocols`: a list that tests set to rate a protocol. */
import { Context, Effect, Layer, Ref } from "effect"
import type { RatedProtocol } from "../../incidents/IncidentMatching.ts"
import { RatedProtocols } from "../RatedProtocols.ts"

/** The list behind `RatedProtocolsMemory.layer`; tests set it to rate a protocol. */
export class RatedProtocolsMemory extends Context.Service<
  RatedProtocolsMemory,
  Ref.Ref<ReadonlyArray<RatedProtocol>>
>()("@ratings/domain/services/RatedProtocolsMemory") {
  /** `RatedProtocols` over a fresh, empty list, both exposed. */
  static readonly layer = Layer.effect(
    RatedProtocols,
    Effect.gen(function* () {
      const ref = yield* RatedProtocolsMemory
      return RatedProtocols.of({
        published: Ref.get(ref),
        readable: (slugs) =>
          Effect.map(Ref.get(ref), (rated) => {
            const wanted = new Set(slugs)
            return new Set(rated.map((p) => p.slug).filter((slug) => wanted.has(slug)))
          })
      })
    })
  ).pipe(Layer.provideMerge(Layer.effect(RatedProtocolsMemory, Ref.make<ReadonlyArray<RatedProtocol>>([]))))
}
