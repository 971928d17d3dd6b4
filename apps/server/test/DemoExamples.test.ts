/**
 * The demo speaks the live service's examples (issue 17 point 2): with the
 * demo dataset imported, a server answers what clients written for the live
 * service ask first, as they ask it: protocol `aave-v4`, chain `ethereum` and
 * oracle `chainlink`, looked up and then their scorecards by id (api-facts:
 * "Clients look an entity up first, then call its scorecards route with the
 * UUID id") and by slug, and the confirmed incidents, one of them naming a
 * demo protocol. The slugs tests rely on (`aave-v3`, `chainlink-data-feeds`)
 * are still there.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
type Json = any

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

const Uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe("the demo answers the live service's example slugs", () => {
  for (const [plural, slug, name] of [
    ["protocols", "aave-v4", "Aave V4"],
    ["chains", "ethereum", "Ethereum"],
    ["oracles", "chainlink", "Chainlink"],
    ["protocols", "aave-v3", "Aave V3"],
    ["oracles", "chainlink-data-feeds", "Chainlink Data Feeds"]
  ] as const) {
    it(`GET /${plural}/${slug}, then its scorecards by id and by slug: 200, the latest published scorecard, marked as demo data`, async () => {
      const detail = await get(`/${plural}/${slug}`)
      assert.strictEqual(detail.status, 200)
      assert.strictEqual(detail.body.slug, slug)
      assert.strictEqual(detail.body.name, name)
      assert.match(detail.body.id, Uuid)
      assert.isArray(detail.body.chains)
      assert.isArray(detail.body.categories)
      assert.include(detail.body.description, "Demo data")
      for (const ref of [detail.body.id, slug]) {
        const cards = await get(`/${plural}/${ref}/scorecards`)
        assert.strictEqual(cards.status, 200, ref)
        assert.strictEqual(
          cards.body.total,
          1,
          `${ref}: anonymous callers get the latest published scorecard`
        )
        const [card] = cards.body.items
        assert.strictEqual(card.status, "published")
        assert.isString(card.letter_grade)
        assert.strictEqual(card.letter_grade, card.grade)
        assert.isNumber(card.composite_score)
        assert.isNumber(card.intrinsic_composite_score)
        assert.isString(card.intrinsic_letter_grade)
        assert.isBoolean(card.has_unrated_dependencies)
      }
    }, 30_000)
  }

  it("the lists find them: protocols?search=aave and oracles?search=chainlink", async () => {
    const protocols = await get("/protocols?search=aave")
    assert.includeMembers(
      protocols.body.items.map((p: Json) => p.slug),
      ["aave-v3", "aave-v4"]
    )
    const oracles = await get("/oracles?search=chainlink")
    assert.includeMembers(
      oracles.body.items.map((o: Json) => o.slug),
      ["chainlink", "chainlink-data-feeds"]
    )
  })

  it("GET /incidents?min_status=confirmed lists confirmed incidents, one naming a demo protocol, which resolves", async () => {
    const feed = await get("/incidents?min_status=confirmed")
    assert.strictEqual(feed.status, 200)
    assert.isAtLeast(feed.body.total, 1)
    for (const item of feed.body.items) {
      assert.strictEqual(item.status, "confirmed")
      assert.match(item.incident_id, Uuid)
      assert.isAtLeast(item.source_count, 2)
      assert.isArray(item.sources)
      assert.isString(item.detected_at)
    }
    const matched = feed.body.items.filter((i: Json) => i.matched_protocol && i.slug !== null)
    assert.isAtLeast(matched.length, 1)
    const protocol = await get(`/protocols/${matched[0].slug}`)
    assert.strictEqual(protocol.status, 200)
    assert.strictEqual(protocol.body.slug, matched[0].slug)
    const same = await get("/incidents")
    assert.deepStrictEqual(same.body, feed.body, "confirmed is the feed's default")
  })
})
