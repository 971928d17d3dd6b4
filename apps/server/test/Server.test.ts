/**
 * The server process as a newcomer runs it: with DATABASE_URL it uses that
 * Postgres; without it it starts an embedded Postgres under the data folder and
 * stops it on shutdown (issue 3, "both paths are tested").
 */
import { existsSync, mkdtempSync } from "node:fs"
import { createServer as createNetServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

const port = () => Effect.runPromise(freePort)

describe("server process", () => {
  it("without DATABASE_URL it starts an embedded Postgres under the data folder, serves, and stops it on shutdown", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-embedded-"))
    const p = await port()
    const child = startCli(["serve", "--no-demo"], {
      PORT: String(p),
      RATINGS_DATA_DIR: dataDir,
      DATABASE_URL: undefined
    })
    try {
      await waitForOutput(child, /Listening on/, 90_000)
      assert.isTrue(
        existsSync(join(dataDir, "pg", "postmaster.pid")),
        "the embedded Postgres runs from the data folder"
      )
      assert.isTrue(existsSync(join(dataDir, "secret.key")), "a server key was generated")
      const health = await fetch(`http://127.0.0.1:${p}/health`)
      assert.strictEqual(health.status, 200)
      assert.deepStrictEqual(await health.json(), { status: "ok" })
      const list = await fetch(`http://127.0.0.1:${p}/api/v1/protocols`)
      assert.deepStrictEqual(await list.json(), { items: [], total: 0 })
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
    assert.isFalse(
      existsSync(join(dataDir, "pg", "postmaster.pid")),
      "the embedded Postgres stopped with the server"
    )
  }, 120_000)

  it("with DATABASE_URL it uses that Postgres and starts no embedded one", async () => {
    const db = await scratchDatabase()
    const url = db.url
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-url-"))
    const p = await port()
    const child = startCli(["serve"], { PORT: String(p), RATINGS_DATA_DIR: dataDir, DATABASE_URL: url })
    try {
      const line = await waitForOutput(child, /listening on [^\n]*\(DATABASE_URL\)/, 60_000)
      assert.include(line, "DATABASE_URL")
      const health = await fetch(`http://127.0.0.1:${p}/health`)
      assert.strictEqual(health.status, 200)
      assert.isFalse(existsSync(join(dataDir, "pg")), "no embedded Postgres was started")
    } finally {
      child.kill("SIGTERM")
      await exited(child)
      await db.drop()
    }
  }, 90_000)

  it("the demo dataset is served as imported: the shipped sample quantum snapshot, attributed as a sample, and the demo incidents", async () => {
    const db = await scratchDatabase()
    const p = await port()
    const imported = await runCli(["import", DemoDataDir], { DATABASE_URL: db.url })
    assert.strictEqual(imported.code, 0, imported.stderr)
    const child = startCli(["serve"], { PORT: String(p), DATABASE_URL: db.url })
    try {
      await waitForOutput(child, /Listening on/, 60_000)
      const base = `http://127.0.0.1:${p}/api/v1`
      // biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
      const table: any = await (await fetch(`${base}/quantum-readiness`)).json()
      assert.strictEqual(table.available, true)
      assert.isAtLeast(table.rows.length, 70)
      assert.isAbove(table.rows_skipped, 0)
      assert.include(table.attribution, "Sample data")
      assert.notProperty(table, "stale", "no upstream is configured, so no refresh failed")
      // biome-ignore lint/suspicious/noExplicitAny: as above
      const ethereum: any = await (await fetch(`${base}/chains/ethereum/quantum-readiness`)).json()
      assert.strictEqual(ethereum.available, true)
      assert.strictEqual(ethereum.as_of, table.as_of)
      // biome-ignore lint/suspicious/noExplicitAny: as above
      const incidents: any = await (await fetch(`${base}/incidents?min_status=rumored&limit=200`)).json()
      assert.isAbove(incidents.total, 0)
      assert.isTrue(incidents.items.every((i: { source_count: number }) => i.source_count >= 2))
    } finally {
      child.kill("SIGTERM")
      await exited(child)
      await db.drop()
    }
  }, 120_000)
})

/** Runs `ratings serve` until it says it listens (then stops it) or exits; its output and exit code. */
const serveUntilListening = async (env: Record<string, string | undefined>) => {
  const child = startCli(["serve", "--no-demo"], env)
  let output = ""
  child.stdout?.on("data", (d) => (output += d))
  child.stderr?.on("data", (d) => (output += d))
  const listening = await waitForOutput(child, /ratings service listening on/, 60_000).then(
    () => true,
    () => false
  )
  if (listening) child.kill("SIGTERM")
  const code = await exited(child)
  return { listening, code, output }
}

describe("development identity provider and start-up checks", () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  beforeAll(async () => {
    db = await scratchDatabase()
  })
  afterAll(async () => {
    await db.drop()
  })

  const admin = (p: number, token: string) =>
    fetch(`http://127.0.0.1:${p}/api/v1/protocols?include_inactive=true`, {
      headers: { authorization: `Bearer ${token}` }
    })

  it("without NODE_ENV=development or test the development identity provider is off: the server says so and refuses a dev token, even with a key pair in its data folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-devidp-off-"))
    const env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: dataDir, NODE_ENV: undefined }
    const minted = await runCli(["dev", "token", "--role", "super_admin"], env)
    assert.strictEqual(minted.code, 0, minted.stderr)
    const p = await port()
    const child = startCli(["serve", "--no-demo"], { ...env, PORT: String(p) })
    try {
      const said = await waitForOutput(child, /development identity provider: [^\n]*/, 60_000)
      assert.include(said, "off (NODE_ENV is unset")
      await waitForOutput(child, /ratings service listening on/, 30_000)
      const refused = await admin(p, minted.stdout.trim())
      assert.strictEqual(refused.status, 401)
      assert.deepStrictEqual(await refused.json(), { detail: { error: "invalid_token" } })
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 90_000)

  it("NODE_ENV=Production or prod stops the start naming NODE_ENV (never a silent development mode), and nothing says it listens", async () => {
    for (const value of ["Production", "prod"]) {
      const { listening, code, output } = await serveUntilListening({
        DATABASE_URL: db.url,
        PORT: String(await port()),
        NODE_ENV: value
      })
      assert.isFalse(listening, output)
      assert.strictEqual(code, 1)
      assert.include(output, "NODE_ENV")
      assert.include(output, "must be production, development or test")
    }
  }, 90_000)

  it("with NODE_ENV=test the server says the development identity provider is on and accepts a dev token minted after it started", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-devidp-late-"))
    const env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: dataDir, NODE_ENV: "test" }
    const p = await port()
    const child = startCli(["serve", "--no-demo"], { ...env, PORT: String(p) })
    try {
      const said = await waitForOutput(child, /development identity provider: [^\n]*/, 60_000)
      assert.include(said, "on (NODE_ENV=test)")
      await waitForOutput(child, /ratings service listening on/, 30_000)
      const minted = await runCli(["dev", "token", "--role", "super_admin"], env)
      assert.strictEqual(minted.code, 0, minted.stderr)
      const res = await admin(p, minted.stdout.trim())
      assert.strictEqual(res.status, 200)
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 90_000)

  it("'listening on' is printed only once the port is bound: a server whose port is taken exits 1 without saying it listens", async () => {
    const taken = createNetServer()
    const p = await port()
    await new Promise<void>((resolve) => taken.listen(p, "0.0.0.0", resolve))
    try {
      const { listening, code, output } = await serveUntilListening({ DATABASE_URL: db.url, PORT: String(p) })
      assert.isFalse(listening, output)
      assert.strictEqual(code, 1)
      assert.notInclude(output, "listening on")
      assert.include(output, "EADDRINUSE")
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  }, 90_000)

  it("a setting the parser does not understand (TRUST_PROXY=yes, RATINGS_LOAD_DEMO=maybe) stops the start naming the variable, before anything says it listens", async () => {
    for (const [name, value] of [
      ["TRUST_PROXY", "yes"],
      ["RATINGS_LOAD_DEMO", "maybe"]
    ] as const) {
      const { listening, code, output } = await serveUntilListening({
        DATABASE_URL: db.url,
        PORT: String(await port()),
        [name]: value
      })
      assert.isFalse(listening, output)
      assert.strictEqual(code, 1)
      assert.include(output, name)
      assert.notInclude(output, "listening on")
    }
  }, 90_000)
})
