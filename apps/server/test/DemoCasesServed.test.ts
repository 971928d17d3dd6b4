/**
 * The demo's spec cases as a black-box client meets them, with the demo
 * imported by `ratings import` and served over HTTP: incidents detected when
 * their reports came in (months apart, newest first, `since` polling by
 * detection), private and inactive records of every type hidden from lists
 * and 404 on lookup, the validator-set owner a bridge embeds not resolving,
 * and a chain the quantum source has not assessed. The file-level list of
 * cases is packages/demo-data/test/DemoCases.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

// biome-ignore lint/suspicious/noExplicitAny: demo files and response bodies are probed field by field
type Json = any

const demo: ReadonlyArray<Json> = readdirSync(DemoDataDir)
  .filter((n) => n.endsWith(".json"))
  .sort()
  .map((n) => JSON.parse(readFileSync(join(DemoDataDir, n), "utf8")))
const entities: ReadonlyArray<Json> = demo.flatMap((f) => f.entities ?? [])
const reports: ReadonlyArray<Json> = demo.flatMap((f) => f.incidents ?? [])
const plural = (type: string) => (type === "bridge" ? "bridges" : `${type}s`)

let db: Awaited<ReturnType<typeof scratchDatabase>>
let server: ChildProcess
let base: string

beforeAll(async () => {
  db = await scratchDatabase()
  const imported = await runCli(["import", DemoDataDir], { DATABASE_URL: db.url })
  assert.strictEqual(imported.code, 0, imported.stderr)
  const port = await Effect.runPromise(freePort)
  server = startCli(["serve"], { PORT: String(port), DATABASE_URL: db.url })
  await waitForOutput(server, /ratings service listening on/, 60_000)
  base = `http://127.0.0.1:${port}/api/v1`
}, 180_000)

afterAll(async () => {
  server?.kill("SIGTERM")
  if (server !== undefined) await exited(server)
  await db?.drop()
}, 60_000)

const get = async (path: string): Promise<{ readonly status: number; readonly body: Json }> => {
  const r = await fetch(base + path, { headers: { accept: "application/json" } })
  return { status: r.status, body: await r.json() }
}

describe("the demo's incidents are detected when their reports came in", () => {
  const DayMillis = 86_400_000

  it("GET /incidents?min_status=rumored: newest first by detected_at, spanning months, each detected_at a report's received_at", async () => {
    const feed = await get("/incidents?min_status=rumored&limit=200")
    assert.strictEqual(feed.status, 200)
    const items: ReadonlyArray<Json> = feed.body.items
    assert.isAtLeast(items.length, 5)
    const detected = items.map((i) => Date.parse(i.detected_at))
    assert.deepStrictEqual(
      detected,
      [...detected].sort((a, b) => b - a)
    )
    assert.isAbove(detected[0]! - detected.at(-1)!, 60 * DayMillis, "detections span months, not one load")
    for (const item of items) {
      const received = reports
        .filter((r) => r.protocol_name === item.protocol_name)
        .map((r) => Date.parse(r.received_at))
      assert.include(
        received,
        Date.parse(item.detected_at),
        `${item.protocol_name}: detected when a report came in`
      )
      assert.isAtLeast(Date.parse(item.detected_at), Date.parse(item.first_seen_at), item.protocol_name)
    }
  })

  it("polling with since lists exactly the incidents detected after it", async () => {
    const all: ReadonlyArray<Json> = (await get("/incidents?min_status=rumored&limit=200")).body.items
    const middle = all[Math.floor(all.length / 2)]
    const since = await get(`/incidents?min_status=rumored&since=${encodeURIComponent(middle.detected_at)}`)
    assert.deepStrictEqual(
      since.body.items.map((i: Json) => i.incident_id),
      all.filter((i) => Date.parse(i.detected_at) > Date.parse(middle.detected_at)).map((i) => i.incident_id)
    )
  })
})

describe("the demo's hidden records, owner and unassessed chain, as served", () => {
  for (const [flag, hidden] of [
    ["private", (e: Json) => e.record.is_private],
    ["inactive", (e: Json) => !e.record.is_active]
  ] as const) {
    it(`every ${flag} record of each type is missing from its list and 404 on lookup`, async () => {
      for (const type of ["protocol", "chain", "token", "oracle", "vault", "organisation", "bridge"]) {
        const records = entities.filter((e) => e.entity_type === type && hidden(e))
        assert.isAtLeast(records.length, 1, `no ${flag} ${type} in the demo`)
        const list = await get(`/${plural(type)}?limit=200`)
        const listed = new Set(list.body.items.map((i: Json) => i.slug))
        for (const e of records) {
          assert.isFalse(listed.has(e.record.slug), `${type} ${e.record.slug} is listed`)
          assert.strictEqual((await get(`/${plural(type)}/${e.record.slug}`)).status, 404, e.record.slug)
        }
      }
    })
  }

  it("a bridge embeds its validator_set_owner, an organisation that does not resolve under /organisations", async () => {
    const bridges: ReadonlyArray<Json> = (await get("/bridges?limit=200")).body.items
    const owned = bridges.filter((b) => b.validator_set_owner !== null && b.validator_set_owner !== undefined)
    assert.isAtLeast(owned.length, 1)
    for (const b of owned) {
      assert.strictEqual((await get(`/organisations/${b.validator_set_owner.slug}`)).status, 404)
      assert.strictEqual((await get(`/organisations/${b.validator_set_owner.id}`)).status, 404)
    }
  })

  it("a listed chain the quantum source has not assessed answers 200 with available false and a reason", async () => {
    const table = await get("/quantum-readiness")
    const matched = new Set(table.body.rows?.map((r: Json) => r.matched_chain_slug) ?? [])
    const chains: ReadonlyArray<Json> = (await get("/chains?limit=200")).body.items
    const unassessed = chains.filter((c) => !matched.has(c.slug))
    assert.isAtLeast(unassessed.length, 1)
    for (const c of unassessed) {
      const one = await get(`/chains/${c.slug}/quantum-readiness`)
      assert.strictEqual(one.status, 200)
      assert.isFalse(one.body.available, c.slug)
      assert.isString(one.body.reason)
    }
  })
})
