/**
 * What keeps an import from hurting stored data, on the in-memory stores:
 * ids left out are derived or matched to the stored entity and scorecard by
 * slug and version; a merged catalogue keeps stored questions while a
 * replaced one removes them; and the plan says what an import would remove
 * (questions, quantum rows, superseded published scorecards), per kind.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { entityIdOf, scorecardIdOf } from "../../src/import/ImportIds.ts"
import type { ImportSource } from "../../src/import/ImportJsonText.ts"
import type { CatalogueMode } from "../../src/import/ImportCatalogue.ts"
import { changedNothing } from "../../src/import/ImportPlan.ts"
import { forbiddenKinds, refusalOf, removalsOf, removedCount } from "../../src/import/ImportRemovals.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { RubricRepository } from "../../src/ports/RubricRepository.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { Importer } from "../../src/services/Importer.ts"
import {
  entity,
  file,
  type Json,
  protocolAnswers,
  protocolQuestions,
  publication,
  question,
  quantumRow,
  scorecard
} from "../import/ImportFixtures.ts"

const src = (name: string, content: Json): ImportSource => ({ name, content })

const planOf = (content: Json, catalogues?: CatalogueMode) =>
  Effect.flatMap(Importer, (i) => i.validate([src("f.json", content)], { catalogues }))

const run = (content: Json, catalogues?: CatalogueMode) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    return yield* importer.apply(yield* planOf(content, catalogues))
  })

/** Drops the ids of an entity's record, a scorecard and its answers. */
const withoutIds = (o: Json): Json => {
  const { id: _, ...rest } = o
  if ("record" in rest) {
    const { id: _r, ...record } = rest.record as Json
    return { ...rest, record }
  }
  if ("answers" in rest) return { ...rest, answers: (rest.answers as Array<Json>).map(withoutIds) }
  return rest
}

const draftFile = (over: Json = {}) =>
  file({
    entities: [withoutIds(entity("protocol", "lend", 1))],
    questions: protocolQuestions,
    scorecards: [withoutIds(scorecard(10, "lend", 1, protocolAnswers(100)))],
    ...over
  })

describe("Importer: ids left out", () => {
  it.effect("are derived from type, slug and version, and a second import changes nothing", () =>
    Effect.gen(function* () {
      yield* run(draftFile())
      const [stored] = yield* (yield* EntityRepository).all("protocol")
      assert.strictEqual(stored?.id, entityIdOf("protocol", "lend"))
      const cards = yield* (yield* ScorecardRepository).listForEntity("protocol", stored!.id)
      assert.deepStrictEqual(
        cards.map((c) => c.id),
        [scorecardIdOf("protocol", "lend", 1)]
      )
      assert.isTrue(changedNothing(yield* run(draftFile())))
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("match the stored entity of the slug and the stored scorecard of the version", () =>
    Effect.gen(function* () {
      yield* run(file({ entities: [entity("protocol", "lend", 7)], questions: protocolQuestions }))
      const given = (yield* (yield* EntityRepository).all("protocol"))[0]!.id
      yield* run(file({ scorecards: [scorecard(70, "lend", 1, protocolAnswers(700))] }))
      const renamed = withoutIds(entity("protocol", "lend", 0, { name: "Lend, renamed" }))
      const report = yield* run(draftFile({ entities: [renamed] }))
      assert.deepStrictEqual(report.entities, { created: 0, updated: 1, unchanged: 0 })
      const all = yield* (yield* EntityRepository).all("protocol")
      assert.deepStrictEqual(
        all.map((e) => [e.id, e.name]),
        [[given, "Lend, renamed"]]
      )
      const cards = yield* (yield* ScorecardRepository).listForEntity("protocol", given)
      assert.strictEqual(cards.length, 1, "the draft of version 1 is the stored one, not a second")
    }).pipe(Effect.provide(Importer.layerTest))
  )
})

describe("Importer: catalogues merged or replaced", () => {
  const more = [question("protocol", "PROT-NEW-01", "security", 9)]

  it.effect("merged, stored questions the import does not list stay; replaced, they go", () =>
    Effect.gen(function* () {
      yield* run(file({ questions: protocolQuestions }))
      const merged = yield* run(file({ questions: more }), "merge")
      assert.deepStrictEqual(merged.questions, { created: 1, updated: 0, unchanged: 0, removed: 0 })
      const rubric = yield* RubricRepository
      assert.deepStrictEqual(
        (yield* rubric.questions("protocol")).map((q) => q.id),
        ["PROT-SEC-01", "PROT-SEC-02", "PROT-GOV-01", "PROT-NEW-01"]
      )
      const plan = yield* planOf(file({ questions: more }), "replace")
      assert.deepStrictEqual(removalsOf(plan).questions, [
        { entity_type: "protocol", ids: ["PROT-SEC-01", "PROT-SEC-02", "PROT-GOV-01"] }
      ])
      assert.deepStrictEqual(forbiddenKinds(removalsOf(plan), new Set()), ["questions"])
      const replaced = yield* Effect.flatMap(Importer, (i) => i.apply(plan))
      assert.strictEqual(replaced.questions.removed, 3)
      assert.deepStrictEqual(
        (yield* rubric.questions("protocol")).map((q) => q.id),
        ["PROT-NEW-01"]
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("merged, a position a kept stored question holds is refused at the import's question", () =>
    Effect.gen(function* () {
      yield* run(file({ questions: protocolQuestions }))
      const clash = [question("protocol", "PROT-NEW-01", "security", 2)]
      const failure = yield* Effect.flip(planOf(file({ questions: clash }), "merge"))
      assert.strictEqual(failure._tag, "ImportInvalid")
      const issue = failure._tag === "ImportInvalid" ? failure.issues[0] : undefined
      assert.strictEqual(issue?.path, "$.questions[0].position")
      assert.match(issue?.message ?? "", /position 2 is held by the stored protocol question PROT-SEC-02/)
    }).pipe(Effect.provide(Importer.layerTest))
  )
})

describe("Importer: what an import would remove", () => {
  it.effect("quantum rows the new snapshot lacks, and a published scorecard a publication supersedes", () =>
    Effect.gen(function* () {
      const snapshot = (as_of: string, slugs: ReadonlyArray<string>) => ({
        as_of,
        sample: true,
        rows: slugs.map((s) => quantumRow(s, s))
      })
      yield* run(
        file({
          entities: [entity("protocol", "lend", 1)],
          questions: protocolQuestions,
          scorecards: [scorecard(10, "lend", 1, protocolAnswers(100))],
          publications: [publication("lend", 1, "2026-05-01T00:00:00Z")],
          quantum_snapshot: snapshot("2026-08-01T00:00:00Z", ["ethereum", "base", "solana"])
        })
      )
      const plan = yield* planOf(
        file({
          scorecards: [scorecard(11, "lend", 2, protocolAnswers(110, [4, 4, 4]))],
          publications: [publication("lend", 2, "2026-06-01T00:00:00Z")],
          quantum_snapshot: snapshot("2026-08-02T00:00:00Z", ["ethereum"])
        })
      )
      const removals = removalsOf(plan)
      assert.deepStrictEqual(removals.quantum, ["base", "solana"])
      assert.deepStrictEqual(removals.scorecards, [
        { entity_type: "protocol", slug: "lend", scorecard_version: 1 }
      ])
      assert.deepStrictEqual(
        [
          removedCount(removals, "questions"),
          removedCount(removals, "quantum"),
          removedCount(removals, "scorecards")
        ],
        [0, 2, 1]
      )
      const refusal = refusalOf(removals, new Set(["quantum"]))
      assert.include(
        refusal,
        "scorecards: 1 published scorecard(s) superseded by a publication (protocol lend v1)"
      )
      assert.notInclude(refusal, "quantum: 2")
      assert.include(refusal, "--replace quantum,scorecards")
      assert.isUndefined(refusalOf(removals, new Set(["quantum", "scorecards"])))
      const again = yield* planOf(file({ publications: [publication("lend", 1, "2026-05-01T00:00:00Z")] }))
      assert.deepStrictEqual(
        removalsOf(again).scorecards,
        [],
        "a publication skipped as done supersedes nothing"
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )
})

describe("Importer: progress per phase", () => {
  it.effect("apply gives each phase's own steps, which reach that phase's planned items", () =>
    Effect.gen(function* () {
      const importer = yield* Importer
      const plan = yield* planOf(
        file({
          entities: [entity("protocol", "lend", 1), entity("protocol", "borrow", 2)],
          questions: protocolQuestions,
          scorecards: [
            scorecard(10, "lend", 1, protocolAnswers(100)),
            scorecard(11, "lend", 2, protocolAnswers(110, [4, 4, 4]))
          ],
          publications: [
            publication("lend", 1, "2026-05-01T00:00:00Z"),
            publication("lend", 2, "2026-06-01T00:00:00Z")
          ]
        })
      )
      const last = new Map<string, { done: number; total: number }>()
      let steps = 0
      yield* importer.apply(plan, {
        onProgress: (done, _total, phase, inPhase) => {
          steps = done
          if (inPhase !== undefined) last.set(phase, inPhase)
        }
      })
      assert.deepStrictEqual(Object.fromEntries(last), {
        entities: { done: 2, total: 2 },
        questions: { done: 1, total: 1 },
        scorecards: { done: 2, total: 2 },
        publications: { done: 2, total: 2 }
      })
      assert.strictEqual(steps, 7)
    }).pipe(Effect.provide(Importer.layerTest))
  )
})
