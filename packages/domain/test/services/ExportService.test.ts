import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Caller } from "../../src/model/Caller.ts"
import { parseFields } from "../../src/model/ExportFields.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { ExportLog } from "../../src/ports/ExportLog.ts"
import { ExportPageSize, type ExportResult, ExportService } from "../../src/services/ExportService.ts"
import { entity, scorecard } from "./fixtures.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { ExportLogMemory } from "../../src/ports/memory/ExportLogMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"

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
      EntityRepositoryMemory.layer([a, b, unrated, draft, secret]),
      ScorecardRepositoryMemory.layer({
        scorecards: [
          scorecard(a, 1, "superseded", { composite_score: 70, grade: "BBB", letter_grade: "BBB" }),
          scorecard(a, 2, "published", { composite_score: 81.5 }),
          scorecard(b, 1, "published"),
          scorecard(draft, 1, "published")
        ]
      }),
      ExportLogMemory.layer,
      IdGeneratorMemory.layer
    )
  )
)

const request = {
  entity_type: "protocol" as const,
  fields: ["slug", "composite_score", "grade"] as const,
  limit: 1000,
  format: "csv" as const
}

/** Every row of an export, pulling its whole stream of pages. */
const rowsOf = (result: ExportResult) => Effect.map(Stream.runCollect(result.pages), (pages) => pages.flat())

describe("ExportService", () => {
  it.effect("published entities only, with figures from each one's latest published scorecard", () =>
    Effect.gen(function* () {
      const r = yield* (yield* ExportService).export(pro, request)
      assert.deepStrictEqual(
        (yield* rowsOf(r)).map((row) => [row.slug, row.composite_score, row.grade]),
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
      assert.isTrue((yield* rowsOf(first)).every((row) => row.__export_id === first.export_id))
      const logged = yield* (yield* ExportLog).find(first.export_id)
      assert.isTrue(
        logged._tag === "Some" &&
          logged.value.account_id === "acct-pro" &&
          logged.value.key_id === "k1" &&
          logged.value.row_count === 3
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("limit caps the rows", () =>
    Effect.gen(function* () {
      const r = yield* (yield* ExportService).export(pro, { ...request, limit: 1 })
      assert.strictEqual((yield* rowsOf(r)).length, 1)
      assert.strictEqual(r.row_count, 1)
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

  describe("streamed in pages (flat memory at 5000 rows)", () => {
    const many = Array.from({ length: 3 * ExportPageSize + 137 }, (_, i) =>
      entity("vault", `v-${String(i).padStart(5, "0")}`, i % 7 === 3 ? { status: "draft" } : {})
    )
    const listed = many.filter((e) => e.record.status === "published").map((e) => e.record.slug)
    /** The export service over a store that notes the size of every page it is asked for. */
    const counting = Effect.gen(function* () {
      const reads = yield* Ref.make<ReadonlyArray<number>>([])
      const base = yield* EntityRepository
      const counted = Layer.succeed(
        EntityRepository,
        EntityRepository.of({
          ...base,
          published: (type, limit, after) =>
            Effect.tap(base.published(type, limit, after), (page) =>
              Ref.update(reads, (r) => [...r, page.length])
            )
        })
      )
      const svc = yield* Effect.provide(
        Effect.gen(function* () {
          return yield* ExportService
        }),
        ExportService.layer.pipe(Layer.provide(counted))
      )
      return { reads, svc }
    })
    const manyLayer = Layer.mergeAll(
      EntityRepositoryMemory.layer(many),
      ScorecardRepositoryMemory.layer({
        scorecards: many.slice(0, 40).map((e) => scorecard(e, 1, "published"))
      }),
      ExportLogMemory.layer,
      IdGeneratorMemory.layer
    )
    const vaults = { ...request, entity_type: "vault" as const, fields: ["slug", "grade"] as const }

    it.effect("every published row once, in list order, across pages of at most ExportPageSize rows", () =>
      Effect.gen(function* () {
        const { reads, svc } = yield* counting
        const r = yield* svc.export(pro, { ...vaults, limit: 5000 })
        const rows = yield* rowsOf(r)
        assert.deepStrictEqual(
          rows.map((row) => row.slug),
          listed
        )
        assert.strictEqual(r.row_count, listed.length)
        const sizes = yield* Ref.get(reads)
        assert.isTrue(sizes.length >= 3 && sizes.every((n) => n <= ExportPageSize), `page sizes ${sizes}`)
        assert.strictEqual(rows.filter((row) => row.grade !== null).length, 40 - 6)
      }).pipe(Effect.provide(manyLayer))
    )

    it.effect("the limit ends the stream mid-page, and counts the recorded row_count", () =>
      Effect.gen(function* () {
        const svc = yield* ExportService
        const r = yield* svc.export(pro, { ...vaults, limit: ExportPageSize + 3 })
        const rows = yield* rowsOf(r)
        assert.deepStrictEqual(
          rows.map((row) => row.slug),
          listed.slice(0, ExportPageSize + 3)
        )
        const logged = yield* (yield* ExportLog).find(r.export_id)
        assert.isTrue(logged._tag === "Some" && logged.value.row_count === ExportPageSize + 3)
      }).pipe(Effect.provide(ExportService.layer.pipe(Layer.provideMerge(manyLayer))))
    )

    it.effect(
      "entities published while an export streams never make it longer than the row_count it recorded",
      () =>
        Effect.gen(function* () {
          const svc = yield* ExportService
          const r = yield* svc.export(pro, { ...vaults, limit: 5000 })
          // One sorts before every row, one after: without the cap both would be sent.
          yield* (yield* EntityRepository).upsert([
            entity("vault", "a-late-arrival"),
            entity("vault", "v-99999-late")
          ])
          const rows = yield* rowsOf(r)
          assert.strictEqual(r.row_count, listed.length)
          assert.strictEqual(rows.length, r.row_count)
          const logged = yield* (yield* ExportLog).find(r.export_id)
          assert.isTrue(logged._tag === "Some" && logged.value.row_count === rows.length)
        }).pipe(Effect.provide(ExportService.layer.pipe(Layer.provideMerge(manyLayer))))
    )

    it.effect("pages are read from the store only as the stream is pulled", () =>
      Effect.gen(function* () {
        const { reads, svc } = yield* counting
        const r = yield* svc.export(pro, { ...vaults, limit: 5000 })
        assert.deepStrictEqual(yield* Ref.get(reads), [], "nothing read before the stream is pulled")
        const firstPage = yield* Stream.runHead(r.pages)
        assert.isTrue(firstPage._tag === "Some" && firstPage.value.length === ExportPageSize)
        assert.deepStrictEqual(yield* Ref.get(reads), [ExportPageSize], "one page read for one page pulled")
      }).pipe(Effect.provide(manyLayer))
    )

    it.effect("an empty export is an empty stream", () =>
      Effect.gen(function* () {
        const r = yield* (yield* ExportService).export(pro, { ...vaults, entity_type: "bridge" })
        assert.deepStrictEqual(yield* rowsOf(r), [])
        assert.strictEqual(r.row_count, 0)
      }).pipe(Effect.provide(ExportService.layer.pipe(Layer.provideMerge(manyLayer))))
    )
  })
})
