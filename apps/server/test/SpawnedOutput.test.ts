/**
 * What a test run prints of the `ratings` processes tests start (CliHarness's
 * startCli): nothing while they run; their output after the failure of the
 * test that started them, and never for a test that passes. Runs a fixture
 * of two such tests, one failing, in a Vitest process of its own.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const config = join(import.meta.dirname, "fixtures", "spawned-output.vitest.config.ts")

const runFixture = () =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith("VITEST")) env[k] = v
    const child = spawn(process.execPath, [vitest, "run", "--config", config], { cwd: root, env })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, output }))
  })

describe("test runs print test results, not server output", () => {
  it("a spawned `ratings` process's output is printed after the failure of the test that started it, and not for a test that passes", async () => {
    const { code, output } = await runFixture()
    assert.strictEqual(code, 1, output)
    assert.include(output, "output of `ratings --version`", output)
    assert.include(output, "ratings v0.1.0", "the failing test's process output")
    assert.notInclude(output, "output of `ratings keys`", "the passing test's process output")
    assert.notInclude(output, "Manage API keys")
  }, 120_000)
})
