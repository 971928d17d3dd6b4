/**
 * The Node options of a server process (ServeNodeFlags.ts) are given where a
 * server starts: the `ratings` command's first line, the `start` and
 * `ratings` npm scripts, and the benches' server processes (which import the
 * list); and V8 takes them (a server started so reports its semi-space bound).
 */
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { ServeNodeFlags } from "../src/ServeNodeFlags.ts"
import { cliEnv, exited, MainScript, scratchDatabase, waitForOutput } from "./CliHarness.ts"

const root = join(import.meta.dirname, "../../..")
const read = (path: string) => readFileSync(join(root, path), "utf8")

describe("the Node options of a server process", () => {
  it("the ratings command's first line and the start and ratings npm scripts carry every one", () => {
    const shebang = read("apps/server/src/main.ts").split("\n")[0]!
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>
    const flags = ServeNodeFlags.join(" ")
    assert.include(shebang, ` ${flags}`, "apps/server/src/main.ts's first line")
    assert.include(scripts.start, `node ${flags} `, "npm start")
    assert.include(scripts.ratings, `node ${flags} `, "npm run ratings")
  })

  it("the benches start their server processes with them", () => {
    for (const bench of ["bench/read.bench.ts", "bench/soak.bench.ts", "bench/cost.bench.ts"]) {
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

describe("a ratings serve process started with them", () => {
  it("hands the memory it grew under load back to the system once traffic stops", async () => {
    const db = await scratchDatabase()
    const p = await Effect.runPromise(freePort)
    const child = spawn(process.execPath, [...ServeNodeFlags, MainScript, "serve", "--no-demo"], {
      env: cliEnv({ PORT: String(p), DATABASE_URL: db.url }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const rssMiB = () =>
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) / 1024
    try {
      await waitForOutput(child, /Listening on/, 60_000)
      const idle = rssMiB()
      // A burst of refusals (422: limit below 1) from 32 connections: the path that grew RSS most in the soak.
      const url = `http://127.0.0.1:${p}/api/v1/protocols?limit=0`
      // The load runs until RSS has grown well past the tenth the server waits for
      // (a busy machine serves fewer requests a second), for at most 45 seconds.
      const until = Date.now() + 45_000
      const grown = () => rssMiB() >= idle * 1.2
      let stop = false
      await Promise.all(
        Array.from({ length: 32 }, async (_, i) => {
          while (!stop && Date.now() < until) {
            await (await fetch(url)).arrayBuffer()
            if (i === 0 && grown()) stop = true
          }
        })
      )
      const loaded = rssMiB()
      assert.isAtLeast(loaded, idle * 1.2, `the load did not grow RSS (idle ${idle} MiB, now ${loaded} MiB)`)
      const line = await waitForOutput(
        child,
        /quiet: memory returned to the system \(RSS \d+ MiB -> \d+ MiB\)/,
        20_000
      ).catch((e) => {
        throw new Error(`idle ${idle} MiB, under load ${loaded} MiB: ${e}`)
      })
      const [before, after] = (line.match(/\d+/g) ?? []).map(Number)
      assert.isBelow(after!, before!, line)
      assert.isAtMost(
        rssMiB(),
        Math.max(idle * 1.5, after! + 8),
        `idle ${idle} MiB, under load ${loaded} MiB`
      )
    } finally {
      child.kill("SIGTERM")
      await exited(child)
      await db.drop()
    }
  }, 150_000)
})
