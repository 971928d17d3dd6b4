/**
 * Observability (issue 14, point 7), on a real `ratings serve`:
 * - with RATINGS_METRICS_TOKEN, GET /metrics answers the token and an admin
 *   JWT in the Prometheus text format, and refuses anyone else with the API's
 *   JSON error bodies; request counters are labelled with the route template;
 * - with OTEL_EXPORTER_OTLP_ENDPOINT, spans reach an OTLP/HTTP receiver;
 * - by default, metrics are off: /metrics is a 404 like any unknown path.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import pg from "pg"
import type { ChildProcess } from "node:child_process"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

const MetricsToken = "metrics-token-0123456789abcdef"
const ImportFormatDoc = join(import.meta.dirname, "..", "..", "..", "docs", "import-format.md")

let db: Awaited<ReturnType<typeof scratchDatabase>>
let receiver: http.Server
const traces: Array<{ readonly path: string; readonly body: string }> = []
let server: { child: ChildProcess; port: number; dataDir: string }

const start = async (env: Record<string, string>) => {
  const port = await Effect.runPromise(freePort)
  const dataDir = mkdtempSync(join(tmpdir(), "ratings-observability-"))
  const child = startCli(["serve", "--no-demo"], {
    DATABASE_URL: db.url,
    PORT: String(port),
    RATINGS_DATA_DIR: dataDir,
    NODE_ENV: "test",
    ...env
  })
  await waitForOutput(child, /ratings service listening on/, 60_000)
  return { child, port, dataDir }
}

const stop = async (child: ChildProcess) => {
  child.kill("SIGTERM")
  await exited(child)
}

const get = async (port: number, path: string, authorization?: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    headers: authorization === undefined ? {} : { authorization }
  })
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() }
}

beforeAll(async () => {
  db = await scratchDatabase()
  receiver = http.createServer((request, response) => {
    let body = ""
    request.on("data", (d) => (body += d))
    request.on("end", () => {
      traces.push({ path: request.url ?? "", body })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  server = await start({
    RATINGS_METRICS_TOKEN: MetricsToken,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_SERVICE_NAME: "ratings-test"
  })
}, 120_000)

afterAll(async () => {
  if (server !== undefined) await stop(server.child)
  receiver?.close()
  await db?.drop()
}, 60_000)

describe("GET /metrics", () => {
  it("serves Prometheus counters labelled with the route template to the metrics token", async () => {
    await get(server.port, "/api/v1/protocols/no-such-protocol")
    await get(server.port, "/api/v1/protocols/another-one")
    const metrics = await get(server.port, "/metrics", `Bearer ${MetricsToken}`)
    assert.strictEqual(metrics.status, 200)
    assert.match(metrics.type ?? "", /^text\/plain; version=0\.0\.4/)
    const line = metrics.body
      .split("\n")
      .find(
        (l) => l.startsWith("http_requests_total{") && l.includes('route="/api/v1/protocols/:identifier"')
      )
    assert.isDefined(line, metrics.body)
    assert.match(line!, /method="GET"/)
    assert.match(line!, /status="404"/)
    assert.match(line!, / 2$/)
    assert.notInclude(metrics.body, "no-such-protocol")
    assert.include(metrics.body, "http_request_duration_seconds_bucket{")
    assert.include(metrics.body, "ratings_webhook_queue_depth 0")
    assert.include(metrics.body, "ratings_response_cache_hits_total")
  })

  it("counts what imports and publishes stored, read from the database at each scrape: entities and scorecards by status, publications", async () => {
    const scrape = async () => {
      const metrics = await get(server.port, "/metrics", `Bearer ${MetricsToken}`)
      assert.strictEqual(metrics.status, 200)
      const value = (series: string) => {
        const line = metrics.body.split("\n").find((l) => l.startsWith(`${series} `))
        assert.isDefined(line, `${series} in\n${metrics.body}`)
        return Number(line!.slice(series.length + 1))
      }
      return {
        publications: value("ratings_publications"),
        entitiesPublished: value('ratings_stored_entities{status="published"}'),
        drafts: value('ratings_stored_scorecards{status="draft"}'),
        published: value('ratings_stored_scorecards{status="published"}')
      }
    }
    const fromDatabase = async () => {
      const c = new pg.Client({ connectionString: db.url })
      await c.connect()
      try {
        const n = async (q: string) => Number((await c.query(q)).rows[0].n)
        return {
          publications: await n("SELECT count(*) AS n FROM rating_history"),
          entitiesPublished: await n("SELECT count(*) AS n FROM entities WHERE status = 'published'"),
          drafts: await n("SELECT count(*) AS n FROM scorecards WHERE status = 'draft'"),
          published: await n("SELECT count(*) AS n FROM scorecards WHERE status = 'published'")
        }
      } finally {
        await c.end()
      }
    }
    const before = await scrape()
    assert.deepStrictEqual(before, await fromDatabase())
    // The import format's own example, and a new draft of its first scorecard, imported by another process.
    const data = JSON.parse(
      /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(
        readFileSync(ImportFormatDoc, "utf8")
      )![1]!
    )
    const file = join(mkdtempSync(join(tmpdir(), "ratings-metrics-import-")), "import.json")
    writeFileSync(file, JSON.stringify(data))
    const imported = await runCli(["import", file], { DATABASE_URL: db.url })
    assert.strictEqual(imported.code, 0, imported.stderr)
    const afterImport = await scrape()
    assert.deepStrictEqual(afterImport, await fromDatabase())
    assert.isAbove(
      afterImport.entitiesPublished,
      before.entitiesPublished,
      "the import's entities are counted"
    )
    assert.isAbove(afterImport.published + afterImport.drafts, before.published + before.drafts)
    assert.isAbove(afterImport.publications, before.publications, "the import's publications are counted")
  })

  it("serves an admin JWT", async () => {
    const minted = await runCli(["dev", "token"], { RATINGS_DATA_DIR: server.dataDir, NODE_ENV: "test" })
    assert.strictEqual(minted.code, 0, minted.stderr)
    const metrics = await get(server.port, "/metrics", `Bearer ${minted.stdout.trim()}`)
    assert.strictEqual(metrics.status, 200, metrics.body)
    assert.include(metrics.body, "http_requests_total{")
  })

  it("refuses callers without the token or an admin JWT with the API's error bodies", async () => {
    const anonymous = await get(server.port, "/metrics")
    assert.strictEqual(anonymous.status, 401)
    assert.deepStrictEqual(JSON.parse(anonymous.body), { detail: { error: "admin_required" } })
    const wrong = await get(server.port, "/metrics", "Bearer metrics-token-wrong-0000000000")
    assert.strictEqual(wrong.status, 401)
    assert.deepStrictEqual(JSON.parse(wrong.body), { detail: { error: "invalid_token" } })
    const created = await runCli(["keys", "create", "--tier", "enterprise", "--name", "m"], {
      DATABASE_URL: db.url
    })
    assert.strictEqual(created.code, 0, created.stderr)
    const key = await get(server.port, "/metrics", `Bearer ${created.stdout.trim()}`)
    assert.strictEqual(key.status, 403)
    assert.deepStrictEqual(JSON.parse(key.body), { detail: { error: "admin_required" } })
  })
})

describe("OTLP export", () => {
  it("exports the server's spans to OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    await get(server.port, "/api/v1/protocols")
    const deadline = Date.now() + 20_000
    while (
      Date.now() < deadline &&
      !traces.some((t) => t.path === "/v1/traces" && t.body.includes('"spans"'))
    )
      await new Promise((resolve) => setTimeout(resolve, 250))
    const exported = traces
      .filter((t) => t.path === "/v1/traces")
      .map((t) => t.body)
      .join("\n")
    assert.include(exported, '"spans"')
    assert.include(exported, "ratings-test")
    assert.include(exported, "/api/v1/protocols")
  }, 30_000)
})

describe("OTLP export of the lane of cache hits", () => {
  it("with tracing on, reads answered by the lane of cache hits are exported as server spans too", async () => {
    // The first read is the router's (and fills the cache); the next ones are the lane's.
    for (let i = 0; i < 3; i++) await get(server.port, "/api/v1/chains?limit=5")
    const laneSpan = () =>
      traces.some((t) => t.path === "/v1/traces" && t.body.includes("ratings.answered_by"))
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline && !laneSpan()) await new Promise((resolve) => setTimeout(resolve, 250))
    const exported = traces
      .filter((t) => t.path === "/v1/traces")
      .map((t) => t.body)
      .join("\n")
    assert.include(exported, "ratings.answered_by", "a span of the lane")
    assert.include(exported, '"stringValue":"lane"')
  }, 30_000)
})

describe("metrics off (the default)", () => {
  it("has no /metrics route: a 404 like any unknown path, even for the token", async () => {
    const off = await start({})
    try {
      const metrics = await get(off.port, "/metrics", `Bearer ${MetricsToken}`)
      assert.strictEqual(metrics.status, 404)
      assert.deepStrictEqual(JSON.parse(metrics.body), { detail: "not found" })
    } finally {
      await stop(off.child)
    }
  }, 90_000)
})
