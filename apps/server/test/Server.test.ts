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
import { exited, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

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
})
