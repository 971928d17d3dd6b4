import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { Caller } from "../../src/model/Caller.ts"
import { CompareNotFound, CompareService } from "../../src/services/CompareService.ts"
import { entity, scorecard } from "./fixtures.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"

const enterprise = Caller.apiKey("enterprise", "acct", "k")
const a = entity("chain", "ethereum")
const b = entity("chain", "solana")
const draft = entity("chain", "secret-chain", { status: "draft" })

const layer = CompareService.layer.pipe(
  Layer.provide(
    Layer.mergeAll(
      EntityRepositoryMemory.layer([a, b, draft]),
      ScorecardRepositoryMemory.layer({
        scorecards: [
          scorecard(a, 1, "superseded", { composite_score: 60 }),
          scorecard(a, 2, "published"),
          scorecard(b, 1, "published", { composite_score: 66, grade: "BBB", letter_grade: "BBB" })
        ]
      })
    )
  )
)

const fields = ["grade", "composite_score", "domain_scores", "last_rated_at"] as const

describe("CompareService", () => {
  it.effect(
    "each entity's grade, composite_score, domain_scores and last_rated_at from its latest published scorecard",
    () =>
      Effect.gen(function* () {
        const r = yield* (yield* CompareService).compare(enterprise, {
          entity_type: "chain",
          ids: [a.record.id, "solana"],
          fields
        })
        assert.deepStrictEqual(
          r.items.map((i) => [i.id, i.grade, i.composite_score]),
          [
            [a.record.id, "A", 80],
            [b.record.id, "BBB", 66]
          ]
        )
        assert.deepStrictEqual(r.items[0]!.domain_scores, { security: 0.8 })
      }).pipe(Effect.provide(layer))
  )

  it.effect("a non-published entity fails exactly like an unknown one, revealing nothing", () =>
    Effect.gen(function* () {
      const svc = yield* CompareService
      const e1 = yield* Effect.flip(
        svc.compare(enterprise, { entity_type: "chain", ids: ["ethereum", "secret-chain"], fields })
      )
      const e2 = yield* Effect.flip(
        svc.compare(enterprise, { entity_type: "chain", ids: ["ethereum", "nope-chain"], fields })
      )
      assert.strictEqual(e1._tag, "CompareNotFound")
      assert.strictEqual(e2._tag, "CompareNotFound")
      assert.deepStrictEqual(Object.keys(e1), Object.keys(e2))
    }).pipe(Effect.provide(layer))
  )

  it.effect("compare is Enterprise", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(
        (yield* CompareService).compare(Caller.apiKey("pro", "p", "k"), {
          entity_type: "chain",
          ids: ["ethereum"],
          fields
        })
      )
      assert.strictEqual(e._tag, "InsufficientTier")
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "every identifier is looked up in one read of the store, ids in any case, and answers in order",
    () =>
      Effect.gen(function* () {
        const reads = yield* Ref.make(0)
        // A store whose one-by-one lookups fail: compare must not go through them.
        const counting = Layer.effect(
          EntityRepository,
          Effect.map(Effect.service(EntityRepository), (store) =>
            EntityRepository.of({
              ...store,
              findById: () => Effect.die("compare looked an id up alone"),
              findBySlug: () => Effect.die("compare looked a slug up alone"),
              findMany: (type, lookup) =>
                Effect.andThen(
                  Ref.update(reads, (n) => n + 1),
                  store.findMany(type, lookup)
                )
            })
          )
        ).pipe(Layer.provide(EntityRepositoryMemory.layer([a, b, draft])))
        const svc = yield* Effect.provide(
          CompareService,
          CompareService.layer.pipe(
            Layer.provide(
              Layer.mergeAll(
                counting,
                ScorecardRepositoryMemory.layer({
                  scorecards: [scorecard(b, 1, "published", { composite_score: 66 })]
                })
              )
            )
          )
        )
        const r = yield* svc.compare(enterprise, {
          entity_type: "chain",
          ids: ["solana", a.record.id.toUpperCase(), "solana"],
          fields: ["slug", "composite_score"]
        })
        assert.deepStrictEqual(r.items, [
          { id: b.record.id, slug: "solana", composite_score: 66 },
          { id: a.record.id, slug: "ethereum", composite_score: null },
          { id: b.record.id, slug: "solana", composite_score: 66 }
        ])
        const missing = yield* Effect.flip(
          svc.compare(enterprise, { entity_type: "chain", ids: ["secret-chain", "ethereum", "nope"], fields })
        )
        assert.deepStrictEqual(missing, new CompareNotFound({ identifiers: ["secret-chain", "nope"] }))
        assert.strictEqual(yield* Ref.get(reads), 2)
      })
  )
})
