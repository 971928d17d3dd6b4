/**
 * The server process as a newcomer runs it: with DATABASE_URL it uses that
 * Postgres; without it it starts an embedded Postgres under the data folder and
 * stops it on shutdown (issue 3, "both paths are tested").
 */
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { DemoDataDir } from "../src/cli/ServeCommand.ts"
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
      await waitForOutput(child, /Listening on/, 30_000).catch(() => undefined)
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
