/**
 * `ratings import` is all-or-nothing even when its process is killed with
 * SIGKILL in the middle of writing: the one transaction never commits, so the
 * database holds exactly what it held before, no lock or session is left
 * behind, and the same import run again lands whole.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

const Tables = ["entities", "questions", "scorecards", "answers", "rating_history", "incidents"] as const
const Entities = 1_500

let db: Awaited<ReturnType<typeof scratchDatabase>>
let dir: string
let env: Record<string, string | undefined>

const query = async <A>(f: (c: pg.Client) => Promise<A>): Promise<A> => {
  const c = new pg.Client({ connectionString: db.url })
  await c.connect()
  try {
    return await f(c)
  } finally {
    await c.end()
  }
}

const counts = () =>
  query(async (c) => {
    const out = {} as Record<(typeof Tables)[number], number>
    for (const t of Tables) out[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n)
    return out
  })

/** Sessions on the database other than this query's own, once the server has noticed a dead client. */
const otherSessions = async (): Promise<number> => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const n = await query(async (c) =>
      Number(
        (
          await c.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
          )
        ).rows[0].n
      )
    )
    if (n === 0 || Date.now() > deadline) return n
    await new Promise((r) => setTimeout(r, 200))
  }
}

beforeAll(async () => {
  db = await scratchDatabase()
  dir = mkdtempSync(join(tmpdir(), "ratings-import-kill-"))
  env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: join(dir, "data") }
  const generated = await runCli(
    ["demo", "generate", "--entities", String(Entities), "--seed", "7", "--out", join(dir, "dataset")],
    env
  )
  assert.strictEqual(generated.code, 0, generated.stdout + generated.stderr)
  // A database that already holds ratings: the killed import must leave them exactly as they are.
  const demo = await runCli(
    ["import", join(import.meta.dirname, "..", "..", "..", "packages", "demo-data", "data")],
    env
  )
  assert.strictEqual(demo.code, 0, demo.stdout + demo.stderr)
}, 240_000)

afterAll(async () => {
  await db?.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe("ratings import killed with SIGKILL", () => {
  it("an import killed while it writes leaves the database exactly as before, no session behind, and the same import then lands whole", async () => {
    const before = await counts()
    assert.isAbove(before.entities, 0)

    const child = startCli(["import", join(dir, "dataset")], env)
    // Past validation and the entities: rows of the import are written inside its open transaction.
    await waitForOutput(child, /import (scorecards|history|publications): \d+\/\d+/, 180_000)
    child.kill("SIGKILL")
    assert.strictEqual(await exited(child), null, "killed, not exited")

    assert.strictEqual(await otherSessions(), 0, "the killed import's session is gone")
    assert.deepStrictEqual(await counts(), before, "nothing of the killed import is in the database")

    const again = await runCli(["import", join(dir, "dataset")], env)
    assert.strictEqual(again.code, 0, again.stdout + again.stderr)
    const after = await counts()
    assert.strictEqual(after.entities, before.entities + Entities, "the import landed whole")
    assert.isAbove(after.answers, before.answers)
  }, 420_000)
})
