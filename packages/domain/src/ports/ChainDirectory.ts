/**
 * Port: the chains quantum-readiness rows may match (spec part 4 "Quantum
 * readiness" rule 1: drafts included, not necessarily rated). Private and
 * inactive chains are left out: the spec's allowance is for chains not yet
 * published, and a public table may not name a chain a list hides
 * (docs/adr/0003-access-and-lists.md), so such a chain answers like an unknown one.
 *
 * `layerEntities` reads them from `EntityRepository`; the in-memory
 * `ChainDirectoryMemory.layer` (memory/ChainDirectoryMemory.ts) keeps a list
 * that tests set through the `ChainDirectoryMemory` service.
 */
import { Context, Effect, Layer } from "effect"
import { isVisible } from "../access/Readable.ts"
import type { ServiceChain } from "../quantum/QuantumRows.ts"
import { EntityRepository } from "./EntityRepository.ts"
import type { StoreError } from "./StoreError.ts"

export class ChainDirectory extends Context.Service<
  ChainDirectory,
  { readonly all: Effect.Effect<ReadonlyArray<ServiceChain>, StoreError> }
>()("@ratings/domain/ports/ChainDirectory") {
  static readonly layerEntities = Layer.effect(
    ChainDirectory,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      return ChainDirectory.of({
        all: Effect.suspend(() =>
          Effect.map(entities.all("chain"), (records) =>
            records.filter(isVisible).map((r) => ({ slug: r.slug, name: r.name, status: r.status }))
          )
        )
      })
    })
  )
}
