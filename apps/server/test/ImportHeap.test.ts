/**
 * `ratings import` hands V8's freed pages back between its phases
 * (ImportHeap.ts `releaseImportHeap`): V8 keeps the pages a collection frees
 * resident for later allocations, so without it a process stays at the
 * largest heap it had. Run in a process of its own, without --expose-gc, so
 * that its RSS is the heap's and the release finds V8's gc by itself.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const heapModule = pathToFileURL(join(import.meta.dirname, "..", "src", "cli", "run", "ImportHeap.ts")).href

const script = `
const { releaseImportHeap } = await import(${JSON.stringify(heapModule)})
const { runInNewContext } = await import("node:vm")
const mb = () => process.memoryUsage().rss / 1048576
let garbage = []
for (let i = 0; i < 2e6; i++) garbage.push({ i, text: "item " + i })
const full = mb()
garbage = undefined
releaseImportHeap()
console.log(JSON.stringify({ full, released: mb(), exposed: typeof globalThis.gc }))
`

describe("releaseImportHeap", () => {
  it("hands a collected heap's pages back to the system, with or without --expose-gc", () => {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    assert.strictEqual(run.status, 0, run.stderr)
    const { full, released, exposed } = JSON.parse(run.stdout.trim()) as Record<string, number | string>
    assert.strictEqual(exposed, "undefined", "the flag was not given")
    assert.isAbove(
      Number(full) - Number(released),
      100,
      `RSS ${full} MB with the garbage, ${released} MB after`
    )
  })
})
