/**
 * `ratings quantum refresh` as an operator runs it, against a real Postgres
 * and a real local upstream (node:http on an ephemeral port): a good answer
 * prints rows, rows_skipped and matched counts and exits 0; an upstream 500
 * exits 1 with the reason and keeps the previous snapshot; with no upstream
 * configured it exits 1 saying what to set, and records nothing. And
 * `ratings serve` with an upstream configured refreshes on start-up when there
 * is no snapshot, then serves what it fetched.
 */
import type { ChildProcess } from "node:child_process"
import { createServer, type Server } from "node:http"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import pg from "pg"
import { exited, runCli, runCliBothWays, scratchDatabase, startCli } from "./CliHarness.ts"

const row = (slug: string, name: string) => ({
  slug,
  name,
  profile: "L1",
  qri: 25,
  band: 2,
  band_label: "Acknowledged",
  stage: 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5
})

/** Three readable rows (two of them service chains, one a draft) and two malformed ones. */
const Dataset = [
  row("ethereum", "Ethereum"),
  { slug: "broken" },
  row("solana", "Solana"),
  row("kaspa", "Kaspa"),
  7
]

const chain = (n: number, slug: string, name: string, status: string) => ({
  entity_type: "chain",
  record: {
    id: `00000000-0000-4000-8000-0000000000c${n}`,
    name,
    slug,
    status,
    categories: [],
    chains: [],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: false,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z"
  }
})

let db: Awaited<ReturnType<typeof scratchDatabase>>
let env: Record<string, string | undefined>
let upstream: Server
let upstreamUrl: string
let answer: "rows" | "fail" | "too many" = "rows"
let upstreamRequests = 0

const query = async (sql: string): Promise<ReadonlyArray<Record<string, unknown>>> => {
  const c = new pg.Client({ connectionString: db.url })
  await c.connect()
  try {
    return (await c.query(sql)).rows
  } finally {
    await c.end()
  }
}

/** Resolves once the child has printed lines matching every pattern (fails if it exits first or after 60 s). */
const printedAll = (child: ChildProcess, patterns: ReadonlyArray<RegExp>): Promise<void> =>
  new Promise((resolve, reject) => {
    let seen = ""
    const timer = setTimeout(
      () => finish(new Error(`not all of ${patterns.join(", ")} within 60 s:\n${seen}`)),
      60_000
    )
    const onData = (d: Buffer) => {
      seen += d.toString()
      if (patterns.every((p) => p.test(seen))) finish()
    }
    const onExit = (code: number | null) => finish(new Error(`exited with ${code}:\n${seen}`))
    const finish = (error?: Error) => {
      clearTimeout(timer)
      child.stdout?.off("data", onData)
      child.stderr?.off("data", onData)
      child.off("exit", onExit)
      if (error === undefined) resolve()
      else reject(error)
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.on("exit", onExit)
  })

const snapshotCount = async () => Number((await query("SELECT count(*) AS n FROM quantum_snapshots"))[0]!.n)

beforeAll(async () => {
  db = await scratchDatabase()
  const dir = mkdtempSync(join(tmpdir(), "ratings-quantum-"))
  upstream = createServer((_req, res) => {
    upstreamRequests++
    if (answer === "fail") res.writeHead(500, { "content-type": "text/plain" }).end("down for maintenance")
    else if (answer === "too many")
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(Array.from({ length: 1001 }, (_, i) => row(`chain-${i}`, `Chain ${i}`))))
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Dataset))
  })
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
  const address = upstream.address()
  if (address === null || typeof address === "string") throw new Error("upstream has no port")
  upstreamUrl = `http://127.0.0.1:${address.port}/readiness.json`
  env = {
    DATABASE_URL: db.url,
    RATINGS_DATA_DIR: join(dir, "data"),
    RATINGS_QUANTUM_SOURCE_URL: upstreamUrl,
    RATINGS_QUANTUM_TIMEOUT: "5 seconds"
  }
  const chains = join(dir, "chains.json")
  writeFileSync(
    chains,
    JSON.stringify({
      format: "ratings-import/v1",
      entities: [chain(1, "ethereum", "Ethereum", "published"), chain(2, "solana", "Solana", "draft")]
    })
  )
  const imported = await runCli(["import", chains], env)
  assert.strictEqual(imported.code, 0, imported.stdout + imported.stderr)
}, 60_000)

afterAll(async () => {
  upstream.closeAllConnections()
  await new Promise((resolve) => upstream.close(resolve))
  await db.drop()
})

describe("ratings quantum refresh", () => {
  it("an upstream that answers well: prints rows, rows_skipped and matched chains (drafts count), exit 0", async () => {
    answer = "rows"
    const r = await runCli(["quantum", "refresh"], env)
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
    assert.include(r.stdout, "rows 3, rows_skipped 2, matched 2")
    assert.strictEqual(await snapshotCount(), 1)
  }, 60_000)

  it("an upstream answering 500: exit 1 with the reason; the previous snapshot is kept", async () => {
    answer = "fail"
    const before = await snapshotCount()
    const r = await runCli(["quantum", "refresh"], env)
    assert.strictEqual(r.code, 1, r.stdout + r.stderr)
    assert.include(r.stderr, "quantum refresh failed")
    assert.include(r.stderr, "HTTP 500")
    assert.include(r.stderr, "previous snapshot is kept")
    assert.strictEqual(await snapshotCount(), before, "nothing saved")
    const [last] = await query("SELECT ok, error FROM quantum_refresh_outcomes ORDER BY id DESC LIMIT 1")
    assert.strictEqual(last?.ok, false, "the failure is recorded for the stale rule")
  }, 60_000)

  it("an upstream of more than 1,000 rows: exit 1 saying so; the dataset is refused whole, the previous snapshot kept", async () => {
    answer = "too many"
    const before = await snapshotCount()
    const r = await runCli(["quantum", "refresh"], env)
    assert.strictEqual(r.code, 1, r.stdout + r.stderr)
    assert.include(r.stderr, "the dataset has 1001 rows, more than the 1000 accepted")
    assert.include(r.stderr, "previous snapshot is kept")
    assert.strictEqual(await snapshotCount(), before, "nothing saved")
  }, 60_000)

  it("no upstream configured: exit 1 naming RATINGS_QUANTUM_SOURCE_URL, and no attempt is recorded", async () => {
    const outcomes = async () =>
      Number((await query("SELECT count(*) AS n FROM quantum_refresh_outcomes"))[0]!.n)
    const before = await outcomes()
    // the real binary, and in this process alike
    const r = await runCliBothWays(["quantum", "refresh"], { ...env, RATINGS_QUANTUM_SOURCE_URL: undefined })
    assert.strictEqual(r.code, 1, r.stdout + r.stderr)
    assert.include(r.stderr, "no upstream URL configured (RATINGS_QUANTUM_SOURCE_URL)")
    assert.strictEqual(
      await outcomes(),
      before,
      "a stored snapshot is not flagged stale by a refresh never tried"
    )
  }, 60_000)
})

describe("ratings serve with RATINGS_QUANTUM_SOURCE_URL", () => {
  it("with no snapshot stored, the refresher fetches on start-up and the table is served from it", async () => {
    answer = "rows"
    await query("DELETE FROM quantum_snapshots")
    await query("DELETE FROM quantum_refresh_outcomes")
    const requestsBefore = upstreamRequests
    const port = await Effect.runPromise(freePort)
    const server = startCli(["serve"], { ...env, PORT: String(port) })
    // attached at once, so no line is missed; the refresher and the listener print in no fixed order
    const ready = printedAll(server, [
      /refreshing quantum readiness from http:\/\/127\.0\.0\.1:\d+\/readiness\.json every 1h/,
      /quantum readiness refreshed: 3 rows, 2 skipped/,
      /Listening on/
    ])
    try {
      await ready
      assert.strictEqual(upstreamRequests, requestsBefore + 1)
      assert.strictEqual(await snapshotCount(), 1)
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/quantum-readiness`)
      assert.strictEqual(res.status, 200)
      const body = (await res.json()) as {
        available: boolean
        rows_skipped: number
        rows: ReadonlyArray<unknown>
      }
      assert.isTrue(body.available)
      assert.strictEqual(body.rows.length, 3)
      assert.strictEqual(body.rows_skipped, 2)
    } finally {
      server.kill("SIGTERM")
      await exited(server)
    }
  }, 90_000)
})
