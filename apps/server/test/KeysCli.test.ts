/**
 * `ratings keys create|list|revoke` and `ratings dev token` as an operator runs
 * them: a key is printed once, stored only as a hash, works on the API at its
 * tier, and stops working when revoked; a dev token makes an admin.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import pg from "pg"
import { exited, runCli, runCliBothWays, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let env: Record<string, string | undefined>
let server: ReturnType<typeof startCli>
let base: string

beforeAll(async () => {
  db = await scratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), "ratings-keys-"))
  const port = await Effect.runPromise(freePort)
  env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: dataDir, PORT: String(port) }
  // the dev identity provider's key pair must exist before the server starts, so it trusts it
  const minted = await runCli(["dev", "token"], env)
  assert.strictEqual(minted.code, 0, minted.stderr)
  server = startCli(["serve"], env)
  await waitForOutput(server, /Listening on/, 60_000)
  base = `http://127.0.0.1:${port}/api/v1`
}, 90_000)

afterAll(async () => {
  server.kill("SIGTERM")
  await exited(server)
  await db.drop()
})

const get = (path: string, token?: string) =>
  fetch(`${base}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })

describe("ratings keys", () => {
  it("keys create prints the key once; it is stored hashed and works at its tier", async () => {
    const created = await runCli(["keys", "create", "--tier", "pro", "--name", "desk"], env)
    assert.strictEqual(created.code, 0, created.stderr)
    const key = created.stdout.trim()
    assert.match(key, /^rk_[A-Za-z0-9_-]{43}$/)
    assert.include(created.stderr, "shown this once")
    const c = new pg.Client({ connectionString: db.url })
    await c.connect()
    const dump = JSON.stringify((await c.query("SELECT * FROM api_keys")).rows)
    await c.end()
    assert.notInclude(dump, key.slice(3), "the key is never stored in clear")
    const listed = await runCli(["keys", "list"], env)
    assert.notInclude(listed.stdout, key.slice(9), "keys list never shows the key")
    assert.include(listed.stdout, "pro")
    const domains = await get("/protocols/no-such-protocol/domains", key)
    assert.strictEqual(domains.status, 404, "a Pro key passes the Pro gate")
    const questions = await get("/protocols/no-such-protocol/questions", key)
    assert.strictEqual(questions.status, 403, "a Pro key is below Enterprise")
  }, 60_000)

  it("a revoked key is refused with 401 invalid_key", async () => {
    const created = await runCli(["keys", "create", "--tier", "enterprise", "--name", "temp"], env)
    const key = created.stdout.trim()
    const id = /key ([0-9a-f-]{36})/.exec(created.stderr)![1]!
    assert.strictEqual((await get("/protocols", key)).status, 200)
    const revoked = await runCli(["keys", "revoke", id], env)
    assert.strictEqual(revoked.code, 0, revoked.stderr)
    const after = await get("/protocols", key)
    assert.strictEqual(after.status, 401)
    assert.deepStrictEqual(await after.json(), { detail: { error: "invalid_key" } })
    // the real binary, and in this process alike
    const again = await runCliBothWays(["keys", "revoke", id], env)
    assert.strictEqual(again.code, 1)
  }, 60_000)

  it("dev token mints an admin JWT the development server trusts", async () => {
    const minted = await runCli(["dev", "token", "--role", "super_admin"], env)
    assert.strictEqual(minted.code, 0, minted.stderr)
    const token = minted.stdout.trim()
    assert.strictEqual(token.split(".").length, 3)
    const res = await get("/protocols?include_inactive=true", token)
    assert.strictEqual(res.status, 200)
    const forged = `${token.slice(0, -4)}AAAA`
    const refused = await get("/protocols", forged)
    assert.strictEqual(refused.status, 401)
    assert.deepStrictEqual(await refused.json(), { detail: { error: "invalid_token" } })
  }, 60_000)
})
