/**
 * The IncidentRepository contract and the IncidentService-over-a-store
 * contract (test/support/contract) over the in-memory layers;
 * adapters-sql's PgIncidentRepository.test.ts runs them over Postgres.
 */
import { Effect, Layer, Ref } from "effect"
import { IdGeneratorMemory } from "../../../src/ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../../../src/ports/memory/IncidentRepositoryMemory.ts"
import {
  IncidentService,
  RatedProtocols,
  RatedProtocolsMemory
} from "../../../src/services/IncidentService.ts"
import { ProtocolRating } from "../../support/contract/events-incident-fixtures.ts"
import { incidentRepositoryContract } from "../../support/contract/events-incident-repository.ts"
import { incidentServiceContract } from "../../support/contract/events-incident-service.ts"

/** Rating a protocol in memory replaces the list behind `RatedProtocols.layerMemory`. */
const memoryRating = Layer.effect(
  ProtocolRating,
  Effect.gen(function* () {
    const ref = yield* RatedProtocolsMemory
    return ProtocolRating.of({ rate: (protocols) => Ref.set(ref, protocols) })
  })
).pipe(Layer.provideMerge(RatedProtocols.layerMemory))

incidentRepositoryContract("layerMemory", () => IncidentRepositoryMemory.layer)

incidentServiceContract("layerMemory", () =>
  IncidentService.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(IncidentRepositoryMemory.layer, memoryRating, IdGeneratorMemory.layer))
  )
)
