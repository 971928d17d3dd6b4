/**
 * The Node options of a server process (ServeNodeFlags.ts) are given where a
 * server starts: the `ratings` command's first line, the `start` and
 * `ratings` npm scripts, and the benches' server processes (which import the
 * list); and V8 takes them (a server started so reports its semi-space bound).
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ServeNodeFlags } from "../src/ServeNodeFlags.ts"

const root = join(import.meta.dirname, "../../..")
const read = (path: string) => readFileSync(join(root, path), "utf8")

describe("the Node options of a server process", () => {
  it("the ratings command's first line and the start and ratings npm scripts carry every one", () => {
    const shebang = read("apps/server/src/main.ts").split("\n")[0]!
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>
    for (const flag of ServeNodeFlags) {
      assert.include(shebang, ` ${flag}`, "apps/server/src/main.ts's first line")
      assert.include(scripts.start, `node ${flag} `, "npm start")
      assert.include(scripts.ratings, `node ${flag} `, "npm run ratings")
    }
  })

  it("the benches start their server processes with them", () => {
    for (const bench of ["bench/read.bench.ts", "bench/soak.bench.ts"]) {
      const text = read(bench)
      assert.include(text, 'import { ServeNodeFlags } from "@ratings/server/ServeNodeFlags"', bench)
      assert.match(text, /spawn\(\s*process\.execPath,\s*\[[^\]]*\.\.\.(ServeNodeFlags|flags)\b/, bench)
    }
  })

  it("V8 takes them: under a burst of short-lived objects the young generation stays at two 16 MiB semi-spaces", () => {
    const burst =
      "let a = []; for (let i = 0; i < 3e6; i++) { a.push({ i, s: 'x' + i }); if (a.length > 2e5) a = [] };" +
      "const s = require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');" +
      "process.stdout.write(String(s.space_size / 2 ** 20))"
    const youngMiB = (flags: ReadonlyArray<string>) =>
      Number(execFileSync(process.execPath, [...flags, "-e", burst], { encoding: "utf8" }))
    assert.isAtMost(youngMiB(ServeNodeFlags), 32)
    // Without them the same burst grows it further (so the bound above is the flags' doing).
    assert.isAbove(youngMiB([]), 32)
  })
})
