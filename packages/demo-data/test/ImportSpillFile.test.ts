/**
 * An import's spill file (ImportSpillFile.ts): what is put comes back from
 * any place, the file has no name while it is used, and a directory where it
 * cannot be made or written is a clear refusal naming it, the import then
 * rejected with nothing written.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { ImportSpillFailed } from "@ratings/domain/import/ImportSpill"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Importer } from "@ratings/domain/services/Importer"
import { Cause, Effect } from "effect"
import { DemoDataDir } from "../src/DemoDataDir.ts"
import { writeDataset } from "../src/generate.ts"
import { importPath, spillFailureIn } from "../src/ImportFiles.ts"
import { type SpillFile, spillFile } from "../src/ImportSpillFile.ts"

const folders: Array<string> = []
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "ratings-spill-"))
  folders.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true })
})

/** A spill file that fails once `failing()` says so, counting how often it is closed. */
const flakySpill = (failing: (doing: "put" | "get") => boolean) => {
  let closed = 0
  const make = (): SpillFile => {
    const file = spillFile(folder())
    return {
      ...file,
      put: (bytes) => {
        if (failing("put")) throw new ImportSpillFailed("cannot write the import's working file: disk full")
        return file.put(bytes)
      },
      get: (at, into) => {
        if (failing("get")) throw new ImportSpillFailed("cannot read the import's working file: I/O error")
        file.get(at, into)
      },
      close: () => {
        closed++
        file.close()
      }
    }
  }
  return { make, closed: () => closed }
}

/** A generated dataset large enough that its records fill more than one chunk. */
const generated = Effect.promise(async () => {
  const dir = folder()
  await Effect.runPromise(
    writeDataset(dir, { entities: 1500, seed: "spill" }).pipe(Effect.provide(NodeServices.layer))
  )
  return dir
})

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

  it("a closed file is neither read nor written, and closing twice is harmless", () => {
    const spill = spillFile(folder())
    const at = spill.put(Uint8Array.of(1, 2, 3))
    spill.close()
    spill.close()
    assert.throws(() => spill.get(at, new Uint8Array(3)), ImportSpillFailed, "closed")
    assert.throws(() => spill.put(Uint8Array.of(4)), ImportSpillFailed, "closed")
  })

  it.effect(
    "a working file that fails while the input is read rejects the import with its reason, nothing written; it is closed once",
    () =>
      Effect.gen(function* () {
        const dir = yield* generated
        let puts = 0
        const spill = flakySpill((doing) => doing === "put" && ++puts > 1)
        const outcome = yield* importPath(dir, undefined, { spill: spill.make })
        assert.strictEqual(outcome._tag, "Rejected")
        if (outcome._tag === "Rejected") assert.include(outcome.issues[0]!.message, "disk full")
        const entities = yield* EntityRepository
        assert.deepStrictEqual(yield* entities.all("protocol"), [], "nothing written")
        assert.strictEqual(spill.closed(), 1)
        const fine = flakySpill(() => false)
        assert.strictEqual((yield* importPath(dir, undefined, { spill: fine.make }))._tag, "Imported")
        assert.strictEqual(fine.closed(), 1)
        assert.isAbove(
          (yield* entities.all("protocol")).length,
          0,
          "the same input with a working file imports"
        )
      }).pipe(Effect.provide(Importer.layerTest)),
    120_000
  )

  it.effect(
    "a working file that cannot be read back rejects the import with its reason; it is closed once",
    () =>
      Effect.gen(function* () {
        const dir = yield* generated
        const spill = flakySpill((doing) => doing === "get")
        const outcome = yield* importPath(dir, undefined, { spill: spill.make })
        assert.strictEqual(outcome._tag, "Rejected")
        if (outcome._tag === "Rejected") assert.include(outcome.issues[0]!.message, "I/O error")
        assert.strictEqual(spill.closed(), 1)
        const entities = yield* EntityRepository
        assert.deepStrictEqual(yield* entities.all("protocol"), [], "nothing written")
      }).pipe(Effect.provide(Importer.layerTest)),
    120_000
  )

  it("a store's error caused by the working file is that file's failure", () => {
    const failed = new ImportSpillFailed("cannot read the import's working file: I/O error")
    const storeError = { _tag: "SqlError", reason: { _tag: "UnknownError", cause: failed } }
    assert.strictEqual(spillFailureIn(Cause.fail(storeError)), failed)
    assert.strictEqual(spillFailureIn(Cause.die(failed)), failed)
    assert.isUndefined(
      spillFailureIn(Cause.fail({ _tag: "SqlError", reason: { cause: new Error("other") } }))
    )
    assert.isUndefined(spillFailureIn(Cause.die(new Error("a bug"))))
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
