/**
 * The tier projection is one service read by the use cases that project
 * (issue 14, point 2): providing another `Projection` changes what they
 * answer, with no argument of theirs. Each case shows the standard answer
 * first, so the override is what makes the difference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { Projection, type TierProjection } from "../../src/access/Projection.ts"
import { Caller } from "../../src/model/Caller.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { CompareService } from "../../src/services/CompareService.ts"
import { Publisher } from "../../src/services/Publisher.ts"
import { RatingsReader } from "../../src/services/RatingsReader.ts"
import { entity, scorecard } from "./fixtures.ts"

const anonymous = Caller.anonymous("198.51.100.7")
const pro = Caller.apiKey("pro", "acct", "k")

const aave = entity("protocol", "aave-v3")
const draft = entity("protocol", "draft-protocol", { status: "draft" })
const cards = [scorecard(aave, 1, "superseded"), scorecard(aave, 2, "published")]

const stores = Layer.mergeAll(
  EntityRepositoryMemory.layer([aave, draft]),
  ScorecardRepositoryMemory.layer({ scorecards: cards }),
  RubricRepositoryMemory.layer([])
)

/** The standard projection with some of its members replaced. */
const projection = (over: Partial<TierProjection>) =>
  Layer.succeed(Projection, { ...Projection.defaultValue(), ...over })

describe("use cases read the Projection provided", () => {
  it.effect("RatingsReader: detail visibility is the projection's", () => {
    const detail = Effect.gen(function* () {
      const reader = yield* RatingsReader
      return yield* Effect.result(reader.detail(anonymous, "protocol", "draft-protocol", false))
    }).pipe(Effect.provide(RatingsReader.layer.pipe(Layer.provide(stores))))
    return Effect.gen(function* () {
      assert.isTrue(Result.isFailure(yield* detail), "a draft is not found by the public")
      const shown = yield* detail.pipe(Effect.provide(projection({ isDetailVisible: () => true })))
      assert.isTrue(Result.isSuccess(shown) && shown.success.slug === "draft-protocol")
    })
  })

  it.effect("RatingsReader: the scorecard list is the projection's", () => {
    const total = Effect.gen(function* () {
      const reader = yield* RatingsReader
      return (yield* reader.scorecards(pro, "protocol", "aave-v3")).total
    }).pipe(Effect.provide(RatingsReader.layer.pipe(Layer.provide(stores))))
    return Effect.gen(function* () {
      assert.strictEqual(yield* total, 2)
      assert.strictEqual(yield* total.pipe(Effect.provide(projection({ projectScorecardList: () => [] }))), 0)
    })
  })

  it.effect("CompareService: the tier gate is the projection's", () => {
    const compare = Effect.gen(function* () {
      const service = yield* CompareService
      return yield* Effect.result(
        service.compare(anonymous, { entity_type: "protocol", ids: ["aave-v3"], fields: ["grade"] })
      )
    }).pipe(Effect.provide(CompareService.layer.pipe(Layer.provide(stores))))
    return Effect.gen(function* () {
      const refused = yield* compare
      assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "MissingKey")
      const allowed = yield* compare.pipe(Effect.provide(projection({ authorize: () => Result.void })))
      assert.isTrue(Result.isSuccess(allowed) && allowed.success.items.length === 1)
    })
  })

  it.effect("Publisher: whether the public reads an entity is the projection's", () => {
    const readable = Effect.gen(function* () {
      const publisher = yield* Publisher
      return (yield* publisher.setStatus({ entity_type: "protocol", slug: "aave-v3", status: "published" }))
        .readable
    }).pipe(
      Effect.provide(
        Publisher.layer.pipe(
          Layer.provide(
            Layer.mergeAll(
              stores,
              AlertRuleRepositoryMemory.layer,
              DeliveryOutboxMemory.layer,
              IdGeneratorMemory.layer,
              TransactionMemory.layer,
              Scoring.layer
            )
          )
        )
      )
    )
    return Effect.gen(function* () {
      assert.isTrue(yield* readable)
      assert.isFalse(yield* readable.pipe(Effect.provide(projection({ isPubliclyReadable: () => false }))))
    })
  })
})
