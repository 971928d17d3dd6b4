import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { TestClock } from "effect/testing"
import { Caller } from "../../src/model/Caller.ts"
import { parseFields } from "../../src/model/ExportFields.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { ExportLog } from "../../src/ports/ExportLog.ts"
import { IdGenerator } from "../../src/ports/IdGenerator.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { ExportService } from "../../src/services/ExportService.ts"
import { entity, scorecard } from "./fixtures.ts"

const pro = Caller.apiKey("pro", "acct-pro", "k1")
const enterprise = Caller.apiKey("enterprise", "acct-ent", "k2")

const a = entity("protocol", "alpha")
const b = entity("protocol", "beta")
const unrated = entity("protocol", "gamma")
const draft = entity("protocol", "delta-draft", { status: "draft" })
const secret = entity("protocol", "epsilon-private", { is_private: true })

const layer = ExportService.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      EntityRepository.layerMemory([a, b, unrated, draft, secret]),
      ScorecardRepository.layerMemory({
        scorecards: [
          scorecard(a, 1, "superseded", { composite_score: 70, grade: "BBB", letter_grade: "BBB" }),
          scorecard(a, 2, "published", { composite_score: 81.5 }),
          scorecard(b, 1, "published"),
          scorecard(draft, 1, "published")
        ]
      }),
      ExportLog.layerMemory,
      IdGenerator.layerMemory
    )
  )
)

const request = {
  entity_type: "protocol" as const,
  fields: ["slug", "composite_score", "grade"] as const,
  limit: 1000,
  format: "csv" as const
}

describe("ExportService", () => {
  it.effect("published entities only, with figures from each one's latest published scorecard", () =>
    Effect.gen(function* () {
      const r = yield* (yield* ExportService).export(pro, request)
      assert.deepStrictEqual(
        r.rows.map((row) => [row.slug, row.composite_score, row.grade]),
        [
          ["alpha", 81.5, "A"],
          ["beta", 80, "A"],
          ["gamma", null, null]
        ]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("every export gets its own __export_id watermark, on every row, recorded with who and what", () =>
    Effect.gen(function* () {
      const svc = yield* ExportService
      const first = yield* svc.export(pro, request)
      const second = yield* svc.export(pro, request)
      assert.notStrictEqual(first.export_id, second.export_id)
      assert.isTrue(first.rows.every((row) => row.__export_id === first.export_id))
      const logged = yield* (yield* ExportLog).find(first.export_id)
      assert.isTrue(
        logged._tag === "Some" && logged.value.account_id === "acct-pro" && logged.value.row_count === 3
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("limit caps the rows", () =>
    Effect.gen(function* () {
      const r = yield* (yield* ExportService).export(pro, { ...request, limit: 1 })
      assert.strictEqual(r.rows.length, 1)
    }).pipe(Effect.provide(layer))
  )

  it.effect("bulk export quota: 5 per rolling 24 hours per account, every tier including Enterprise", () =>
    Effect.gen(function* () {
      const svc = yield* ExportService
      for (let i = 0; i < 5; i++) {
        yield* svc.export(enterprise, request)
        yield* TestClock.adjust("1 hour")
      }
      const sixth = yield* Effect.flip(svc.export(enterprise, request))
      assert.strictEqual(sixth._tag, "ExportQuotaExceeded")
      if (sixth._tag === "ExportQuotaExceeded") assert.strictEqual(sixth.retry_after_seconds, 19 * 3600)
      // another account is not affected
      yield* svc.export(pro, request)
      // rolling: once the first export is more than 24 h old, one slot frees up
      yield* TestClock.adjust("19 hours")
      yield* TestClock.adjust("1 second")
      yield* svc.export(enterprise, request)
      assert.strictEqual((yield* Effect.flip(svc.export(enterprise, request)))._tag, "ExportQuotaExceeded")
    }).pipe(Effect.provide(layer))
  )

  it.effect("exports are Pro: anonymous is missing_key, Free is insufficient", () =>
    Effect.gen(function* () {
      const svc = yield* ExportService
      assert.strictEqual((yield* Effect.flip(svc.export(Caller.anonymous("x"), request)))._tag, "MissingKey")
      assert.strictEqual(
        (yield* Effect.flip(svc.export(Caller.apiKey("free", "f", "k"), request)))._tag,
        "InsufficientTier"
      )
    }).pipe(Effect.provide(layer))
  )

  it("fields are drawn from slug, name, grade, letter_grade, composite_score, domain_scores, last_rated_at", () => {
    assert.deepStrictEqual(Result.getOrThrow(parseFields("slug, name,slug")), ["slug", "name"])
    const bad = parseFields("slug,secret")
    assert.isTrue(Result.isFailure(bad) && bad.failure.includes("secret"))
    assert.isTrue(Result.isFailure(parseFields(" , ")))
  })
})
