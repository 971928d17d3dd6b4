/**
 * A server told to stop (SIGTERM) drains instead of cutting (issue 13, point
 * 11): it stops accepting connections, lets requests in flight finish (those
 * waiting on the database and those still sending a large body to a slow
 * reader) within RATINGS_SHUTDOWN_GRACE, closes idle keep-alive connections
 * at once, then closes the pool, and exits 0. An export the grace period cuts
 * does not count against the account's export quota.
 *
 * Requests are held in flight deterministically: a test transaction locks the
 * scorecards table, so every read of it waits until the test lets it go.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { mkdtempSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import pg from "pg"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let enterpriseKey: string
let slug: string

/** Each rationale's length: 85 of them make a /questions body of about 5 MB. */
const RationaleLength = 60_000

beforeAll(async () => {
  db = await scratchDatabase()
  const dir = mkdtempSync(join(tmpdir(), "ratings-shutdown-data-"))
  const generated = await runCli(["demo", "generate", "--entities", "2", "--seed", "11", "--out", dir], {})
  assert.strictEqual(generated.code, 0, generated.stderr)
  for (const file of readdirSync(dir)) {
    const path = join(dir, file)
    // biome-ignore lint/suspicious/noExplicitAny: the generated import file, rewritten field by field
    const data: any = JSON.parse(readFileSync(path, "utf8"))
    for (const card of data.scorecards ?? [])
      for (const answer of card.answers) answer.rationale = "r".repeat(RationaleLength)
    writeFileSync(path, JSON.stringify(data))
    if (data.entities?.length > 0) slug = data.entities[0].record.slug
  }
  const imported = await runCli(["import", dir], { DATABASE_URL: db.url })
  assert.strictEqual(imported.code, 0, imported.stderr)
  const created = await runCli(["keys", "create", "--tier", "enterprise", "--name", "drain"], {
    DATABASE_URL: db.url
  })
  assert.strictEqual(created.code, 0, created.stderr)
  enterpriseKey = created.stdout.trim()
}, 120_000)

afterAll(async () => {
  await db.drop()
})

const startServer = async (grace: string) => {
  const port = await Effect.runPromise(freePort)
  const child = startCli(["serve", "--no-demo"], {
    DATABASE_URL: db.url,
    PORT: String(port),
    RATINGS_DATA_DIR: mkdtempSync(join(tmpdir(), "ratings-shutdown-")),
    RATINGS_SHUTDOWN_GRACE: grace,
    NODE_ENV: "test"
  })
  let output = ""
  child.stdout?.on("data", (d) => (output += d))
  child.stderr?.on("data", (d) => (output += d))
  await waitForOutput(child, /ratings service listening on/, 60_000)
  return { child, port, output: () => output }
}

interface Answer {
  readonly status: number | undefined
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly complete: boolean
  readonly error: string | undefined
}

/**
 * A GET on its own connection. `readDelayMs` reads the body slowly (a pause
 * after every chunk); `onHeaders` runs when the status line arrives.
 */
const get = (
  port: number,
  path: string,
  options: {
    readonly readDelayMs?: number
    readonly agent?: http.Agent
    readonly onHeaders?: () => void
  } = {}
): Promise<Answer> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    const request = http.get(
      {
        host: "127.0.0.1",
        port,
        path,
        agent: options.agent ?? false,
        headers: { authorization: `Bearer ${enterpriseKey}` }
      },
      (response) => {
        options.onHeaders?.()
        const done = (error: string | undefined) =>
          resolve({
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks),
            complete: response.complete,
            error
          })
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          if (options.readDelayMs !== undefined) {
            response.pause()
            setTimeout(() => response.resume(), options.readDelayMs)
          }
        })
        response.on("end", () => done(undefined))
        response.on("error", (e) => done(e.message))
        response.on("aborted", () => done("aborted"))
      }
    )
    request.on("error", (e: NodeJS.ErrnoException) =>
      resolve({
        status: undefined,
        headers: {},
        body: Buffer.alloc(0),
        complete: false,
        error: e.code ?? e.message
      })
    )
  })

/**
 * A connection holding an ACCESS EXCLUSIVE lock on scorecards until `release`.
 * It first bumps every cached type's version, as a committed write does, so
 * that the requests sent next read the database instead of the response cache
 * (which holds the reference request's answer).
 */
const lockScorecards = async () => {
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  await client.query("UPDATE cache_versions SET version = version + 1")
  await client.query("BEGIN")
  await client.query("LOCK TABLE scorecards IN ACCESS EXCLUSIVE MODE")
  return {
    /** How many other sessions wait for the lock. */
    waiting: async () =>
      Number(
        (
          await client.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
          )
        ).rows[0].n
      ),
    /** Every session of the database, what it waits on and runs (for a failure's message). */
    sessions: async () =>
      (
        await client.query(
          "SELECT pid, state, wait_event_type, wait_event, left(query, 100) AS query FROM pg_stat_activity WHERE datname = current_database()"
        )
      ).rows
        .map((r) => JSON.stringify(r))
        .join("\n"),
    release: async () => {
      await client.query("ROLLBACK")
      await client.end()
    }
  }
}

const until = async (check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("graceful shutdown", () => {
  it("SIGTERM drains: requests in flight (waiting on the database, or sending a 5 MB body to a slow reader) finish with 200 and their whole body, idle keep-alive connections close at once, new connections are refused, and the process exits 0 well within the grace", async () => {
    const { child, port, output } = await startServer("30 seconds")
    const path = `/api/v1/protocols/${slug}/questions`
    const reference = await get(port, path)
    assert.strictEqual(reference.status, 200)
    assert.isAbove(reference.body.length, 4_000_000)

    // An idle keep-alive connection: the drain must not wait for it.
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 })
    assert.strictEqual((await get(port, "/health", { agent: keepAlive })).status, 200)

    // Slow readers: their responses are being sent when the signal comes.
    let started = 0
    const slow = Array.from({ length: 6 }, () =>
      get(port, path, { readDelayMs: 15, onHeaders: () => started++ })
    )
    await until(() => started === slow.length, 30_000, "the slow responses to start")

    // Requests waiting on the database when the signal comes.
    const lock = await lockScorecards()
    const blocked = Array.from({ length: 6 }, () => get(port, path))
    try {
      await until(async () => (await lock.waiting()) > 0, 30_000, "a request to wait for the lock").catch(
        async (error: Error) => {
          const sessions = await lock.sessions()
          throw new Error(
            `${error.message}; the database's sessions:\n${sessions}\nthe server said:\n${output().slice(-4_000)}`
          )
        }
      )
      await sleep(200)
      const signalled = Date.now()
      child.kill("SIGTERM")
      await waitForOutput(child, /stopping: no new connections/, 10_000)
      const late = await get(port, "/health")
      assert.isUndefined(late.status, "a connection opened after SIGTERM is refused")
      assert.oneOf(late.error, ["ECONNREFUSED", "ECONNRESET"])
      await sleep(1_000)
      await lock.release()

      const answers = await Promise.all([...slow, ...blocked])
      for (const [i, answer] of answers.entries()) {
        assert.strictEqual(answer.status, 200, `request ${i}: ${answer.error}`)
        assert.isUndefined(answer.error, `request ${i}`)
        assert.isTrue(answer.complete, `request ${i} complete`)
        assert.strictEqual(answer.body.length, reference.body.length, `request ${i}: the whole body`)
        assert.isTrue(answer.body.equals(reference.body), `request ${i}: the same body`)
      }
      assert.strictEqual(await exited(child), 0, output())
      const took = Date.now() - signalled
      assert.isBelow(took, 15_000, "the drain ends when the last request does, not at the 30 s grace")
      assert.include(output(), "stopped: every request in flight finished")
    } finally {
      keepAlive.destroy()
      if (child.exitCode === null) child.kill("SIGKILL")
      await lock.release().catch(() => undefined)
    }
  }, 120_000)

  it("an export cut by the shutdown (still streaming when the grace runs out) does not count against the quota: its record is withdrawn; an export finished before the stop still counts", async () => {
    const { child, port, output } = await startServer("1 second")
    const exportPath = "/api/v1/export.csv?entity=protocols&fields=slug,grade&limit=10"
    const finished = await get(port, exportPath)
    assert.strictEqual(finished.status, 200)
    const finishedId = String(finished.headers["x-export-id"])

    const lock = await lockScorecards()
    try {
      let headers = false
      const cut = get(port, exportPath, { onHeaders: () => (headers = true) })
      await until(() => headers, 30_000, "the export's response to start")
      await until(async () => (await lock.waiting()) > 0, 30_000, "the export to wait for the lock")
      child.kill("SIGTERM")
      const answer = await cut
      assert.strictEqual(answer.status, 200)
      assert.isFalse(answer.complete, "the export was cut")
      const cutId = String(answer.headers["x-export-id"])
      assert.strictEqual(await exited(child), 0, output())
      assert.match(output(), /stopped: 1 connection\(s\) still open after 1s were closed/)
      await lock.release()

      const check = new pg.Client({ connectionString: db.url })
      await check.connect()
      try {
        const { rows } = await check.query("SELECT export_id::text AS id FROM export_log")
        const ids = rows.map((r: { id: string }) => r.id)
        assert.include(ids, finishedId, "the export sent whole counts")
        assert.notInclude(ids, cutId, "the export cut by the shutdown does not")
      } finally {
        await check.end()
      }
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
      await lock.release().catch(() => undefined)
    }
  }, 120_000)
})
