/**
 * What `Publisher.publishMany` reads of the entities: never every entity of a
 * type (a second copy of all records at import scale), only the slugs it
 * publishes or depends on, and none it is given by the caller
 * (`PublishManyOptions.entities`), with the same writes either way.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { EntityRecord } from "../../src/model/Entity.ts"
import type { EntityType } from "../../src/model/EntityType.ts"
import { EntityRepository, type StoredEntity } from "../../src/ports/EntityRepository.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { ScorecardRepository, type StoredScorecard } from "../../src/ports/ScorecardRepository.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"
import { type PublishAct, Publisher } from "../../src/services/Publisher.ts"
import { entity, scorecard, unscored, uuid } from "./fixtures.ts"

/** More protocols than the Publisher looks up one by one, each with a draft depending on an oracle. */
const Count = 80
const oracle = entity("oracle", "shared-oracle")
const protocols: ReadonlyArray<StoredEntity> = Array.from({ length: Count }, (_, i) =>
  entity("protocol", `many-${i}`, { categories: ["Lending"] })
)
const answer = (score: number) => ({
  id: uuid(),
  question_id: "S1",
  domain: "security",
  score,
  max_score: 4,
  weight: 1,
  confidence: "high" as const,
  response: null,
  rationale: null
})
const draftOf = (e: StoredEntity, i: number): StoredScorecard =>
  scorecard(e, 1, "draft", {
    ...unscored,
    domain_weights: { security: 100 },
    answers: [answer(i % 5)],
    dependencies: [{ entity_type: "oracle", slug: "shared-oracle", exposure: 0.5 }]
  })
const drafts = protocols.map(draftOf)
const oracleCard = scorecard(oracle, 1, "published", { composite_score: 40 })

const acts: ReadonlyArray<PublishAct> = protocols.map((e, i) => ({
  request: { entity_type: "protocol", slug: e.record.slug, reasoning: "bulk", actor: "analyst" },
  at: Date.parse("2026-10-01T00:00:00Z") + i
}))

/** The entity reads of one call, by method. */
type Reads = Record<"all" | "findMany" | "findBySlug" | "findById", number>

/** A fresh store whose entity port counts its reads. */
const countedLayer = (reads: Reads) =>
  Publisher.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Layer.effect(
          EntityRepository,
          Effect.gen(function* () {
            const inner = yield* EntityRepository
            const count =
              <A extends ReadonlyArray<unknown>, R>(name: keyof Reads, f: (...args: A) => R) =>
              (...args: A): R => {
                reads[name]++
                return f(...args)
              }
            return EntityRepository.of({
              ...inner,
              all: count("all", inner.all),
              findMany: count("findMany", inner.findMany),
              findBySlug: count("findBySlug", inner.findBySlug),
              findById: count("findById", inner.findById)
            })
          })
        ).pipe(Layer.provide(EntityRepositoryMemory.layer([oracle, ...protocols]))),
        ScorecardRepositoryMemory.layer({ scorecards: [oracleCard, ...drafts] }),
        RubricRepositoryMemory.layer([]),
        AlertRuleRepositoryMemory.layer,
        DeliveryOutboxMemory.layer,
        IdGeneratorMemory.layer,
        TransactionMemory.layer,
        Scoring.layer
      )
    )
  )

const noReads = (): Reads => ({ all: 0, findMany: 0, findBySlug: 0, findById: 0 })

/** The published scorecard of each protocol after publishMany with these options. */
const publishAll = (reads: Reads, entities?: (type: EntityType, slug: string) => EntityRecord | undefined) =>
  Effect.gen(function* () {
    const result = yield* (yield* Publisher).publishMany(acts, { entities })
    assert.strictEqual(result.published, Count)
    const repo = yield* ScorecardRepository
    const out: Array<unknown> = []
    for (const e of protocols) out.push(yield* repo.latest("protocol", e.record.id, "published"))
    return out
  }).pipe(Effect.provide(countedLayer(reads)))

describe("Publisher.publishMany entity reads", () => {
  it.effect("reads only the slugs it needs, in one read per type, never all of a type", () =>
    Effect.gen(function* () {
      const reads = noReads()
      yield* publishAll(reads)
      assert.strictEqual(reads.all, 0)
      // The 80 protocols in one read; the one oracle dependency by its slug.
      assert.strictEqual(reads.findMany, 1)
      assert.strictEqual(reads.findBySlug, 1)
    })
  )

  it.effect("takes the caller's records without reading them, and writes the same", () =>
    Effect.gen(function* () {
      const readAll = noReads()
      const fromStore = yield* publishAll(readAll)
      const given = noReads()
      const byKey = new Map(
        protocols.map((e) => [`${e.entity_type}:${e.record.slug}`, { ...e.record, categories: ["lending"] }])
      )
      const fromCaller = yield* publishAll(given, (type, slug) => byKey.get(`${type}:${slug}`))
      assert.deepStrictEqual(given, { all: 0, findMany: 0, findBySlug: 1, findById: 0 })
      assert.deepStrictEqual(fromCaller, fromStore)
    })
  )

  it.effect("a slug neither given nor stored still fails as EntityNotFound", () => {
    const reads = noReads()
    return Effect.gen(function* () {
      const missing = { request: { ...acts[0]!.request, slug: "no-such-protocol" }, at: acts[0]!.at }
      const error = yield* Effect.flip(
        (yield* Publisher).publishMany([...acts, missing], { entities: () => undefined })
      )
      assert.strictEqual(error._tag, "EntityNotFound")
      assert.strictEqual(reads.all, 0)
      assert.strictEqual(reads.findMany, 1)
    }).pipe(Effect.provide(countedLayer(reads)))
  })
})
