/**
 * An import's spill file (ImportSpillFile.ts): what is put comes back from
 * any place, the file has no name while it is used, and a directory where it
 * cannot be made or written is a clear refusal naming it, the import then
 * rejected with nothing written.
 */
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ImportSpillFailed } from "@ratings/domain/import/ImportSpill"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Importer } from "@ratings/domain/services/Importer"
import { Effect } from "effect"
import { DemoDataDir } from "../src/DemoDataDir.ts"
import { importPath } from "../src/ImportFiles.ts"
import { spillFile } from "../src/ImportSpillFile.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-spill-"))

describe("import spill file", () => {
  it("gives back what was put, from any place, and has no name while in use", () => {
    const dir = folder()
    const spill = spillFile(dir)
    try {
      const chunks = Array.from({ length: 40 }, (_, n) =>
        Uint8Array.from({ length: 1000 + n * 997 }, (_, k) => (k * n) & 255)
      )
      const places = chunks.map((c) => spill.put(c))
      assert.deepStrictEqual(readdirSync(dir), [], "unlinked as soon as it is open")
      assert.strictEqual(
        spill.bytes(),
        chunks.reduce((a, c) => a + c.length, 0)
      )
      for (const n of [39, 0, 17, 3]) {
        const back = new Uint8Array(chunks[n]!.length)
        spill.get(places[n]!, back)
        assert.deepStrictEqual(back, chunks[n])
      }
      const part = new Uint8Array(10)
      spill.get(places[5]! + 100, part)
      assert.deepStrictEqual(part, chunks[5]!.subarray(100, 110))
      assert.throws(() => spill.get(spill.bytes() - 4, new Uint8Array(8)), ImportSpillFailed)
    } finally {
      spill.close()
    }
  })

  it("a directory it cannot be made in is a failure that names it and TMPDIR", () => {
    const missing = join(folder(), "nowhere")
    const e = (() => {
      try {
        spillFile(missing)
      } catch (e) {
        return e
      }
    })()
    assert.instanceOf(e, ImportSpillFailed)
    assert.include((e as Error).message, missing)
    assert.include((e as Error).message, "TMPDIR")
  })

  it.effect("an import whose working file cannot be made is rejected with that reason, nothing written", () =>
    Effect.gen(function* () {
      const dir = folder()
      const before = process.env.TMPDIR
      process.env.TMPDIR = join(dir, "nowhere")
      const outcome = yield* importPath(DemoDataDir).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (before === undefined) delete process.env.TMPDIR
            else process.env.TMPDIR = before
          })
        )
      )
      assert.strictEqual(outcome._tag, "Rejected")
      if (outcome._tag !== "Rejected") return
      assert.strictEqual(outcome.issues.length, 1)
      assert.include(outcome.issues[0]!.message, "cannot create the import's working file")
      assert.include(outcome.issues[0]!.message, "nowhere")
      const entities = yield* EntityRepository
      assert.deepStrictEqual(yield* entities.all("protocol"), [], "nothing written")
    }).pipe(Effect.provide(Importer.layerTest))
  )
})
