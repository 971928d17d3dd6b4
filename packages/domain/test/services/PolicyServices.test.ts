/**
 * The policies the domain is built around are typed services, read by the use
 * cases that need them (issue 14, point 2): providing one changes what the use
 * case does, with no constructor argument; and the store serialises ingest
 * through its own port operation while the IncidentService owns the rule.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref, Schema } from "effect"
import { Projection } from "../../src/access/Projection.ts"
import { IncidentLifecycle, toServed } from "../../src/incidents/IncidentLifecycle.ts"
import { IncidentFeedQuery } from "../../src/model/Incident.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../../src/ports/memory/IncidentRepositoryMemory.ts"
import { IncidentRepository } from "../../src/ports/IncidentRepository.ts"
import {
  IncidentService,
  type RatedProtocols,
  RatedProtocolsMemory
} from "../../src/services/IncidentService.ts"
import { report } from "../incidents/IncidentFixtures.ts"

const everyTier = Schema.decodeUnknownSync(IncidentFeedQuery)({ min_status: "rumored" })

/** The memory repository, counting the ingests run through `withIngestLock` and the work done inside it. */
const countedRepository = () => {
  const counts = { locked: 0, upsertsInside: 0, upsertsOutside: 0 }
  let inside = false
  const layer = Layer.effect(
    IncidentRepository,
    Effect.gen(function* () {
      const inner = yield* IncidentRepository
      return IncidentRepository.of({
        ...inner,
        upsert: (record) =>
          Effect.andThen(
            Effect.sync(() => (inside ? counts.upsertsInside++ : counts.upsertsOutside++)),
            inner.upsert(record)
          ),
        withIngestLock: (ingest) =>
          Effect.suspend(() => {
            counts.locked++
            inside = true
            return Effect.ensuring(
              inner.withIngestLock(ingest),
              Effect.sync(() => {
                inside = false
              })
            )
          })
      })
    })
  ).pipe(Layer.provide(IncidentRepositoryMemory.layer))
  return { counts, layer }
}

const service = (repository: Layer.Layer<IncidentRepository, never, RatedProtocols>) =>
  IncidentService.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(repository, IdGeneratorMemory.layer)),
    Layer.provideMerge(RatedProtocolsMemory.layer)
  )

describe("policy services", () => {
  it.effect("every ingest runs whole through the store's withIngestLock, its write inside it", () => {
    const { counts, layer } = countedRepository()
    return Effect.gen(function* () {
      const incidents = yield* IncidentService
      yield* incidents.ingest(report({ handle: "blockaid" }))
      yield* incidents.ingest(report({ handle: "peckshield" }))
      assert.deepStrictEqual(counts, { locked: 2, upsertsInside: 2, upsertsOutside: 0 })
    }).pipe(Effect.provide(service(layer)))
  })

  it.effect("IncidentService reads the IncidentLifecycle provided, not a function of its own", () =>
    Effect.gen(function* () {
      const incidents = yield* IncidentService
      yield* incidents.ingest(report({ handle: "blockaid", claimed_tier: "confirmed" }))
      const result = yield* incidents.ingest(report({ handle: "peckshield", claimed_tier: "confirmed" }))
      assert.strictEqual(result.status, "confirmed")
      assert.isUndefined(result.served, "the provided lifecycle serves nothing")
    }).pipe(
      Effect.provide(service(IncidentRepositoryMemory.layer)),
      Effect.provide(
        Layer.succeed(IncidentLifecycle, { ...IncidentLifecycle.defaultValue(), toServed: () => undefined })
      )
    )
  )

  it.effect("without a provider the lifecycle is the pure functions", () =>
    Effect.gen(function* () {
      const lifecycle = yield* IncidentLifecycle
      assert.strictEqual(lifecycle.toServed, toServed)
    })
  )

  it.effect("the incident feed asks the Projection provided whether the caller is an admin", () => {
    /** An incident matched to a protocol hidden since: the public reads it unmatched, an admin as stored. */
    const slugServedTo = Effect.gen(function* () {
      const incidents = yield* IncidentService
      const rated = yield* RatedProtocolsMemory
      yield* Ref.set(rated, [{ slug: "hidden", name: "Hidden" }])
      yield* incidents.ingest(
        report({ handle: "blockaid", claimed_tier: "confirmed", protocol_name: "Hidden" })
      )
      yield* incidents.ingest(
        report({ handle: "peckshield", claimed_tier: "confirmed", protocol_name: "Hidden" })
      )
      yield* Ref.set(rated, [])
      const page = yield* incidents.feed(everyTier, { _tag: "Anonymous", ip: "192.0.2.1" })
      return page.items.map((i) => i.slug)
    })
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* slugServedTo.pipe(Effect.provide(IncidentService.layerTest)), [null])
      // Under a projection that takes every caller for an admin, the stored match is served.
      const everyoneAdmin = Layer.succeed(Projection, { ...Projection.defaultValue(), isAdmin: () => true })
      assert.deepStrictEqual(
        yield* slugServedTo.pipe(Effect.provide(IncidentService.layerTest), Effect.provide(everyoneAdmin)),
        ["hidden"]
      )
    })
  })
})
