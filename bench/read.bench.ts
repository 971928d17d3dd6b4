/**
 * Read benchmark (issue 4, "Proof"): anonymous load at 64 connections on
 * `GET /api/v1/protocols?limit=50` and on one protocol's scorecard list,
 * against the scale dataset with 10,000 protocols, imported into a fresh
 * database. In the same run and over the same database:
 *
 * - baseline: Fastify with the same SQL over `pg` (bench/readBaselineServer.ts);
 * - ours, uncached: the production server (`serve` over the production layers)
 *   without the response cache: every request queries and encodes;
 * - ours: the same with the response cache, as `ratings serve` runs it.
 *
 * Our servers run with the anonymous rate limit raised (so the limiter still
 * counts every request, its cost measured, but refuses none) and with their
 * request log on, as in production. Each server and the load generator
 * (autocannon) are separate child processes of this one, which only
 * orchestrates: on a 2-core machine the load generator competes with the
 * server under load (and with Postgres, for the uncached servers) in the same
 * way for every server, and the servers not under load are idle. Before the
 * load, the JSON of every server is checked equal to the baseline's.
 *
 * Prints requests/s and p99 latency per route and server, and the ratios to
 * the baseline. With ROUNDS > 1 the servers take turns and the median is shown.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:read
 *   (without DATABASE_URL an embedded Postgres is started)
 *   PROTOCOLS=10000 SEED=1 DURATION=10 WARMUP=3 CONNECTIONS=64 ROUNDS=1 KEEP=1 (keeps the database)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { isDeepStrictEqual } from "node:util"
import { NodeServices } from "@effect/platform-node"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { typeCounts, writeDataset } from "@ratings/demo-data"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { runMain, withPostgresServer, withScratchDatabase } from "./harness.ts"

const PROTOCOLS = Number(process.env.PROTOCOLS ?? 10_000)
const SEED = process.env.SEED ?? "1"
const DURATION = Number(process.env.DURATION ?? 10)
const WARMUP = Number(process.env.WARMUP ?? 3)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 64)
const ROUNDS = Number(process.env.ROUNDS ?? 1)
const KEEP = process.env.KEEP === "1"
const root = join(import.meta.dirname, "..")
const dataDir = join(root, ".data", "bench", `read-${PROTOCOLS}-protocols-seed-${SEED}`)
const Autocannon = join(root, "node_modules", "autocannon", "autocannon.js")

const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)

/** The dataset size whose protocol share is exactly `protocols` (the generator splits a total by type). */
const entitiesFor = (protocols: number): number => {
  const protocolsOf = (total: number) => typeCounts(total).find(([t]) => t === "protocol")?.[1] ?? 0
  let total = Math.round(protocols / 0.8)
  while (protocolsOf(total) < protocols) total++
  while (protocolsOf(total) > protocols) total--
  if (protocolsOf(total) !== protocols)
    throw new Error(`no dataset size gives exactly ${protocols} protocols`)
  return total
}

interface Server {
  readonly name: string
  readonly baseUrl: string
  readonly child: ChildProcess
}

const startServer = async (name: string, script: string, args: ReadonlyArray<string>): Promise<Server> => {
  const port = await run(freePort)
  const child = spawn(process.execPath, [join(import.meta.dirname, script), String(port), ...args], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    const up = await fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false
    )
    if (up) return { name, baseUrl, child }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${name} did not answer within 60 s`)
}

const stop = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve()
    server.child.once("exit", () => resolve())
    server.child.kill("SIGTERM")
  })

interface Load {
  readonly rps: number
  readonly p99: number
  readonly failed: number
}

/** autocannon in its own process; its JSON report read back. */
const load = (url: string, seconds: number): Promise<Load> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [Autocannon, "-c", String(CONNECTIONS), "-d", String(seconds), "--json", url],
      { stdio: ["ignore", "pipe", "ignore"] }
    )
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", () => {
      try {
        const report = JSON.parse(out)
        const seconds = (Date.parse(report.finish) - Date.parse(report.start)) / 1000 || report.duration
        resolve({
          rps: report["2xx"] / seconds,
          p99: report.latency.p99,
          failed: report.non2xx + report.errors + report.timeouts
        })
      } catch (e) {
        reject(new Error(`autocannon report unreadable: ${String(e)}\n${out}`))
      }
    })
  })

const json = async (url: string): Promise<unknown> => {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url}: ${response.status}`)
  return response.json()
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** The whole benchmark on `url`, a fresh database; prints the figures. */
const measure = async (url: string) => {
  const servers: Array<Server> = []
  try {
    // 1. The dataset (generated once, then reused) imported into the fresh database.
    const entities = entitiesFor(PROTOCOLS)
    if (!existsSync(dataDir) || readdirSync(dataDir).filter((f) => f.endsWith(".json")).length === 0) {
      const progress = terminalProgress("generate")
      await run(
        writeDataset(dataDir, { entities, seed: SEED }, (p) =>
          progress(p.entitiesWritten, p.totalEntities, "entities")
        ).pipe(Effect.provide(NodeServices.layer))
      )
    }
    const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
    const outcome = await run(
      importPath(dataDir, terminalProgress("import")).pipe(
        Effect.provide(application(key).pipe(Layer.provideMerge(database(url)))),
        Effect.scoped
      )
    )
    if (outcome._tag === "Rejected") throw new Error(formatIssues(outcome.issues))
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    // Fresh statistics and visibility map, as autovacuum would leave them, for every server alike.
    await db.query("VACUUM (ANALYZE)")
    const target = await db.query(
      `SELECT e.id FROM entities e JOIN scorecards s ON s.entity_id = e.id AND s.status = 'published'
       WHERE e.entity_type = 'protocol' AND e.status = 'published' AND e.is_active AND NOT e.is_private
       ORDER BY e.slug COLLATE "C" LIMIT 1`
    )
    const listed = await db.query(
      `SELECT count(*)::int AS n FROM entities
       WHERE entity_type = 'protocol' AND status = 'published' AND is_active AND NOT is_private`
    )
    await db.end()
    const protocolId: string = target.rows[0].id
    const routes = [
      { name: "GET /api/v1/protocols?limit=50", path: "/api/v1/protocols?limit=50" },
      { name: "GET /api/v1/protocols/{id}/scorecards", path: `/api/v1/protocols/${protocolId}/scorecards` }
    ]

    // 2. The servers, each in its own process.
    servers.push(await startServer("baseline (Fastify + pg)", "readBaselineServer.ts", [url]))
    servers.push(await startServer("ours, uncached", "readServer.ts", [url, "off"]))
    servers.push(await startServer("ours (response cache)", "readServer.ts", [url, "on"]))

    // 3. Same JSON from every server before any load.
    for (const route of routes) {
      const expected = await json(servers[0]!.baseUrl + route.path)
      for (const server of servers.slice(1)) {
        const actual = await json(server.baseUrl + route.path)
        if (!isDeepStrictEqual(actual, expected))
          throw new Error(`${server.name} answers ${route.name} unlike the baseline`)
      }
    }

    // 4. Load: each server in turn, warm-up then the measured run.
    const results = new Map<string, Array<Load>>()
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        for (const server of servers) {
          if (WARMUP > 0) await load(server.baseUrl + route.path, WARMUP)
          const measured = await load(server.baseUrl + route.path, DURATION)
          const k = `${route.name}|${server.name}`
          results.set(k, [...(results.get(k) ?? []), measured])
          console.error(
            `  round ${round + 1} ${route.name} ${server.name}: ${Math.round(measured.rps)} req/s, p99 ${measured.p99} ms`
          )
        }
      }
    }

    // 5. Report.
    const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
    console.log(
      `read benchmark: ${fmt(PROTOCOLS)} protocols (${fmt(listed.rows[0].n)} public) in ${fmt(entities)} entities, ` +
        `seed ${SEED}; ${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s warm-up` +
        `${ROUNDS > 1 ? `, median of ${ROUNDS} rounds` : ""}; node ${process.version}`
    )
    for (const route of routes) {
      console.log(`  ${route.name}`)
      const of = (server: Server) => {
        const runs = results.get(`${route.name}|${server.name}`) ?? []
        return {
          rps: median(runs.map((r) => r.rps)),
          p99: median(runs.map((r) => r.p99)),
          failed: runs.reduce((n, r) => n + r.failed, 0)
        }
      }
      const base = of(servers[0]!)
      for (const server of servers) {
        const r = of(server)
        const ratio = server === servers[0] ? "" : `  ${(r.rps / base.rps).toFixed(2)}x baseline`
        const failed = r.failed > 0 ? `  (${r.failed} failed requests)` : ""
        console.log(
          `    ${server.name.padEnd(26)} ${fmt(r.rps).padStart(8)} req/s   p99 ${String(r.p99).padStart(5)} ms${ratio}${failed}`
        )
      }
    }
  } finally {
    await Promise.all(servers.map(stop))
    if (KEEP) console.log(`kept database ${url}`)
  }
}

const main = () =>
  withPostgresServer((serverUrl) =>
    withScratchDatabase(serverUrl, "bench_read", KEEP, (db) => measure(db.url))
  )

if (import.meta.main) runMain(main)
