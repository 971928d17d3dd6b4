/**
 * RatingsReader.scorecardsOfMany: the scorecard lists of many entities at
 * once are, entity by entity, exactly what the scorecard route lists for the
 * same caller (the latest published one for anonymous and Free callers, the
 * published history for Pro and Enterprise), read in one batched store read
 * whatever the number of entities, never one per entity.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Caller } from "../../src/model/Caller.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { RatingsReader } from "../../src/services/RatingsReader.ts"
import { entity, scorecard } from "./fixtures.ts"

const aave = entity("protocol", "aave-v3")
const comp = entity("protocol", "compound-v3")
const unrated = entity("protocol", "unrated")
const cards = [
  scorecard(aave, 1, "superseded"),
  scorecard(aave, 2, "published"),
  scorecard(aave, 3, "draft"),
  scorecard(comp, 1, "published")
]

const reads = { batched: 0, single: 0 }

/** The memory store with its reads counted. */
const counted = Layer.effect(
  ScorecardRepository,
  Effect.map(Effect.service(ScorecardRepository), (store) =>
    ScorecardRepository.of({
      ...store,
      latestPublishedOf: (type, ids) =>
        Effect.suspend(() => ((reads.batched += 1), store.latestPublishedOf(type, ids))),
      listForEntities: (type, ids) =>
        Effect.suspend(() => ((reads.batched += 1), store.listForEntities(type, ids))),
      listForEntity: (type, id) => Effect.suspend(() => ((reads.single += 1), store.listForEntity(type, id)))
    })
  )
).pipe(Layer.provide(ScorecardRepositoryMemory.layer({ scorecards: cards, history: [] })))

const layer = RatingsReader.layer.pipe(
  Layer.provide(
    Layer.mergeAll(
      EntityRepositoryMemory.layer([aave, comp, unrated]),
      counted,
      RubricRepositoryMemory.layer([])
    )
  )
)

const callers = [
  Caller.anonymous("198.51.100.1"),
  Caller.apiKey("free", "a", "k"),
  Caller.apiKey("pro", "a", "k"),
  Caller.apiKey("enterprise", "a", "k")
]

describe("RatingsReader.scorecardsOfMany", () => {
  it.effect("lists each entity's scorecards as its scorecard route does, in one batched read", () =>
    Effect.gen(function* () {
      const reader = yield* RatingsReader
      const ids = [aave.record.id, comp.record.id, unrated.record.id]
      for (const caller of callers) {
        reads.batched = 0
        reads.single = 0
        const many = yield* reader.scorecardsOfMany(caller, "protocol", ids)
        assert.strictEqual(reads.batched, 1, caller._tag)
        assert.strictEqual(reads.single, 0, caller._tag)
        for (const record of [aave, comp, unrated]) {
          const route = yield* reader.scorecards(caller, "protocol", record.record.slug)
          assert.deepStrictEqual(many.get(record.record.id) ?? [], route.items, record.record.slug)
        }
      }
      assert.strictEqual((yield* reader.scorecardsOfMany(callers[0]!, "protocol", [])).size, 0)
    }).pipe(Effect.provide(layer))
  )
})
