/**
 * The example of docs/import-format.md is a real import: it is extracted from
 * between its markers, parsed as the CLI parses files, validated and loaded
 * into empty in-memory stores, and loading it again changes nothing, as the
 * page says.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { parseJsonText } from "../../src/import/ImportJsonText.ts"
import { changedNothing } from "../../src/import/ImportPlan.ts"
import { Importer } from "../../src/services/Importer.ts"

const docPath = join(import.meta.dirname, "..", "..", "..", "..", "docs", "import-format.md")

const example = (marker = "import-example") => {
  const doc = readFileSync(docPath, "utf8")
  const block = new RegExp(
    `<!-- ${marker}:begin -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${marker}:end -->`
  ).exec(doc)
  assert.isNotNull(block, `docs/import-format.md keeps its example between the ${marker} markers`)
  const parsed = parseJsonText(`docs/import-format.md#${marker}`, block![1]!)
  assert.isTrue(Result.isSuccess(parsed), JSON.stringify(parsed))
  return Result.getOrThrow(parsed)
}

describe("docs/import-format.md", () => {
  it.effect(
    "the example validates, loads into an empty store as the page says, and loads a second time as unchanged",
    () =>
      Effect.gen(function* () {
        const importer = yield* Importer
        const source = example()
        const first = yield* importer.apply(yield* importer.validate([source]))
        assert.deepStrictEqual(first, {
          entities: { created: 3, updated: 0, unchanged: 0 },
          questions: { created: 3, updated: 0, unchanged: 0, removed: 0 },
          scorecards: { created: 2, updated: 0, unchanged: 0 },
          history: { created: 1, updated: 0, unchanged: 0 },
          publications: { created: 2, updated: 0, unchanged: 0 },
          incidents: { created: 1, updated: 1, unchanged: 0 },
          quantum_snapshot: { created: 0, updated: 0, unchanged: 0 }
        })
        const second = yield* importer.apply(yield* importer.validate([source]))
        assert.isTrue(changedNothing(second), JSON.stringify(second))
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "the quantum_snapshot section's example loads as a sample snapshot, and a second time as unchanged",
    () =>
      Effect.gen(function* () {
        const importer = yield* Importer
        const source = example("quantum-example")
        const first = yield* importer.apply(yield* importer.validate([source]))
        assert.deepStrictEqual(first.quantum_snapshot, { created: 1, updated: 0, unchanged: 0 })
        const second = yield* importer.apply(yield* importer.validate([source]))
        assert.deepStrictEqual(second.quantum_snapshot, { created: 0, updated: 0, unchanged: 1 })
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it("documents every section of the format", () => {
    const doc = readFileSync(docPath, "utf8")
    for (const section of [
      "entities",
      "questions",
      "scorecards",
      "history",
      "publications",
      "incidents",
      "quantum_snapshot"
    ])
      assert.include(doc, `### ${section}`)
  })
})
