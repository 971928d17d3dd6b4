/**
 * Port: the chains quantum-readiness rows may match (spec part 4 "Quantum
 * readiness" rule 1: drafts included, not necessarily rated). Private and
 * inactive chains are left out: the spec's allowance is for chains not yet
 * published, and a public table may not name a chain a list hides
 * (docs/adr/0003-access-and-lists.md), so such a chain answers like an unknown one.
 *
 * `layerEntities` reads them from `EntityRepository`; `layerMemory` keeps a
 * list that tests set through `ChainDirectoryMemory`.
 */
import { Context, Effect, Layer, Ref } from "effect"
import type { ServiceChain } from "../quantum/QuantumRows.ts"
import { EntityRepository } from "./EntityRepository.ts"
import type { StoreError } from "./StoreError.ts"

/** The list behind `ChainDirectory.layerMemory`; tests set it to create chains. */
export class ChainDirectoryMemory extends Context.Service<
  ChainDirectoryMemory,
  Ref.Ref<ReadonlyArray<ServiceChain>>
>()("@ratings/domain/ports/ChainDirectoryMemory") {}

export class ChainDirectory extends Context.Service<
  ChainDirectory,
  { readonly all: Effect.Effect<ReadonlyArray<ServiceChain>, StoreError> }
>()("@ratings/domain/ports/ChainDirectory") {
  static readonly layerMemory = Layer.effect(
    ChainDirectory,
    Effect.gen(function* () {
      const ref = yield* ChainDirectoryMemory
      return ChainDirectory.of({ all: Ref.get(ref) })
    })
  ).pipe(Layer.provideMerge(Layer.effect(ChainDirectoryMemory, Ref.make<ReadonlyArray<ServiceChain>>([]))))

  static readonly layerEntities = Layer.effect(
    ChainDirectory,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      return ChainDirectory.of({
        all: Effect.suspend(() =>
          Effect.map(entities.all("chain"), (records) =>
            records
              .filter((r) => !r.is_private && r.is_active)
              .map((r) => ({ slug: r.slug, name: r.name, status: r.status }))
          )
        )
      })
    })
  )
}
