/**
 * Soak benchmark: minutes of mixed traffic at the server's
 * saturation point, proving zero errors, flat memory and no growth of file
 * descriptors or connections.
 *
 * A fresh database gets the demo dataset (the importer, as `ratings import`
 * runs it) and a Pro and an Enterprise API key (the Postgres key repository,
 * as `ratings keys create` writes them). The real server runs as a child
 * process (bench/soakServer.ts: `ratings serve` with rate limits that count
 * but never refuse), the load generator as another (bench/soakLoad.ts:
 * autocannon), so this process only orchestrates and measures.
 *
 * The traffic mix is built from the database: entity lists of every type with
 * varied parameters, details and scorecard lists by slug and by id, the
 * incident feed with parameters, quantum readiness (league table and per
 * chain), methodology, /health, the Pro routes (domains, history, full
 * scorecard history) and Enterprise routes (questions, rubric, evidence,
 * scorecard by id, compare) with their keys, and a small share of requests
 * whose right answer is a 404, a 422, a 401 or a 403. Each request carries
 * its expected status, checked once before any load; an error is any other
 * status, a socket error or a timeout, and there must be none.
 *
 * Phases: a ramp (RAMP connection counts, RAMP_SECONDS each) finds the
 * saturation point, the smallest concurrency whose throughput is within 5% of
 * the ramp's best; a reference run of the read benchmark's route at that
 * concurrency (so the figures can be held against bench/read.bench.ts); a
 * warm-up at that concurrency; then the soak for DURATION seconds. The
 * server's RSS (VmRSS), open file descriptors and established TCP connections
 * (from /proc/<pid>) and the database's Postgres connections (pg_stat_activity)
 * are read at rest after the warm-up, every SAMPLE_EVERY seconds under load,
 * and at rest after the soak. The run fails (exit code 1) on any error, on
 * descriptor or connection growth beyond a small tolerance, or on RSS growth
 * beyond 20% between the two rests.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:soak
 *   (without DATABASE_URL an embedded Postgres is started)
 *   DURATION=300 RAMP=16,32,64,128 RAMP_SECONDS=10 WARMUP=30 REFERENCE=10 SAMPLE_EVERY=5
 *   CLASS_SECONDS=3 (each route class alone, for its CPU per response; 0: none; CLASSES=a,b: only these)
 *   CONNECTIONS=n (skips the ramp) KEEP=1 (keeps the database)
 *   CPU_PROF=<dir> (the server writes a V8 CPU profile of the whole run there, node --cpu-prof)
 *   SERVER_ARGS="--max-semi-space-size=16" (node options of the server process, for experiments)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
import { join } from "node:path"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { PluralOf, ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import type { ProgressReporter } from "@ratings/server/Progress"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { ServeNodeFlags } from "@ratings/server/ServeNodeFlags"
import { runMain, type ScratchDatabase, withPostgresServer, withScratchDatabase } from "./harness.ts"
import {
  type ClassesPlan,
  type ClassReport,
  cpuOf,
  type LoadPlan,
  type LoadReport,
  type PlannedRequest,
  type RequestTally
} from "./soakLoad.ts"

const ServerScript = join(import.meta.dirname, "soakServer.ts")
const LoadScript = join(import.meta.dirname, "soakLoad.ts")

/** How much the measurements may grow between the rest before and the rest after the soak. */
export const Tolerance = { rssGrowth: 0.2, fds: 5, tcp: 2, postgres: 2 } as const

/** The saturation point: the least concurrency within this fraction of the ramp's best throughput. */
const SaturationShare = 0.95

/** The reference run the mix is held against: the anonymous cached list, the read benchmark's route. */
export const ListReference = "GET /api/v1/protocols?limit=50"

/** The targets of the soak, each a ratio from the same run. */
export const Targets = {
  /** The mix's throughput over the list reference's, at the same concurrency, same server and load generator. */
  mixedOverList: 0.6,
  /** RSS settled after the soak (`SettleSeconds` at rest) over RSS idle (the server started, before any load). */
  rssOverIdle: 1.5
} as const

/**
 * How long after the soak the settled RSS is read: a server quiet for 5 s
 * hands the memory it pooled under load back to the system
 * (packages/adapters-http/src/server/IdleMemory.ts); the RSS at once is
 * printed beside it.
 */
export const SettleSeconds = 8

export interface SoakOptions {
  /** A Postgres server (any database in the URL); the soak creates and drops its own database on it. */
  readonly serverUrl: string
  /** Seconds of the soak. */
  readonly duration: number
  /** Connection counts of the ramp; empty: no ramp, `connections` is used. */
  readonly ramp: ReadonlyArray<number>
  readonly rampSeconds: number
  /** The concurrency of the soak when there is no ramp. */
  readonly connections: number
  readonly warmup: number
  /** Seconds of the reference run (the read benchmark's route); 0: none. */
  readonly reference: number
  /** Seconds each route class is loaded alone, after the reference, for its CPU per response; 0: none. */
  readonly classSeconds: number
  /** The classes loaded alone (classOf names); absent: every class of the plan. */
  readonly onlyClasses?: ReadonlyArray<string> | undefined
  readonly sampleEvery: number
  readonly keep?: boolean | undefined
  /** A directory: the server runs with `--cpu-prof` and writes its profile there when stopped. */
  readonly cpuProfileDir?: string | undefined
  /** Node options of the server process (say `--max-semi-space-size=16`), for experiments. */
  readonly serverArgs?: ReadonlyArray<string> | undefined
  /** Progress lines. */
  readonly log: (line: string) => void
  /** Progress of the import; none when absent. */
  readonly importProgress?: ProgressReporter | undefined
}

/** The server process and its database at one moment. */
export interface Snapshot {
  /** Seconds since the start of the load it was taken in (the soak's, for the rest after it; 0: the rest before). */
  readonly at: number
  readonly rssBytes: number
  /** CPU time the server process has used since it started (user + system). */
  readonly cpuSeconds: number
  readonly fds: number
  /** Established TCP connections of the server process, by peer. */
  readonly tcp: { readonly http: number; readonly postgres: number; readonly other: number }
  /** Backends connected to the soak's database (pg_stat_activity). */
  readonly postgres: number
}

export interface Check {
  readonly name: string
  readonly pass: boolean
  readonly detail: string
}

/** A target: PASS or FAIL, printed beside the run's checks; undefined value: not measured. */
export interface Target {
  readonly name: string
  readonly value: number | undefined
  readonly detail: string
  readonly pass: boolean
}

export interface SoakResult {
  readonly entities: number
  readonly plan: ReadonlyArray<PlannedRequest>
  readonly ramp: ReadonlyArray<LoadReport>
  readonly concurrency: number
  /** `cpuSeconds`: the server's CPU time over the run (user + system), for its cost per response. */
  readonly reference: ReadonlyArray<{
    readonly name: string
    readonly report: LoadReport
    readonly cpuSeconds: number
  }>
  readonly warmup: LoadReport | undefined
  readonly soak: LoadReport
  /** Each route class loaded alone (`classSeconds`), with the server's CPU time over it. */
  readonly classes: ReadonlyArray<ClassReport>
  /** The server's CPU time over the soak (user + system). */
  readonly soakCpuSeconds: number
  /** Per request name, the size of its body when probed (the mean over the plan's requests of that name). */
  readonly bodyBytes: Readonly<Record<string, number>>
  /** The server started and answering /health, before the probe or any load. */
  readonly idle: Snapshot
  readonly start: Snapshot
  readonly end: Snapshot
  /** `SettleSeconds` after `end`, no load since. */
  readonly settled: Snapshot
  /** Under load, every `sampleEvery` seconds: the soak's, and the warm-up's. */
  readonly samples: ReadonlyArray<Snapshot>
  readonly warmupSamples: ReadonlyArray<Snapshot>
  /** Socket errors, timeouts and unexpected statuses over every load of the run (ramp and warm-up too). */
  readonly errors: number
  readonly checks: ReadonlyArray<Check>
  /** The targets: findings, as bench:read prints them; they do not change the verdict or the exit code. */
  readonly targets: ReadonlyArray<Target>
  readonly pass: boolean
}

const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

// ---------------------------------------------------------------- the dataset

interface Listed {
  readonly entity_type: EntityType
  readonly id: string
  readonly slug: string
  readonly categories: ReadonlyArray<string>
  readonly chain_slugs: ReadonlyArray<string>
  readonly rated: boolean
  readonly scorecard_id: string | null
}

interface Keys {
  readonly pro: string
  readonly enterprise: string
}

/** The demo dataset imported and two keys created, in the fresh database at `url`. */
const prepare = async (url: string, serverKey: Redacted.Redacted<string>, progress?: ProgressReporter) => {
  const keys = await run(
    Effect.gen(function* () {
      const outcome = yield* importPath(DemoDataDir, progress)
      if (outcome._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(outcome.issues)))
      const repository = yield* ApiKeyRepository
      const create = (tier: "pro" | "enterprise") =>
        Effect.gen(function* () {
          const { key, record } = issueApiKey({ name: `soak benchmark (${tier})`, tier })
          yield* repository.create(record)
          return key
        })
      return { pro: yield* create("pro"), enterprise: yield* create("enterprise") } satisfies Keys
    }).pipe(Effect.provide(application(serverKey).pipe(Layer.provideMerge(database(url)))), Effect.scoped)
  )
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    await db.query("VACUUM (ANALYZE)")
    const listed = await db.query<Listed>(
      `SELECT e.entity_type, e.id, e.slug, e.categories, e.chain_slugs, s.id IS NOT NULL AS rated,
         s.id AS scorecard_id
       FROM entities e LEFT JOIN scorecards s ON s.entity_id = e.id AND s.status = 'published'
       WHERE e.status = 'published' AND e.is_active AND NOT e.is_private
       ORDER BY e.entity_type, e.slug COLLATE "C"`
    )
    const total = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM entities")
    const incidents = await db.query<{ slug: string }>(
      "SELECT DISTINCT slug FROM incidents WHERE servable AND slug IS NOT NULL ORDER BY slug"
    )
    return {
      keys,
      listed: listed.rows,
      entities: total.rows[0]!.n,
      incidentSlugs: incidents.rows.map((r) => r.slug)
    }
  } finally {
    await db.end()
  }
}

/** Up to `n` items spread over the list (first, last and evenly between). */
const spread = <A>(items: ReadonlyArray<A>, n: number): ReadonlyArray<A> => {
  if (items.length <= n) return items
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!)
}

/** Types whose list takes `search`, `status` and `chain` (spec part 4's table, as Parameters.ts has it). */
const Searchable: ReadonlyArray<EntityType> = ["protocol", "chain", "token", "oracle", "bridge"]
const ChainFiltered: ReadonlyArray<EntityType> = ["protocol", "token", "oracle", "vault", "bridge"]

/**
 * The mix: every request with the status it must answer. The order is
 * interleaved (kinds of request alternate) so that each connection, which
 * loops over the list, keeps a mixed load at every moment.
 */
export const buildPlan = (
  listed: ReadonlyArray<Listed>,
  incidentSlugs: ReadonlyArray<string>,
  keys: Keys
): ReadonlyArray<PlannedRequest> => {
  const api = "/api/v1"
  const pro = { authorization: `Bearer ${keys.pro}` }
  const enterprise = { authorization: `Bearer ${keys.enterprise}` }
  const byType = new Map<EntityType, Array<Listed>>()
  for (const e of listed) byType.set(e.entity_type, [...(byType.get(e.entity_type) ?? []), e])
  const groups: Array<Array<PlannedRequest>> = []
  const ok = (name: string, path: string, headers?: Record<string, string>): PlannedRequest => ({
    name,
    path,
    headers,
    expect: 200
  })

  for (const [type, entities] of byType) {
    const plural = PluralOf[type]
    const group: Array<PlannedRequest> = []
    const first = entities[0]!
    group.push(ok(`list ${plural}`, `${api}/${plural}`))
    group.push(ok(`list ${plural} page`, `${api}/${plural}?limit=5&skip=2`))
    const category = first.categories[0]
    if (category !== undefined)
      group.push(ok(`list ${plural} by category`, `${api}/${plural}?category=${category}&limit=20`))
    if (Searchable.includes(type)) {
      group.push(ok(`list ${plural} search`, `${api}/${plural}?search=${first.slug.slice(0, 3)}`))
      group.push(ok(`list ${plural} by status`, `${api}/${plural}?status=published&limit=100`))
    }
    if (ChainFiltered.includes(type)) {
      const chain = entities.flatMap((e) => e.chain_slugs)[0]
      if (chain !== undefined) group.push(ok(`list ${plural} by chain`, `${api}/${plural}?chain=${chain}`))
    }
    for (const e of spread(entities, 3)) {
      group.push(ok(`detail ${plural} by slug`, `${api}/${plural}/${e.slug}`))
      group.push(ok(`detail ${plural} by id`, `${api}/${plural}/${e.id}`))
      group.push(ok(`scorecards ${plural} by slug`, `${api}/${plural}/${e.slug}/scorecards`))
      group.push(ok(`scorecards ${plural} by id (Pro)`, `${api}/${plural}/${e.id}/scorecards`, pro))
    }
    const rated = entities.filter((e) => e.rated)
    for (const e of spread(rated, 2)) {
      group.push(ok("domains (Pro)", `${api}/${plural}/${e.slug}/domains`, pro))
      group.push(ok("history (Pro)", `${api}/${plural}/${e.slug}/history`, pro))
      group.push(ok("questions (Enterprise)", `${api}/${plural}/${e.slug}/questions`, enterprise))
      group.push(ok("rubric (Enterprise)", `${api}/${plural}/${e.slug}/rubric`, enterprise))
      group.push(ok("evidence (Enterprise)", `${api}/${plural}/${e.slug}/evidence`, enterprise))
      group.push(
        ok(
          "scorecard by id (Enterprise)",
          `${api}/${ScorecardByIdSegment[type]}/${e.scorecard_id}`,
          enterprise
        )
      )
    }
    if (rated.length >= 2) {
      const ids = spread(rated, 3)
        .map((e) => e.slug)
        .join(",")
      group.push(
        ok(
          "compare (Enterprise)",
          `${api}/compare?entity=${plural}&ids=${ids}&fields=slug,grade,composite_score`,
          enterprise
        )
      )
    }
    groups.push(group)
  }

  const chains = spread(byType.get("chain") ?? [], 3)
  groups.push([
    ok("incidents", `${api}/incidents`),
    ok("incidents rumored and up", `${api}/incidents?min_status=rumored`),
    ok("incidents page", `${api}/incidents?min_status=corroborated&limit=2&offset=1`),
    ok("incidents since", `${api}/incidents?since=2026-01-01T00:00:00%2B00:00&min_status=rumored`),
    ...incidentSlugs.slice(0, 2).map((slug) => ok("incidents by slug", `${api}/incidents?slug=${slug}`)),
    ok("quantum readiness", `${api}/quantum-readiness`),
    ...chains.map((c) => ok("chain quantum readiness", `${api}/chains/${c.slug}/quantum-readiness`)),
    ok("chain quantum readiness, unassessed", `${api}/chains/no-such-chain/quantum-readiness`),
    ok("methodology", `${api}/methodology`),
    ok("methodology (Pro)", `${api}/methodology`, pro),
    ok("health", "/health")
  ])

  const refused: Array<PlannedRequest> = [
    { name: "404 unknown protocol", path: `${api}/protocols/no-such-protocol`, expect: 404 },
    { name: "404 unknown chain scorecards", path: `${api}/chains/no-such-chain/scorecards`, expect: 404 },
    {
      name: "404 unknown token domains (Pro)",
      path: `${api}/tokens/no-such-token/domains`,
      headers: pro,
      expect: 404
    },
    { name: "404 unknown route", path: `${api}/no-such-route`, expect: 404 },
    { name: "422 limit 0", path: `${api}/protocols?limit=0`, expect: 422 },
    { name: "422 limit not a number", path: `${api}/tokens?limit=many`, expect: 422 },
    { name: "422 negative skip", path: `${api}/bridges?skip=-1`, expect: 422 },
    { name: "422 unknown min_status", path: `${api}/incidents?min_status=imagined`, expect: 422 },
    {
      name: "401 domains without a key",
      path: `${api}/protocols/${byType.get("protocol")![0]!.slug}/domains`,
      expect: 401
    },
    {
      name: "403 questions with a Pro key",
      path: `${api}/protocols/${byType.get("protocol")![0]!.slug}/questions`,
      headers: pro,
      expect: 403
    }
  ]
  groups.push(refused)

  // Round-robin over the groups, so kinds alternate along the list.
  const plan: Array<PlannedRequest> = []
  const longest = Math.max(...groups.map((g) => g.length))
  for (let i = 0; i < longest; i++) for (const g of groups) if (i < g.length) plan.push(g[i]!)
  return plan
}

// ------------------------------------------------------------------ the server

interface Server {
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
}

const startServer = async (
  url: string,
  serverKey: Redacted.Redacted<string>,
  options: Pick<SoakOptions, "cpuProfileDir" | "serverArgs">
): Promise<Server> => {
  const port = await run(freePort)
  const dir = options.cpuProfileDir
  const profile = dir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${dir}`]
  const child = spawn(
    process.execPath,
    [...profile, ...ServeNodeFlags, ...(options.serverArgs ?? []), ServerScript],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: url,
        RATINGS_SECRET_KEY: Redacted.value(serverKey),
        NODE_ENV: "production"
      }
    }
  )
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    const up = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false
    )
    if (up) return { child, pid: child.pid!, port, baseUrl }
    await sleep(200)
  }
  child.kill("SIGKILL")
  throw new Error("the server did not answer within 60 s")
}

const stopServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve()
    const kill = setTimeout(() => server.child.kill("SIGKILL"), 10_000)
    server.child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    server.child.kill("SIGTERM")
  })

/** Each request once, before any load: its status must be the one the plan expects. */
const probe = async (
  baseUrl: string,
  plan: ReadonlyArray<PlannedRequest>
): Promise<Readonly<Record<string, number>>> => {
  const wrong: Array<string> = []
  const sizes = new Map<string, Array<number>>()
  for (const r of plan) {
    const response = await fetch(baseUrl + r.path, {
      headers: { accept: "application/json", ...r.headers },
      signal: AbortSignal.timeout(10_000)
    })
    const body = await response.arrayBuffer()
    sizes.set(r.name, [...(sizes.get(r.name) ?? []), body.byteLength])
    if (response.status !== r.expect)
      wrong.push(`${r.name} (${r.path}): ${response.status}, expected ${r.expect}`)
  }
  if (wrong.length > 0) throw new Error(`the mix does not answer as planned:\n  ${wrong.join("\n  ")}`)
  return Object.fromEntries([...sizes].map(([name, n]) => [name, n.reduce((a, b) => a + b, 0) / n.length]))
}

// -------------------------------------------------------------------- the load

const load = <A = LoadReport>(plan: LoadPlan | ClassesPlan): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LoadScript], { stdio: ["pipe", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(`exit code ${code}`)
        resolve(JSON.parse(out) as A)
      } catch (e) {
        reject(new Error(`the load generator failed: ${String(e)}\n${out}`))
      }
    })
    child.stdin.end(JSON.stringify(plan))
  })

const errorsOf = (r: LoadReport): number => r.errors + r.unexpected

// ---------------------------------------------------------------- measurements

const rssOf = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  if (line === undefined) throw new Error(`no VmRSS for process ${pid}`)
  return Number(line.split(/\s+/)[1]) * 1024
}

/** The process's socket inodes, from its descriptors' links (`socket:[inode]`). */
const descriptorsOf = (pid: number): { readonly fds: number; readonly sockets: ReadonlySet<string> } => {
  const entries = readdirSync(`/proc/${pid}/fd`)
  const sockets = new Set<string>()
  for (const fd of entries) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1]
      if (inode !== undefined) sockets.add(inode)
    } catch {
      // closed between the listing and the read
    }
  }
  return { fds: entries.length, sockets }
}

/** Established TCP connections among the sockets, by peer: HTTP clients on `httpPort`, Postgres on `pgPort`. */
const tcpOf = (pid: number, sockets: ReadonlySet<string>, httpPort: number, pgPort: number) => {
  const tcp = { http: 0, postgres: 0, other: 0 }
  for (const table of ["tcp", "tcp6"]) {
    let text: string
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10 || f[3] !== "01" || !sockets.has(f[9]!)) continue
      const localPort = Number.parseInt(f[1]!.split(":")[1]!, 16)
      const remotePort = Number.parseInt(f[2]!.split(":")[1]!, 16)
      if (localPort === httpPort) tcp.http++
      else if (remotePort === pgPort) tcp.postgres++
      else tcp.other++
    }
  }
  return tcp
}

const snapshot = async (
  server: Server,
  admin: pg.Client,
  dbName: string,
  pgPort: number,
  at: number
): Promise<Snapshot> => {
  const { fds, sockets } = descriptorsOf(server.pid)
  const rssBytes = rssOf(server.pid)
  const cpuSeconds = cpuOf(server.pid)
  const tcp = tcpOf(server.pid, sockets, server.port, pgPort)
  const backends = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
    [dbName]
  )
  return { at, rssBytes, cpuSeconds, fds, tcp, postgres: backends.rows[0]!.n }
}

/** At rest: once the load generator's connections are gone from the server (at most 15 s). */
const atRest = async (
  server: Server,
  admin: pg.Client,
  dbName: string,
  pgPort: number,
  at: number
): Promise<Snapshot> => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const { sockets } = descriptorsOf(server.pid)
    if (tcpOf(server.pid, sockets, server.port, pgPort).http === 0 || Date.now() > deadline) break
    await sleep(200)
  }
  return snapshot(server, admin, dbName, pgPort, at)
}

const tcpTotal = (s: Snapshot) => s.tcp.http + s.tcp.postgres + s.tcp.other

/** Descriptors other than the Postgres pool's sockets, whose number the pool varies with demand. */
const ownFds = (s: Snapshot) => s.fds - s.tcp.postgres

/**
 * The verdict. Memory, descriptors and HTTP connections are compared at rest,
 * before and after the soak. Postgres connections come from a pool that opens
 * them on demand (up to its bound) and closes them as demand falls, so their
 * number at rest depends on the last minute's load: they are held instead
 * against the most the warm-up, at the same concurrency, needed. A leak shows
 * as more than that, under load or at rest.
 */
export const checksOf = (measured: {
  readonly errors: number
  readonly start: Snapshot
  readonly end: Snapshot
  readonly warmup: ReadonlyArray<Snapshot>
  readonly soak: ReadonlyArray<Snapshot>
}): ReadonlyArray<Check> => {
  const { errors, start, end } = measured
  const growth = end.rssBytes / start.rssBytes - 1
  const needed = Math.max(start.postgres, ...measured.warmup.map((s) => s.postgres))
  const used = Math.max(end.postgres, ...measured.soak.map((s) => s.postgres))
  const outside = (s: Snapshot) => s.tcp.http + s.tcp.other
  return [
    {
      name: "errors",
      pass: errors === 0,
      detail: `${errors} (socket errors, timeouts and unexpected statuses over every load)`
    },
    {
      name: "RSS",
      pass: growth <= Tolerance.rssGrowth,
      detail: `${(growth * 100).toFixed(1)}% at rest after the soak (tolerance ${Tolerance.rssGrowth * 100}%)`
    },
    {
      name: "file descriptors",
      pass: ownFds(end) - ownFds(start) <= Tolerance.fds,
      detail: `${ownFds(start)} -> ${ownFds(end)} at rest, Postgres sockets aside (tolerance +${Tolerance.fds})`
    },
    {
      name: "TCP connections",
      pass: outside(end) - outside(start) <= Tolerance.tcp,
      detail: `${outside(start)} -> ${outside(end)} at rest, Postgres aside (tolerance +${Tolerance.tcp})`
    },
    {
      name: "Postgres connections",
      pass: used - needed <= Tolerance.postgres,
      detail:
        `at most ${used} during and after the soak; the warm-up needed ${needed} ` +
        `(tolerance +${Tolerance.postgres})`
    }
  ]
}

/**
 * The targets, from one run: the mix saturates at no less than 60 % of
 * the anonymous cached list (measured at the same concurrency on the same
 * server with the same load generator), with 0 errors; RSS at rest after the
 * soak at most 1.5x the idle server's.
 */
/** A load and the server's CPU time over it. */
export interface Measured {
  readonly report: LoadReport
  readonly cpuSeconds: number
}

/** The server's CPU time per response, in µs. */
export const cpuPerResponse = (m: Measured): number => (1e6 * m.cpuSeconds) / Math.max(1, m.report.requests)

/**
 * The mix against the list. Throughput on a shared machine follows what the
 * other work leaves the server, so beside the ratio of throughputs (the
 * target) the server's CPU per response of each is printed: its ratio is what
 * the mix would reach on CPU alone, and moves little with the machine's load.
 */
const mixedOverList = (mixed: Measured, list: Measured | undefined): Target => {
  const ratio = list === undefined || list.report.rps === 0 ? undefined : mixed.report.rps / list.report.rps
  if (list === undefined || ratio === undefined)
    return {
      name: "mixed / list",
      value: undefined,
      detail: "not measured (no reference run: REFERENCE=0)",
      pass: false
    }
  const [cpuMixed, cpuList] = [cpuPerResponse(mixed), cpuPerResponse(list)]
  return {
    name: "mixed / list",
    value: ratio,
    detail:
      `${(ratio * 100).toFixed(0)} % (mixed ${fmt(mixed.report.rps)} req/s over the anonymous list's ` +
      `${fmt(list.report.rps)} req/s; at least ${Targets.mixedOverList * 100} %); server CPU per response: ` +
      `mixed ${fmt(cpuMixed)} µs, list ${fmt(cpuList)} µs (${((100 * cpuList) / Math.max(1, cpuMixed)).toFixed(0)} % ` +
      "on CPU alone)",
    pass: ratio >= Targets.mixedOverList
  }
}

export const targetsOf = (measured: {
  readonly errors: number
  readonly mixed: Measured
  readonly list: Measured | undefined
  readonly idle: Snapshot
  readonly end: Snapshot
  readonly settled: Snapshot
}): ReadonlyArray<Target> => {
  const { idle, end, settled } = measured
  const rss = settled.rssBytes / idle.rssBytes
  return [
    mixedOverList(measured.mixed, measured.list),
    {
      name: "errors",
      value: measured.errors,
      detail: `${measured.errors} over every load of the run (exactly 0)`,
      pass: measured.errors === 0
    },
    {
      name: "RSS after the soak / idle",
      value: rss,
      detail:
        `${rss.toFixed(2)}x (${mib(settled.rssBytes)} ${SettleSeconds} s after the soak over ${mib(idle.rssBytes)} ` +
        `idle; ${mib(end.rssBytes)} at once; at most ${Targets.rssOverIdle}x)`,
      pass: rss <= Targets.rssOverIdle
    }
  ]
}

// ------------------------------------------------------------------- the soak

export const soak = (options: SoakOptions): Promise<SoakResult> =>
  withScratchDatabase(options.serverUrl, "bench_soak", options.keep ?? false, (db) => soakOn(db, options))

const soakOn = async (
  { name: dbName, url, admin }: ScratchDatabase,
  options: SoakOptions
): Promise<SoakResult> => {
  const { log } = options
  const pgPort = Number(new URL(options.serverUrl).port || 5432)
  let server: Server | undefined
  try {
    const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
    log("importing the demo dataset and creating a Pro and an Enterprise key")
    const data = await prepare(url, serverKey, options.importProgress)
    const plan = buildPlan(data.listed, data.incidentSlugs, data.keys)
    server = await startServer(url, serverKey, options)
    const idle = await snapshot(server, admin, dbName, pgPort, 0)
    const bodyBytes = await probe(server.baseUrl, plan)
    const mix = (connections: number, seconds: number): LoadPlan => ({
      url: server!.baseUrl,
      connections,
      seconds,
      requests: plan
    })
    let errors = 0

    // 1. Ramp: where throughput stops growing.
    const ramp: Array<LoadReport> = []
    for (const connections of options.ramp) {
      const r = await load(mix(connections, options.rampSeconds))
      errors += errorsOf(r)
      ramp.push(r)
      log(`  ramp ${connections} connections: ${Math.round(r.rps)} req/s, p99 ${r.latency.p99} ms`)
    }
    const best = Math.max(0, ...ramp.map((r) => r.rps))
    const concurrency =
      ramp.length === 0 ? options.connections : ramp.find((r) => r.rps >= SaturationShare * best)!.connections

    // 2. The read benchmark's routes at that concurrency, for reference.
    const reference: Array<{ name: string; report: LoadReport; cpuSeconds: number }> = []
    if (options.reference > 0) {
      const protocol = data.listed.find((e) => e.entity_type === "protocol" && e.rated)!
      for (const [name, path] of [
        [ListReference, "/api/v1/protocols?limit=50"],
        ["GET /api/v1/protocols/{id}/scorecards", `/api/v1/protocols/${protocol.id}/scorecards`]
      ] as const) {
        const cpuBefore = cpuOf(server.pid)
        const report = await load({
          url: server.baseUrl,
          connections: concurrency,
          seconds: options.reference,
          requests: [{ name, path, expect: 200 }]
        })
        errors += errorsOf(report)
        reference.push({ name, report, cpuSeconds: cpuOf(server.pid) - cpuBefore })
        log(`  reference ${name}: ${Math.round(report.rps)} req/s, p99 ${report.latency.p99} ms`)
      }
    }

    // 2b. Each route class alone: its cost per response, which the mix's latencies (queueing shared by all) hide.
    const classes =
      options.classSeconds > 0
        ? await load<ReadonlyArray<ClassReport>>({
            url: server.baseUrl,
            connections: concurrency,
            seconds: options.classSeconds,
            serverPid: server.pid,
            classes: classPlan(plan).filter((c) => options.onlyClasses?.includes(c.name) ?? true)
          })
        : []
    for (const c of classes) errors += errorsOf(c.report)

    // 3. Warm-up at the soak's concurrency (sampled: it shows what that concurrency needs), then the state at rest.
    const sampledLoad = async (seconds: number) => {
      const began = Date.now()
      const cpuBefore = cpuOf(server!.pid)
      const samples: Array<Snapshot> = []
      let loading = true
      const running = load(mix(concurrency, seconds)).finally(() => {
        loading = false
      })
      const sampler = (async () => {
        for (let i = 0; loading; i++) {
          const due = began + i * options.sampleEvery * 1000
          while (loading && Date.now() < due) await sleep(Math.min(200, due - Date.now()))
          if (!loading) break
          samples.push(await snapshot(server!, admin, dbName, pgPort, (Date.now() - began) / 1000))
        }
      })()
      const report = await running
      const cpuSeconds = cpuOf(server!.pid) - cpuBefore
      await sampler
      errors += errorsOf(report)
      return { report, samples, began, cpuSeconds }
    }
    const warmup = options.warmup > 0 ? await sampledLoad(options.warmup) : undefined
    const start = await atRest(server, admin, dbName, pgPort, 0)

    // 4. The soak, sampled every `sampleEvery` seconds.
    log(`  soak: ${options.duration} s at ${concurrency} connections`)
    const {
      report: soakReport,
      samples,
      began,
      cpuSeconds: soakCpuSeconds
    } = await sampledLoad(options.duration)
    const end = await atRest(server, admin, dbName, pgPort, (Date.now() - began) / 1000)
    await sleep(SettleSeconds * 1000)
    const settled = await snapshot(server, admin, dbName, pgPort, (Date.now() - began) / 1000)

    const checks = checksOf({ errors, start, end, warmup: warmup?.samples ?? [], soak: samples })
    const list = reference.find((x) => x.name === ListReference)
    const targets = targetsOf({
      errors,
      mixed: { report: soakReport, cpuSeconds: soakCpuSeconds },
      list,
      idle,
      end,
      settled
    })
    return {
      entities: data.entities,
      plan,
      ramp,
      concurrency,
      reference,
      classes,
      warmup: warmup?.report,
      soak: soakReport,
      soakCpuSeconds,
      bodyBytes,
      idle,
      start,
      end,
      settled,
      samples,
      warmupSamples: warmup?.samples ?? [],
      errors,
      checks,
      targets,
      pass: checks.every((c) => c.pass)
    }
  } finally {
    if (server !== undefined) await stopServer(server)
    if (options.keep) log(`kept database ${url}`)
  }
}

// -------------------------------------------------------------------- the report

export const formatResult = (r: SoakResult): string => {
  const lines: Array<string> = []
  const byStatus = new Map<number, number>()
  for (const p of r.plan) byStatus.set(p.expect, (byStatus.get(p.expect) ?? 0) + 1)
  const statusMix = [...byStatus]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${n} x ${s}`)
    .join(", ")
  const keyed = r.plan.filter((p) => p.headers !== undefined).length
  lines.push(
    `soak benchmark: demo dataset (${r.entities} entities); a mix of ${r.plan.length} requests ` +
      `(${statusMix}; ${keyed} with a Pro or Enterprise key); node ${process.version}, ` +
      `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`
  )
  const row = (label: string, l: LoadReport) =>
    `    ${label.padEnd(40)} ${fmt(l.rps).padStart(7)} req/s   p50 ${String(l.latency.p50).padStart(4)} ms   ` +
    `p99 ${String(l.latency.p99).padStart(4)} ms   errors ${errorsOf(l)}`
  if (r.ramp.length > 0) {
    lines.push(`  ramp (mixed traffic, ${r.ramp[0]!.seconds.toFixed(0)} s per step)`)
    for (const l of r.ramp) lines.push(row(`${l.connections} connections`, l))
    lines.push(
      `    saturation point: ${r.concurrency} connections (least within ${(100 - SaturationShare * 100).toFixed(0)}% ` +
        "of the ramp's best throughput)"
    )
  }
  if (r.reference.length > 0) {
    lines.push(`  reference (read benchmark's routes, anonymous, ${r.concurrency} connections, demo dataset)`)
    for (const { name, report } of r.reference) lines.push(row(name, report))
  }
  const s = r.soak
  lines.push(`  soak: ${s.seconds.toFixed(0)} s of mixed traffic at ${r.concurrency} connections`)
  lines.push(
    `    requests ${fmt(s.requests)}, ${fmt(s.rps)} req/s, latency p50 ${s.latency.p50} ms, ` +
      `p90 ${s.latency.p90} ms, p99 ${s.latency.p99} ms, max ${s.latency.max} ms`
  )
  lines.push(
    `    errors ${errorsOf(s)} (socket errors ${s.errors - s.timeouts}, timeouts ${s.timeouts}, ` +
      `unexpected statuses ${s.unexpected}); statuses ${Object.entries(s.statuses)
        .map(([code, n]) => `${code}: ${fmt(n)}`)
        .join(", ")}`
  )
  for (const [name, t] of Object.entries(s.byRequest)) {
    const wrong = Object.entries(t.unexpected)
    if (wrong.length > 0) lines.push(`      ${name}: ${wrong.map(([c, n]) => `${n} x ${c}`).join(", ")}`)
  }
  // Throughput and memory over the soak in ten windows (a last partial one dropped): a drift shows as a trend.
  const seconds = s.perSecond.slice(0, Math.max(1, Math.floor(s.seconds)))
  const width = Math.max(1, Math.round(seconds.length / 10))
  const rates: Array<string> = []
  const rss: Array<string> = []
  for (let from = 0; from + width <= seconds.length; from += width) {
    const window = seconds.slice(from, from + width)
    rates.push(fmt(window.reduce((n, c) => n + c, 0) / window.length))
    const sample = r.samples.filter((x) => x.at <= from + width).at(-1)
    rss.push(sample === undefined ? "-" : (sample.rssBytes / 2 ** 20).toFixed(0))
  }
  const first = r.samples[0]
  const last = r.samples.at(-1)
  if (first !== undefined && last !== undefined && last.at > first.at)
    lines.push(
      `    server CPU under load: ${(((last.cpuSeconds - first.cpuSeconds) / (last.at - first.at)) * 100).toFixed(0)}% ` +
        "of one core"
    )
  lines.push(`    by ${width} s: req/s ${rates.join(" ")}; RSS MiB ${rss.join(" ")}`)
  const maxOf = (f: (x: Snapshot) => number) => Math.max(...r.samples.map(f))
  lines.push(
    `    server RSS: ${mib(r.idle.rssBytes)} idle (started, before any load), ${mib(r.start.rssBytes)} at rest ` +
      `after warm-up, ${mib(r.end.rssBytes)} at rest after the soak, ${mib(r.settled.rssBytes)} ${SettleSeconds} s ` +
      "later, " +
      `max ${mib(maxOf((x) => x.rssBytes))} under load (${r.samples.length} samples)`
  )
  lines.push(
    `    open file descriptors: ${r.start.fds} -> ${r.end.fds} (max ${maxOf((x) => x.fds)} under load)`
  )
  lines.push(
    `    established TCP: ${tcpTotal(r.start)} -> ${tcpTotal(r.end)} at rest (Postgres ${r.start.tcp.postgres} -> ` +
      `${r.end.tcp.postgres}, HTTP ${r.start.tcp.http} -> ${r.end.tcp.http}, other ${r.start.tcp.other} -> ` +
      `${r.end.tcp.other}); max ${maxOf(tcpTotal)} under load (HTTP ${maxOf((x) => x.tcp.http)})`
  )
  lines.push(
    `    Postgres connections to the database: ${r.start.postgres} -> ${r.end.postgres} at rest ` +
      `(max ${maxOf((x) => x.postgres)} under load; the warm-up's max ` +
      `${Math.max(r.start.postgres, ...r.warmupSamples.map((x) => x.postgres))})`
  )
  lines.push(...classLines(s, r.bodyBytes))
  lines.push(...aloneLines(r))
  for (const c of r.checks) lines.push(`  ${c.pass ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`)
  lines.push("targets, from this run:")
  for (const t of r.targets) lines.push(`  ${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.detail}`)
  lines.push(`${r.targets.filter((t) => t.pass).length} of ${r.targets.length} targets pass`)
  lines.push(`verdict: ${r.pass ? "PASS" : "FAIL"}`)
  return lines.join("\n")
}

/** A route class: a request name with its entity type left out ("detail protocols by slug": "detail {type} by slug"). */
export const classOf = (name: string): string =>
  name.replace(/\b(protocols|chains|tokens|oracles|vaults|organisations|bridges)\b/, "{type}")

export interface ClassFigure {
  readonly name: string
  readonly responses: number
  /** Mean latency in ms over the class's timed responses. */
  readonly meanMs: number
  /** The worst p99 of the class's requests. */
  readonly p99: number
  /** The class's share of the time connections spent waiting (0 to 1): what it costs the mix's throughput. */
  readonly timeShare: number
  /** Mean body size in bytes, over its responses (from the sizes probed before the load; 0 when unknown). */
  readonly bytes: number
}

/**
 * Per route class, its share of the time the mix's connections wait. Each
 * connection loops over the plan with one request in flight, so the mix's
 * throughput is connections over the mean latency, and a class holding 40 % of
 * the waiting holds 40 % of what limits it. Most expensive first.
 */
export const classesOf = (
  byRequest: Readonly<Record<string, RequestTally>>,
  bodyBytes: Readonly<Record<string, number>> = {}
): ReadonlyArray<ClassFigure> => {
  const classes = new Map<
    string,
    { responses: number; timed: number; totalMs: number; p99: number; bytes: number }
  >()
  for (const [name, t] of Object.entries(byRequest)) {
    const c = classes.get(classOf(name)) ?? { responses: 0, timed: 0, totalMs: 0, p99: 0, bytes: 0 }
    c.responses += t.responses
    c.bytes += t.responses * (bodyBytes[name] ?? 0)
    c.timed += t.latency.timed
    c.totalMs += t.latency.totalMs
    c.p99 = Math.max(c.p99, t.latency.p99)
    classes.set(classOf(name), c)
  }
  const total = [...classes.values()].reduce((n, c) => n + c.totalMs, 0)
  return [...classes]
    .map(([name, c]) => ({
      name,
      responses: c.responses,
      meanMs: c.timed === 0 ? 0 : c.totalMs / c.timed,
      p99: c.p99,
      timeShare: total === 0 ? 0 : c.totalMs / total,
      bytes: c.responses === 0 ? 0 : c.bytes / c.responses
    }))
    .sort((a, b) => b.timeShare - a.timeShare)
}

/** The plan's requests by route class, in the plan's order. */
export const classPlan = (plan: ReadonlyArray<PlannedRequest>): ClassesPlan["classes"] => {
  const byClass = new Map<string, Array<PlannedRequest>>()
  for (const r of plan) byClass.set(classOf(r.name), [...(byClass.get(classOf(r.name)) ?? []), r])
  return [...byClass].map(([name, requests]) => ({ name, requests }))
}

/**
 * Each class alone, costliest first: throughput and the server's CPU per
 * response, against the list reference's CPU per response (the mix's cost
 * is the classes' costs weighted by their share of the plan).
 */
const aloneLines = (r: SoakResult): ReadonlyArray<string> => {
  if (r.classes.length === 0) return []
  const list = r.reference.find((x) => x.name === ListReference)
  const listCpu = list === undefined ? undefined : cpuPerResponse(list)
  const share = new Map(classPlan(r.plan).map((c) => [c.name, c.requests.length / r.plan.length]))
  const rows = [...r.classes].sort((a, b) => cpuPerResponse(b) - cpuPerResponse(a))
  return [
    `  route classes alone (${r.classes[0]!.report.seconds.toFixed(0)} s each at ${r.concurrency} connections), ` +
      "by the server's CPU per response" +
      (listCpu === undefined ? "" : ` (the list reference: ${fmt(listCpu)} µs)`),
    `    ${"class".padEnd(40)} ${"of plan".padStart(7)}   ${"req/s".padStart(7)}   CPU/response  x list  errors`,
    ...rows.map((c) => {
      const cpu = cpuPerResponse(c)
      return (
        `    ${c.name.padEnd(40)} ${`${(100 * (share.get(c.name) ?? 0)).toFixed(1)}%`.padStart(7)}   ` +
        `${fmt(c.report.rps).padStart(7)}   ${`${fmt(cpu)} µs`.padStart(12)}  ` +
        `${(listCpu === undefined ? "-" : (cpu / Math.max(1, listCpu)).toFixed(2)).padStart(6)}  ${errorsOf(c.report)}`
      )
    })
  ]
}

const classLines = (soak: LoadReport, bodyBytes: Readonly<Record<string, number>>): ReadonlyArray<string> => {
  const classes = classesOf(soak.byRequest, bodyBytes)
  const responses = classes.reduce((n, c) => n + c.responses, 0)
  return [
    "  route classes of the soak, by share of the connections' waiting (queueing in the server included):",
    `    ${"class".padEnd(40)} ${"requests".padStart(8)} ${"time".padStart(6)}   mean      p99      body`,
    ...classes.map(
      (c) =>
        `    ${c.name.padEnd(40)} ${`${((100 * c.responses) / Math.max(1, responses)).toFixed(1)}%`.padStart(8)} ` +
        `${`${(100 * c.timeShare).toFixed(1)}%`.padStart(6)}   ${c.meanMs.toFixed(1).padStart(5)} ms ` +
        `${c.p99.toFixed(0).padStart(5)} ms ${fmt(c.bytes).padStart(7)} B`
    )
  ]
}

const main = () =>
  withPostgresServer(async (serverUrl) => {
    const list = (text: string) =>
      text
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
        .map(Number)
    const fixed = process.env.CONNECTIONS
    const result = await soak({
      serverUrl,
      duration: Number(process.env.DURATION ?? 300),
      ramp: fixed === undefined ? list(process.env.RAMP ?? "16,32,64,128") : [],
      rampSeconds: Number(process.env.RAMP_SECONDS ?? 10),
      connections: Number(fixed ?? 64),
      warmup: Number(process.env.WARMUP ?? 30),
      reference: Number(process.env.REFERENCE ?? 10),
      classSeconds: Number(process.env.CLASS_SECONDS ?? 3),
      onlyClasses: process.env.CLASSES?.split(",").map((c) => c.trim()),
      sampleEvery: Number(process.env.SAMPLE_EVERY ?? 5),
      keep: process.env.KEEP === "1",
      cpuProfileDir: process.env.CPU_PROF,
      serverArgs: process.env.SERVER_ARGS?.split(" ").filter((a) => a !== ""),
      log: (line) => console.error(line),
      importProgress: terminalProgress("import")
    })
    console.log(formatResult(result))
    if (!result.pass) process.exitCode = 1
  })

if (import.meta.main) runMain(main)
