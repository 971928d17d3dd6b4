/** The in-memory `ChainDirectory` (tests, the demo): a list tests set. */
import { Context, Effect, Layer, Ref } from "effect"
import type { ServiceChain } from "../../quantum/QuantumRows.ts"
import { ChainDirectory } from "../ChainDirectory.ts"

/** The list behind the in-memory `ChainDirectory` (`ChainDirectoryMemory.layer`); tests set it to create chains. */
export class ChainDirectoryMemory extends Context.Service<
  ChainDirectoryMemory,
  Ref.Ref<ReadonlyArray<ServiceChain>>
>()("@ratings/domain/ports/ChainDirectoryMemory") {
  /** The in-memory `ChainDirectory`, over the list it provides alongside. */
  static readonly layer = Layer.effect(
    ChainDirectory,
    Effect.gen(function* () {
      const ref = yield* ChainDirectoryMemory
      return ChainDirectory.of({ all: Ref.get(ref) })
    })
  ).pipe(Layer.provideMerge(Layer.effect(ChainDirectoryMemory, Ref.make<ReadonlyArray<ServiceChain>>([]))))
}
