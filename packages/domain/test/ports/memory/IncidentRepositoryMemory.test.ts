/**
 * The IncidentRepository contract and the IncidentService-over-a-store
 * contract (test/support/contract) over the in-memory layers;
 * adapters-sql's PgIncidentRepository.test.ts runs them over Postgres.
 */
import { Effect, Layer, Ref } from "effect"
import { isReadable } from "../../../src/access/Readable.ts"
import { IdGeneratorMemory } from "../../../src/ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../../../src/ports/memory/IncidentRepositoryMemory.ts"
import { RatedProtocolsMemory } from "../../../src/ports/memory/RatedProtocolsMemory.ts"
import { IncidentService } from "../../../src/services/IncidentService.ts"
import { ProtocolRating } from "../../support/contract/events-incident-fixtures.ts"
import { incidentRepositoryContract } from "../../support/contract/events-incident-repository.ts"
import { incidentServiceContract } from "../../support/contract/events-incident-service.ts"

/**
 * Rating protocols in memory adds to the list behind `RatedProtocolsMemory.layer`
 * those the domain's readable rule reads that have a published scorecard.
 */
const memoryRating = Layer.effect(
  ProtocolRating,
  Effect.gen(function* () {
    const ref = yield* RatedProtocolsMemory
    return ProtocolRating.of({
      rate: (protocols) =>
        Ref.update(ref, (list) => [
          ...list,
          ...protocols
            .filter(
              (p) =>
                isReadable({
                  status: p.status ?? "published",
                  is_active: p.is_active ?? true,
                  is_private: p.is_private ?? false
                }) &&
                (p.scorecard === undefined || p.scorecard === "published")
            )
            .map((p) => ({ slug: p.slug, name: p.name }))
        ])
    })
  })
).pipe(Layer.provideMerge(RatedProtocolsMemory.layer))

incidentRepositoryContract("layerMemory", () =>
  IncidentRepositoryMemory.layer.pipe(Layer.provideMerge(memoryRating))
)

incidentServiceContract("layerMemory", () =>
  IncidentService.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(IncidentRepositoryMemory.layer, IdGeneratorMemory.layer)),
    Layer.provideMerge(memoryRating)
  )
)
