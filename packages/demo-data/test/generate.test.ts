import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { decodeSources } from "@ratings/domain/import/ImportDecode"
import { ImportDecodeOptions, ImportFile } from "@ratings/domain/import/ImportFile"
import { emptyStoreView } from "@ratings/domain/import/ImportStoreView"
import { validateImport } from "@ratings/domain/import/ImportValidation"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { scoreEntity } from "@ratings/domain/scoring/ScoreEntity"
import { Effect, Exit, FileSystem, Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  type GeneratedFile,
  generateDataset,
  renderDatasetFile,
  typeCounts,
  writeDataset
} from "../src/generate.ts"
import { RubricQuestions } from "../src/rubric/Rubric.ts"

const all = (
  entities: number,
  seed: number | string,
  entitiesPerFile?: number
): ReadonlyArray<GeneratedFile> => [
  ...generateDataset(entitiesPerFile === undefined ? { entities, seed } : { entities, seed, entitiesPerFile })
]

const readDir = (dir: string): ReadonlyArray<readonly [string, string]> =>
  readdirSync(dir)
    .sort()
    .map((n) => [n, readFileSync(join(dir, n), "utf8")] as const)

const tempDir = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  return yield* fs.makeTempDirectoryScoped({ prefix: "ratings-generate-" })
})

describe("generate", () => {
  it.effect("the same seed twice writes byte-identical files", () =>
    Effect.gen(function* () {
      const a = yield* tempDir
      const b = yield* tempDir
      yield* writeDataset(a, { entities: 300, seed: 42, entitiesPerFile: 100 })
      yield* writeDataset(b, { entities: 300, seed: 42, entitiesPerFile: 100 })
      const filesA = readDir(a)
      assert.strictEqual(filesA.length, 4)
      assert.deepStrictEqual(filesA, readDir(b))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it("a different seed gives different data", () => {
    const a = all(200, 1).map((f) => renderDatasetFile(f.content))
    const b = all(200, 2).map((f) => renderDatasetFile(f.content))
    assert.strictEqual(a[0], b[0]!.replace("seed 2", "seed 1"), "the rubric does not depend on the seed")
    assert.notStrictEqual(a[1], b[1])
  })

  it("produces the requested number of entities: mostly protocols, every type present", () => {
    const files = all(1000, "bench")
    const entities = files.flatMap((f) => f.content.entities ?? [])
    assert.strictEqual(entities.length, 1000)
    assert.strictEqual(
      files.reduce((n, f) => n + f.entities, 0),
      1000
    )
    const byType = new Map<string, number>()
    for (const e of entities) byType.set(e.entity_type, (byType.get(e.entity_type) ?? 0) + 1)
    assert.deepStrictEqual([...byType.keys()].sort(), [...EntityTypes].sort())
    assert.isAbove(byType.get("protocol")!, 700)
    assert.strictEqual(new Set(entities.map((e) => `${e.entity_type}:${e.record.slug}`)).size, 1000)
    assert.strictEqual(new Set(entities.map((e) => e.record.id)).size, 1000)
  })

  it("a 1,000-entity generation decodes as ImportFile", () => {
    for (const f of all(1000, 7)) {
      const decoded = Schema.decodeUnknownSync(ImportFile)(
        JSON.parse(renderDatasetFile(f.content)),
        ImportDecodeOptions
      )
      assert.strictEqual(decoded.format, "ratings-import/v1")
    }
  })

  it("a generated dataset passes the importer's validation against an empty database", () => {
    const files = all(600, 9, 200)
    const sources = files.map((f) => ({ name: f.name, content: JSON.parse(renderDatasetFile(f.content)) }))
    const plan = validateImport(
      decodeSources(sources),
      emptyStoreView(),
      files.map((f) => f.name)
    )
    if (Result.isFailure(plan))
      assert.fail(plan.failure.map((i) => `${i.source} ${i.path}: ${i.message}`).join("\n"))
    else assert.strictEqual(plan.success.entities.length, 600)
  })

  it("the rubric comes first and every entity has a full scorecard that the core can score", () => {
    const files = all(500, 11)
    assert.deepStrictEqual(files[0]!.content.questions, RubricQuestions)
    const categories = new Map(
      files
        .flatMap((f) => f.content.entities ?? [])
        .map((e) => [`${e.entity_type}:${e.record.slug}`, e.record.categories ?? []])
    )
    const perType = new Map(
      EntityTypes.map((t) => [t, RubricQuestions.filter((q) => q.entity_type === t).length])
    )
    const cards = files.flatMap((f) => f.content.scorecards ?? [])
    assert.strictEqual(cards.length, 500)
    for (const s of cards) {
      assert.strictEqual(s.answers.length, perType.get(s.entity_type))
      const scored = scoreEntity({
        entity_type: s.entity_type,
        categories: categories.get(`${s.entity_type}:${s.slug}`)!,
        answers: s.answers,
        domain_weights: s.domain_weights
      })
      assert.isTrue(Result.isSuccess(scored), s.slug)
    }
    const published = files.flatMap((f) => f.content.publications ?? [])
    assert.isAbove(published.length, 400)
  })

  it("dependencies are published before the entities that depend on them, in file order and by date", () => {
    const files = all(2000, 13)
    const order = new Map<string, { readonly at: string; readonly position: number }>()
    for (const [position, p] of files.flatMap((f) => f.content.publications ?? []).entries()) {
      order.set(`${p.entity_type}:${p.slug}`, { at: p.published_at, position })
    }
    let checked = 0
    for (const s of files.flatMap((f) => f.content.scorecards ?? [])) {
      const self = order.get(`${s.entity_type}:${s.slug}`)
      if (self === undefined) continue
      for (const d of s.dependencies ?? []) {
        const dep = order.get(`${d.entity_type}:${d.slug}`)
        if (dep === undefined || (d.entity_type === s.entity_type && d.slug === s.slug)) continue
        assert.isBelow(dep.position, self.position)
        assert.isTrue(dep.at < self.at, `${d.slug} (${dep.at}) before ${s.slug} (${self.at})`)
        checked++
      }
    }
    assert.isAbove(checked, 1000)
  })

  it("no file holds more than entitiesPerFile entities", () => {
    const files = all(250, 3, 60)
    assert.deepStrictEqual(
      files.map((f) => f.entities),
      [0, 60, 60, 60, 60, 10]
    )
    assert.deepStrictEqual(
      files.map((f) => f.name),
      [...files.map((f) => f.name)].sort()
    )
  })

  it("type counts sum to the total and give every type an entity from seven entities up", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), (total) => {
        const counts = typeCounts(total)
        assert.strictEqual(
          counts.reduce((n, [, c]) => n + c, 0),
          total
        )
        if (total >= EntityTypes.length) for (const [, c] of counts) assert.isAtLeast(c, 1)
      })
    )
  })

  it.effect("writeDataset refuses a folder that already holds JSON files unless asked to overwrite", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const progress: Array<number> = []
      const first = yield* writeDataset(dir, { entities: 20, seed: 5, entitiesPerFile: 10 }, (p) =>
        progress.push(p.entitiesWritten)
      )
      assert.deepStrictEqual(progress, [0, 10, 20])
      assert.strictEqual(first.entities, 20)
      const refused = yield* Effect.exit(writeDataset(dir, { entities: 20, seed: 6 }))
      assert.isTrue(Exit.isFailure(refused))
      const again = yield* writeDataset(dir, { entities: 20, seed: 6, overwrite: true })
      assert.deepStrictEqual(
        readDir(dir).map(([n]) => n),
        [...again.files]
      )
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
