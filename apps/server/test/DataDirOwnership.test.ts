/**
 * One data folder, one owner (issue 13 point 12), with the real `ratings`
 * processes: a second server on the folder is refused, naming it and the
 * owner's pid; a Postgres orphaned by a `kill -9` is stopped and started
 * again by the next server, which stops it on shutdown; a CLI command still
 * connects to the running server's Postgres. And `/ready` (readiness, beside
 * the `/health` liveness) answers 503 once that Postgres is gone.
 */
import type { ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freePort, isAlive } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { exited, runCli, startCli, waitForOutput } from "./CliHarness.ts"

const port = () => Effect.runPromise(freePort)

const postmasterPid = (dataDir: string): number =>
  Number(readFileSync(join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0])

const lockPid = (dataDir: string): number =>
  JSON.parse(readFileSync(join(dataDir, "server.lock"), "utf8")).pid

const until = async (what: string, check: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const serveOn = async (dataDir: string) => {
  const p = await port()
  const child = startCli(["serve", "--no-demo"], {
    PORT: String(p),
    RATINGS_DATA_DIR: dataDir,
    DATABASE_URL: undefined
  })
  let output = ""
  child.stdout?.on("data", (d) => (output += d))
  child.stderr?.on("data", (d) => (output += d))
  await waitForOutput(child, /Listening on/, 90_000)
  return { child, base: `http://127.0.0.1:${p}`, output: () => output }
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
  return exited(child)
}

describe("one data folder, one server", () => {
  it("a second server on the same data folder exits non-zero naming the folder and the owner's pid, and the first keeps serving; a CLI command uses the first's Postgres", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-owner-"))
    const a = await serveOn(dataDir)
    try {
      assert.strictEqual(lockPid(dataDir), a.child.pid)
      const postgres = postmasterPid(dataDir)
      const p = await port()
      const b = startCli(["serve", "--no-demo"], {
        PORT: String(p),
        RATINGS_DATA_DIR: dataDir,
        DATABASE_URL: undefined
      })
      let said = ""
      b.stdout?.on("data", (d) => (said += d))
      b.stderr?.on("data", (d) => (said += d))
      const code = await Promise.race([
        exited(b),
        new Promise<string>((r) => setTimeout(() => r("still running"), 60_000))
      ])
      if (code === "still running") await stop(b)
      assert.notStrictEqual(code, "still running", `the second server must refuse to start:\n${said}`)
      assert.notStrictEqual(code, 0)
      assert.include(said, resolve(dataDir))
      assert.include(said, `pid ${a.child.pid}`)
      assert.notInclude(said, "Listening on")
      assert.strictEqual(postmasterPid(dataDir), postgres, "the first server's Postgres was not touched")
      assert.strictEqual(lockPid(dataDir), a.child.pid)

      const key = await runCli(["keys", "create", "--tier", "free", "--name", "while-serving"], {
        RATINGS_DATA_DIR: dataDir
      })
      assert.strictEqual(key.code, 0, key.stderr)
      assert.strictEqual(postmasterPid(dataDir), postgres, "the command connected to the running Postgres")
      assert.strictEqual(lockPid(dataDir), a.child.pid)
      const ready = await fetch(`${a.base}/ready`)
      assert.strictEqual(ready.status, 200)
    } finally {
      await stop(a.child)
    }
    assert.isFalse(existsSync(join(dataDir, "server.lock")), "the lock goes with the server")
  }, 180_000)

  it("after a kill -9 of the server, the next server finds its Postgres orphaned (the lock's pid is gone), stops it, starts its own, serves, and stops it on shutdown", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-orphan-"))
    const a = await serveOn(dataDir)
    const orphan = postmasterPid(dataDir)
    a.child.kill("SIGKILL")
    await exited(a.child)
    assert.isTrue(isAlive(orphan), "Postgres outlives a kill -9 of its server")
    assert.isTrue(existsSync(join(dataDir, "server.lock")), "a stale lock is left behind")

    const c = await serveOn(dataDir)
    let restarted = 0
    try {
      assert.include(c.output(), `pid ${orphan}`)
      assert.isFalse(isAlive(orphan), "the orphaned Postgres was stopped")
      restarted = postmasterPid(dataDir)
      assert.notStrictEqual(restarted, orphan)
      assert.strictEqual(lockPid(dataDir), c.child.pid)
      const ready = await fetch(`${c.base}/ready`)
      assert.strictEqual(ready.status, 200)
      const list = await fetch(`${c.base}/api/v1/protocols`)
      assert.strictEqual(list.status, 200)
    } finally {
      await stop(c.child)
      // Whatever the outcome, leave no Postgres of this test behind.
      if (isAlive(orphan)) process.kill(orphan, "SIGINT")
    }
    await until("the restarted Postgres to stop", () => !isAlive(restarted))
    assert.isFalse(existsSync(join(dataDir, "pg", "postmaster.pid")))
    assert.isFalse(existsSync(join(dataDir, "server.lock")))
  }, 240_000)
})

describe("/ready", () => {
  it("is 200 while the database answers and 503 with a JSON detail once it is gone, while /health stays 200; the server still shuts down", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ratings-ready-"))
    const server = await serveOn(dataDir)
    try {
      const ready = await fetch(`${server.base}/ready`)
      assert.strictEqual(ready.status, 200)
      assert.strictEqual(ready.headers.get("cache-control"), "no-store")
      assert.deepStrictEqual(await ready.json(), { status: "ready" })

      const postgres = postmasterPid(dataDir)
      process.kill(postgres, "SIGINT")
      await until("Postgres to stop", () => !isAlive(postgres))

      const started = Date.now()
      const notReady = await fetch(`${server.base}/ready`)
      assert.isBelow(Date.now() - started, 5_000, "answered within the probe's timeout")
      assert.strictEqual(notReady.status, 503)
      assert.strictEqual(notReady.headers.get("cache-control"), "no-store")
      const body = (await notReady.json()) as { detail: string }
      assert.match(body.detail, /^not ready: the database /)
      assert.deepStrictEqual(Object.keys(body), ["detail"])
      const again = await fetch(`${server.base}/ready`)
      assert.strictEqual(again.status, 503, "not a cached answer")

      const health = await fetch(`${server.base}/health`)
      assert.strictEqual(health.status, 200, "liveness: the process is up")
    } finally {
      // The package's stop() would wait for the exit of a Postgres that already
      // exited, until its exit hook's 10 s timeout forces the process out.
      const stopping = Date.now()
      const code = await Promise.race([
        stop(server.child),
        new Promise<string>((r) => setTimeout(() => r("still running"), 60_000))
      ])
      assert.notStrictEqual(code, "still running", "the server exits although its Postgres is gone")
      assert.isBelow(Date.now() - stopping, 8_000, "without waiting for the Postgres that is already gone")
    }
  }, 180_000)
})
