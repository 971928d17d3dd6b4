/**
 * `Importer.apply` gives the Publisher its publications in calls of at most
 * `PublicationBatch` (ApplyPlan.ts): a call holds the record of every entity
 * it publishes, so a large import's one run of an entity each must not be one
 * call. The calls keep the plan's order, and the outcome is that of one call.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { IncidentService } from "../../src/services/IncidentService.ts"
import { Importer } from "../../src/services/Importer.ts"
import { PublicationBatch } from "../../src/services/importer/ApplyPlan.ts"
import { Publisher } from "../../src/services/Publisher.ts"
import { answer, entity, file, protocolQuestions, publication, scorecard } from "../import/ImportFixtures.ts"

/** The slugs of each `publishMany` call, in order. */
const calls: Array<ReadonlyArray<string>> = []

const countingPublisher = Layer.effect(
  Publisher,
  Effect.gen(function* () {
    const publisher = yield* Publisher
    return Publisher.of({
      ...publisher,
      publishMany: (acts, options) => {
        calls.push(acts.map((a) => a.request.slug))
        return publisher.publishMany(acts, options)
      }
    })
  })
).pipe(Layer.provide(Publisher.layer))

const layer = Importer.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(countingPublisher, IncidentService.layer)),
  Layer.provideMerge(Importer.memoryPorts)
)

describe("Importer.apply publication calls", () => {
  it.effect(
    "a run of more publications than a call takes is given in calls of at most that many, in order",
    () =>
      Effect.gen(function* () {
        const n = PublicationBatch + 2
        const slugs = Array.from({ length: n }, (_, k) => `p-${k}`)
        const content = file({
          entities: slugs.map((slug, k) => entity("protocol", slug, k + 1)),
          questions: protocolQuestions,
          scorecards: slugs.map((slug, k) =>
            scorecard(1_000_000 + k, slug, 1, [
              answer(2_000_000 + 3 * k, "PROT-SEC-01", "security", 4),
              answer(2_000_001 + 3 * k, "PROT-SEC-02", "security", 2),
              answer(2_000_002 + 3 * k, "PROT-GOV-01", "governance", 3)
            ])
          ),
          publications: slugs.map((slug) => publication(slug, 1, "2026-05-01T00:00:00Z"))
        })
        const importer = yield* Importer
        const plan = yield* importer.validate([{ name: "many.json", content }])
        calls.length = 0
        const report = yield* importer.apply(plan)
        assert.strictEqual(report.publications.created, n)
        assert.deepStrictEqual(
          calls.map((c) => c.length),
          [PublicationBatch, 2]
        )
        assert.deepStrictEqual(calls.flat(), slugs)
        const scorecards = yield* ScorecardRepository
        const last = yield* scorecards.latestPublishedOf("protocol", [plan.entities.at(-1)!.entity.record.id])
        assert.strictEqual(last.size, 1)
      }).pipe(Effect.provide(layer)),
    120_000
  )
})
