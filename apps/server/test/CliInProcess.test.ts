/**
 * The in-process runner of the command line (InProcessCli.ts `runRatings`, the
 * `runCli` of the tests) against the real binary: the same exit codes and
 * output for bad arguments, help, configuration errors and failed commands;
 * configuration read from the given environment only; output, log lines and
 * progress captured; and nothing left behind in the process (no signal
 * handler, no exit code, no open database connection).
 */
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runRatings } from "./InProcessCli.ts"
import { runCli, runCliBothWays, scratchDatabase } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let dir: string

beforeAll(async () => {
  db = await scratchDatabase()
  dir = mkdtempSync(join(tmpdir(), "ratings-cli-in-process-"))
}, 60_000)

afterAll(async () => {
  await db.drop()
})

/** Connections to the scratch database other than this query's own. */
const connections = async (): Promise<number> => {
  const c = new pg.Client({ connectionString: db.url })
  await c.connect()
  try {
    const r = await c.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    return r.rows[0].n
  } finally {
    await c.end()
  }
}

/**
 * Connections still open once those being closed are gone: a backend leaves
 * pg_stat_activity a moment after its client has closed the socket. A pool
 * left open would keep its idle connections for its idle time-out (60 s in
 * @effect/sql-pg), well past this wait.
 */
const settledConnections = async (): Promise<number> => {
  const deadline = Date.now() + 3_000
  let n = await connections()
  while (n > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    n = await connections()
  }
  return n
}

describe("runCli (in this process) exits and prints as the real binary does", () => {
  it("a bad argument, an unknown command, --version and --help", async () => {
    const env = { RATINGS_DATA_DIR: join(dir, "data") }
    const bogus = await runCliBothWays(["status", "protocol", "lendwell", "retired"], env)
    assert.strictEqual(bogus.code, 1)
    assert.include(bogus.stderr, 'Invalid value for argument <status>: "retired"')
    const unknown = await runCliBothWays(["no-such-command"], env)
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, 'Unknown subcommand "no-such-command" for "ratings"')
    const version = await runCliBothWays(["--version"], env)
    assert.strictEqual(version.code, 0)
    assert.strictEqual(version.stdout, "ratings v0.1.0\n")
    const help = await runCliBothWays(["keys", "--help"], env)
    assert.strictEqual(help.code, 0)
    assert.include(help.stdout, "Manage API keys")
  }, 120_000)

  it("a configuration error is logged with the setting's name and exits 1", async () => {
    const r = await runCliBothWays(["keys", "list"], { DATABASE_URL: "mysql://someone@db/ratings" })
    assert.strictEqual(r.code, 1)
    assert.include(r.stdout, "ERROR")
    assert.include(r.stdout, "DATABASE_URL")
    assert.notInclude(r.stdout + r.stderr, "someone", "the URL is not printed")
  }, 120_000)

  it("a failed command exits 1 with its message, and a command that works exits 0", async () => {
    const env = { DATABASE_URL: db.url }
    const missing = await runCliBothWays(["exports", "show", "0b0e2f9e-7a43-4c8e-9f0a-3c2d1e0f9a8b"], env)
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stderr, "no export with id")
    assert.strictEqual(missing.stdout, "")
    const listed = await runCliBothWays(["keys", "list"], env)
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.strictEqual(listed.stdout, "")
  }, 120_000)

  it("progress lines go to standard error, as a process with piped streams writes them", async () => {
    const out = join(dir, "generated")
    const r = await runCliBothWays(
      ["demo", "generate", "--entities", "3", "--seed", "7", "--out", out, "--overwrite"],
      {}
    )
    assert.strictEqual(r.code, 0, r.stderr)
    assert.include(r.stderr, "generate entities: 3/3 (100%)\n")
    assert.match(r.stdout, /^wrote 3 entities in \d+ files/)
  }, 120_000)
})

describe("runRatings reads only what it is given", () => {
  it("its configuration comes from the given environment, not from process.env", async () => {
    assert.notStrictEqual(process.env.NODE_ENV, "production")
    const dataDir = join(dir, "production")
    let stdout = ""
    let stderr = ""
    const code = await runRatings(["dev", "token"], {
      env: { NODE_ENV: "production", RATINGS_DATA_DIR: dataDir },
      stdout: (text) => {
        stdout += text
      },
      stderr: (text) => {
        stderr += text
      }
    })
    assert.strictEqual(code, 1)
    assert.strictEqual(stdout, "")
    assert.strictEqual(stderr, "the development identity provider is disabled when NODE_ENV=production\n")
    const minted = await runCli(["dev", "token"], { NODE_ENV: "test", RATINGS_DATA_DIR: dataDir })
    assert.strictEqual(minted.code, 0, minted.stderr)
    assert.strictEqual(minted.stdout.trim().split(".").length, 3)
    assert.isTrue(
      existsSync(join(dataDir, "dev-idp")),
      "the key pair is made under the given RATINGS_DATA_DIR"
    )
  }, 60_000)

  it("standard input is the given text (an empty input is refused before the database is opened)", async () => {
    const run = async (stdin: string | undefined) => {
      let stderr = ""
      const code = await runRatings(["incidents", "ingest", "-"], {
        env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
        stdout: () => undefined,
        stderr: (text) => {
          stderr += text
        },
        stdin
      })
      return { code, stderr }
    }
    const bad = await run('{"nonce": ')
    assert.strictEqual(bad.code, 1)
    assert.include(bad.stderr, "ingest refused")
    assert.include(bad.stderr, "<stdin>")
    const empty = await run(undefined)
    assert.strictEqual(empty.code, 1)
    assert.include(empty.stderr, "nothing was ingested")
  }, 60_000)
})

describe("an in-process run leaves nothing behind", () => {
  it("no signal handler, no exit code and no database connection outlive a run, whether it succeeds or fails", async () => {
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const
    const listeners = () => signals.map((s) => process.listenerCount(s))
    const before = { listeners: listeners(), exitCode: process.exitCode }
    const env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: join(dir, "data") }
    const runs = [
      await runCli(["keys", "create", "--tier", "free", "--name", "leak check"], env),
      await runCli(["keys", "list"], env),
      await runCli(["keys", "revoke", "not-a-key"], env),
      await runCli(["exports", "show", "not-an-id"], env),
      await runCli(["deliveries", "list", "--limit", "0"], env),
      await runCli(["status", "protocol", "nobody", "published"], env),
      await runCli(["keys", "list", "--no-such-flag"], env)
    ]
    assert.deepStrictEqual(
      runs.map((r) => r.code),
      [0, 0, 1, 1, 1, 1, 1],
      runs.map((r) => r.stderr).join("\n")
    )
    assert.deepStrictEqual({ listeners: listeners(), exitCode: process.exitCode }, before)
    assert.strictEqual(await settledConnections(), 0, "every pool of every run is closed")
  }, 120_000)
})
