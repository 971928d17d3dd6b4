/**
 * The README's "Use the scoring core in your own code" example runs as written
 * inside the workspace, from source: the block is extracted, saved as a module
 * of its own and run by Node under the workspace's "@ratings/source" condition.
 * PackageInstall.test.ts runs the same block against the packed package,
 * installed outside the workspace, as another tool would run it.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const repo = join(import.meta.dirname, "..", "..", "..")

describe("README example", () => {
  it("another tool imports the domain package and scores a scorecard in a few lines", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8")
    const block = /<!-- readme-example:begin -->\s*```js\n([\s\S]*?)```\s*<!-- readme-example:end -->/.exec(
      readme
    )
    assert.isNotNull(block, "the README keeps its example between the readme-example markers")
    const dir = join(repo, ".tmp", "readme-example")
    mkdirSync(dir, { recursive: true })
    const file = join(dir, "example.mjs")
    writeFileSync(file, block![1]!)
    const out = execFileSync(process.execPath, ["--conditions=@ratings/source", file], { encoding: "utf8" })
    assert.strictEqual(out.trim(), "76.5 A 68.3 BBB oracle: thin-oracle")
    assert.include(readme, "It prints `76.5 A 68.3 BBB oracle: thin-oracle`")
  })
})
