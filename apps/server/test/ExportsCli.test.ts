/**
 * `ratings exports show <export_id>` as an operator runs it to trace a leaked
 * file (issue 6: "every export gets its own __export_id watermark, recorded
 * with who exported what and when, so a leaked file can be traced"): the
 * watermark read from a real file served by `ratings serve` names the account,
 * the key that pulled it (with its name, and revoked once it is), what the file
 * held and when. Never the key itself; an unknown or malformed id exits 1.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import { exited, runCli, runCliBothWays, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let env: Record<string, string | undefined>
let server: ReturnType<typeof startCli>
let base: string

beforeAll(async () => {
  db = await scratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), "ratings-exports-"))
  const port = await Effect.runPromise(freePort)
  env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: dataDir, PORT: String(port) }
  const imported = await runCli(["import", DemoDataDir], env)
  assert.strictEqual(imported.code, 0, imported.stderr)
  // the dev identity provider's key pair must exist before the server starts, so it trusts it
  const minted = await runCli(["dev", "token"], env)
  assert.strictEqual(minted.code, 0, minted.stderr)
  server = startCli(["serve", "--no-demo"], env)
  await waitForOutput(server, /Listening on/, 60_000)
  base = `http://127.0.0.1:${port}/api/v1`
}, 120_000)

afterAll(async () => {
  server.kill("SIGTERM")
  await exited(server)
  await db.drop()
})

/** `name  value` lines of `exports show` as a map. */
const fieldsOf = (stdout: string): Map<string, string> =>
  new Map(
    stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const m = /^(\S+)\s+(.*)$/.exec(line)!
        return [m[1]!, m[2]!] as const
      })
  )

describe("ratings exports show", () => {
  it("the __export_id of a served CSV names the account, the key (by name, active then revoked), what the file held and when; never the key", async () => {
    const created = await runCli(["keys", "create", "--tier", "pro", "--name", "risk desk 7"], env)
    assert.strictEqual(created.code, 0, created.stderr)
    const key = created.stdout.trim()
    const [, keyId, account] = /key ([0-9a-f-]{36}) \(pro, account ([0-9a-f-]{36})\)/.exec(created.stderr)!
    const before = Date.now()
    const res = await fetch(`${base}/export.csv?entity=protocols&fields=slug,name,grade&limit=7`, {
      headers: { authorization: `Bearer ${key}` }
    })
    assert.strictEqual(res.status, 200)
    const lines = (await res.text()).trim().split("\r\n")
    const header = lines[0]!.split(",")
    const watermark = lines[1]!.split(",")[header.indexOf("__export_id")]!
    assert.strictEqual(res.headers.get("x-export-id"), watermark)

    // the real binary, and in this process alike
    const shown = await runCliBothWays(["exports", "show", watermark], env)
    assert.strictEqual(shown.code, 0, shown.stderr)
    const fields = fieldsOf(shown.stdout)
    assert.deepStrictEqual(
      [...fields.keys()],
      ["export_id", "exported_at", "account", "key", "entity_type", "format", "fields", "rows"]
    )
    assert.strictEqual(fields.get("export_id"), watermark)
    assert.strictEqual(fields.get("account"), account)
    assert.match(fields.get("key")!, new RegExp(`^${keyId} \\("risk desk 7", pro, rk_\\S+…, active\\)$`))
    assert.strictEqual(fields.get("entity_type"), "protocol")
    assert.strictEqual(fields.get("format"), "csv")
    assert.strictEqual(fields.get("fields"), "slug,name,grade")
    assert.strictEqual(fields.get("rows"), String(lines.length - 1))
    const at = Date.parse(fields.get("exported_at")!)
    assert.isTrue(at >= before - 1000 && at <= Date.now() + 1000, fields.get("exported_at"))
    assert.notInclude(shown.stdout + shown.stderr, key.slice(9), "the key itself is never printed")

    const revoked = await runCli(["keys", "revoke", keyId!], env)
    assert.strictEqual(revoked.code, 0, revoked.stderr)
    const again = fieldsOf((await runCli(["exports", "show", ` ${watermark}\n`], env)).stdout)
    assert.match(again.get("key")!, /, revoked \d{4}-\d{2}-\d{2}T[\d:.]+\+00:00\)$/)
  }, 90_000)

  it("an export made with an admin token is traced to the admin's subject, with no key", async () => {
    const token = (await runCli(["dev", "token", "--subject", "ops@example"], env)).stdout.trim()
    const res = await fetch(`${base}/export.json?entity=chain&fields=slug`, {
      headers: { authorization: `Bearer ${token}` }
    })
    assert.strictEqual(res.status, 200)
    const watermark = res.headers.get("x-export-id")!
    const fields = fieldsOf((await runCli(["exports", "show", watermark], env)).stdout)
    assert.strictEqual(fields.get("account"), "admin:ops@example")
    assert.strictEqual(fields.get("key"), "none (an admin token)")
    assert.strictEqual(fields.get("format"), "json")
  }, 60_000)

  it("an unknown or malformed export id exits 1 saying there is no such export", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const r = await runCli(["exports", "show", id], env)
      assert.strictEqual(r.code, 1, r.stdout)
      assert.include(r.stderr, `no export with id "${id}"`)
      assert.strictEqual(r.stdout, "")
    }
  }, 60_000)
})
