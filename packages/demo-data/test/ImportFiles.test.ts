/**
 * Reading import files: a file, or a folder's `*.json` files in name order;
 * every file that cannot be read or parsed is reported (with its name), and
 * a path that holds no import file is an issue, never an empty import. The
 * import itself (validate, then apply all or nothing) is the domain's
 * Importer, checked end to end by apps/server ImportCli.test.ts.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { DemoDataDir } from "../src/DemoDataDir.ts"
import { decodeSources } from "@ratings/domain/import/ImportDecode"
import { Importer } from "@ratings/domain/services/Importer"
import { formatIssues, importFilesOf, importPath, readDecoded, readSources } from "../src/ImportFiles.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-import-files-"))

describe("import files", () => {
  it("a folder yields its .json files in name order, and a file itself", () => {
    const dir = folder()
    for (const name of ["b.json", "a.json", "notes.txt", "c.json"]) writeFileSync(join(dir, name), "{}")
    assert.deepStrictEqual(
      importFilesOf(dir),
      ["a.json", "b.json", "c.json"].map((n) => join(dir, n))
    )
    assert.deepStrictEqual(importFilesOf(join(dir, "b.json")), [join(dir, "b.json")])
  })

  it.effect("the committed demo dataset reads without an issue", () =>
    Effect.gen(function* () {
      const { sources, issues } = yield* readSources(DemoDataDir)
      assert.deepStrictEqual(issues, [])
      assert.strictEqual(sources.length, importFilesOf(DemoDataDir).length)
      assert.isAbove(sources.length, 0)
    })
  )

  it.effect(
    "a missing path, an empty folder and a file that is not JSON are issues naming the path or the file",
    () =>
      Effect.gen(function* () {
        const missing = yield* readSources(join(folder(), "nowhere"))
        assert.strictEqual(missing.issues.length, 1)
        assert.include(missing.issues[0]!.message, "cannot read")
        const empty = folder()
        mkdirSync(join(empty, "sub.json.d"))
        assert.include((yield* readSources(empty)).issues[0]!.message, "no .json files to import")
        const dir = folder()
        writeFileSync(join(dir, "broken.json"), "{ not json")
        const broken = yield* readSources(dir)
        assert.strictEqual(broken.sources.length, 0)
        assert.strictEqual(broken.issues.length, 1)
        assert.strictEqual(broken.issues[0]!.source, "broken.json")
        assert.match(formatIssues(broken.issues), /^import rejected: 1 error\(s\), nothing was written\n/)
      })
  )

  it.effect("read file by file, the decoded input is the whole input decoded at once", () =>
    Effect.gen(function* () {
      const { sources } = yield* readSources(DemoDataDir)
      const streamed = yield* readDecoded(DemoDataDir)
      assert.deepStrictEqual(streamed.issues, [])
      assert.deepStrictEqual(
        streamed.names,
        sources.map((s) => s.name)
      )
      assert.deepStrictEqual(streamed.decoded, decodeSources(sources))
    })
  )

  it.effect("read file by file, every file that is not JSON is reported as when read at once", () =>
    Effect.gen(function* () {
      const dir = folder()
      writeFileSync(join(dir, "a.json"), "{ not json")
      writeFileSync(join(dir, "b.json"), "{}")
      writeFileSync(join(dir, "c.json"), '{"format": 1,\n "entities": [}')
      const streamed = yield* readDecoded(dir)
      assert.deepStrictEqual(streamed.issues, (yield* readSources(dir)).issues)
      assert.deepStrictEqual(
        streamed.issues.map((i) => i.source),
        ["a.json", "c.json"]
      )
      assert.strictEqual((yield* readDecoded(join(dir, "nowhere"))).issues.length, 1)
      assert.include((yield* readDecoded(folder())).issues[0]!.message, "no .json files to import")
    })
  )

  it.effect("read file by file, a .json entry that cannot be read is an issue naming it, not a crash", () =>
    Effect.gen(function* () {
      const dir = folder()
      writeFileSync(join(dir, "a.json"), '{"format": "ratings-import/v1"}')
      mkdirSync(join(dir, "b.json"))
      const streamed = yield* readDecoded(dir)
      assert.deepStrictEqual(
        streamed.issues.map((i) => [i.source, i.path]),
        [["b.json", "$"]]
      )
      assert.include(streamed.issues[0]!.message, "cannot read")
      assert.deepStrictEqual(streamed.names, ["a.json"])
    })
  )

  it.effect(
    "afterValidation is called once, when validation is done and before anything is written; never on a rejection",
    () =>
      Effect.gen(function* () {
        const events: Array<string> = []
        const outcome = yield* importPath(DemoDataDir, (_done, _total, phase) => events.push(phase), {
          afterValidation: () => events.push("afterValidation")
        })
        assert.strictEqual(outcome._tag, "Imported")
        const at = events.indexOf("afterValidation")
        assert.strictEqual(events.filter((e) => e === "afterValidation").length, 1)
        assert.strictEqual(events[at - 1], "validation", "after validation")
        assert.isAbove(events.length, at + 1)
        assert.isTrue(
          events.slice(at + 1).every((e) => e !== "validation"),
          "before the writes"
        )
        const dir = folder()
        writeFileSync(join(dir, "broken.json"), "{ not json")
        let called = 0
        const rejected = yield* importPath(dir, undefined, { afterValidation: () => called++ })
        assert.strictEqual(rejected._tag, "Rejected")
        assert.strictEqual(called, 0)
      }).pipe(Effect.provide(Importer.layerTest))
  )
})
