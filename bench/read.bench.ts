/**
 * Read benchmark: every read route a caller can reach, as every
 * caller kind, against the scale dataset (PROTOCOLS protocols, from
 * @ratings/demo-data's writeDataset, plus the demo's incident reports and
 * quantum sample so that those routes serve data) imported into a fresh
 * database, with 100 API keys of each tier (Free, Pro, Enterprise) created
 * through the key repository with the service's key hashing.
 *
 * Five servers, each a child process of this one, which only orchestrates:
 * - ours, with the response cache, as `ratings serve` runs it
 *   (bench/readServer.ts on), and ours without it (off), every caller kind's
 *   rate limit raised so the limiter counts every request but refuses none,
 *   both with Prometheus metrics off;
 * - ours with the cache and its metrics on (RATINGS_METRICS=true), started
 *   when an anonymous row is loaded: what metrics cost;
 * - the baseline, Fastify + pg with the same SQL per route, JSON.stringify,
 *   no schema (bench/readBaselineServer.ts);
 * - the ceiling, node:http writing a pre-serialised body of the size of the
 *   route's response (bench/ceilingServer.ts): the load generator's own
 *   figure, the most it can drive on this machine, so the reader sees it is
 *   not the bottleneck.
 *
 * The load generator is `wrk` (Debian: `apt-get install wrk`) driven by
 * bench/readLoad.lua, which rotates every connection over the row's request
 * list (up to 2,000 slugs, ids, skip values, filters and search terms, and the
 * tier's 100 keys); without wrk (or with LOADGEN=autocannon), two autocannon
 * workers (bench/soakLoad.ts) share the connections.
 *
 * Per route and caller (a row): before any load, sample requests of the row
 * from each server must answer 200, ours with and without the cache (and
 * with metrics on) the same JSON, and the baseline either the same JSON
 * (rows checked "equal") or a body within 10 % of ours in size (rows checked
 * "same size", printed as such). Then each server in turn: WARMUP seconds, then DURATION seconds
 * measured; the cached server is first primed (each distinct request of the
 * row sent once, see `prime`), so that its cell is the cache's steady state.
 * A keyed row on a route anonymous callers read is measured on ours (cache)
 * in PAIRS rounds, its keyed requests and the route's anonymous ones in turn,
 * the order flipped each round (keyed first, then anonymous first, ...): the
 * keyed / anonymous target is the ratio of the two means, both taken over the
 * same minutes of this shared machine. An anonymous row is measured the same
 * way on ours (cache) with metrics off and on: the metrics on / off target
 * (the requirement's is the list's). A route the spec refuses to a caller
 * (401 without a key, 403 below its tier) is not loaded: the row is listed as
 * skipped, with the reason.
 *
 * Prints a Markdown table (req/s, p99, errors per server, and the ratios), the
 * targets as ratios from this run with PASS or FAIL, and the total
 * time. A FAIL is a finding, not a broken run: the exit code is 0. A broken run
 * exits 1: a request that errors or answers other than 2xx under load, a
 * sample that does not answer 200, bodies unlike the baseline's, or a metered
 * server whose request counter missed the requests it answered.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:read
 *   (without DATABASE_URL an embedded Postgres is started)
 *   PROTOCOLS=10000 SEED=1 DURATION=5 WARMUP=2 CONNECTIONS=64 PAIRS=4 KEEP=1 (keeps the database)
 *   ROUTES=list,detail-slug (a subset; names below) CALLERS=anonymous,pro LOADGEN=wrk|autocannon
 *   EXPLORER=0 (without the explorer pages' rows, bench/readExplorer.ts)
 *   LOAD=list,questions (load only these routes; the other routes' bodies are still checked:
 *   what the smoke test in npm test runs)
 *   BEFORE=<checkout of an earlier commit> (its cached server beside ours, each row in turn: readBefore.ts)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isDeepStrictEqual } from "node:util"
import { NodeServices } from "@effect/platform-node"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir, typeCounts, writeDataset } from "@ratings/demo-data"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { application, database } from "@ratings/server/Layers"
import { ServeNodeFlags } from "@ratings/server/ServeNodeFlags"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import {
  loadgenOption,
  machineLine,
  postgresVersion,
  reportMain,
  wholeOption,
  withScratchDatabase
} from "./harness.ts"
import { type BeforeAfter, beforeAfterOf, beforeScript, beforeTable, beforeTargets } from "./readBefore.ts"
import { type ExplorerRow, explorerRows, explorerTable, explorerTargets } from "./readExplorer.ts"
import type { LoadReport } from "./soakLoad.ts"

const root = join(import.meta.dirname, "..")
const LuaScript = join(import.meta.dirname, "readLoad.lua")
const LoadScript = join(import.meta.dirname, "soakLoad.ts")

/** Keys per tier, rotating in every keyed row. */
export const KeysPerTier = 100
/** Most distinct requests in a row's rotation. */
const Rotation = 2000
/** How far a "same size" body may be from ours. */
const SizeTolerance = 0.1

export const CallerNames = ["anonymous", "free", "pro", "enterprise"] as const
export type CallerName = (typeof CallerNames)[number]

const TierRank: Record<CallerName, number> = { anonymous: 0, free: 1, pro: 2, enterprise: 3 }

/** What a row's rotation is built from: the public, rated protocols (up to 2,000) and the public chains. */
interface Dataset {
  readonly protocols: ReadonlyArray<{
    readonly id: string
    readonly slug: string
    readonly category: string | undefined
    readonly chain: string | undefined
    readonly scorecard_id: string
  }>
  readonly listed: number
  readonly chains: ReadonlyArray<string>
}

interface Route {
  readonly name: string
  /** The least caller kind the spec serves (below it: 401 / 403, not loaded). */
  readonly tier: CallerName
  /** How the baseline's body is held against ours. */
  readonly check: "equal" | "same size"
  /** The target of ours (cache on) over the baseline. */
  readonly target: number
  readonly paths: (d: Dataset) => ReadonlyArray<string>
}

const api = "/api/v1"

/** Up to `n` items spread over the list (first, last and evenly between). */
const spread = <A>(items: ReadonlyArray<A>, n: number): ReadonlyArray<A> => {
  if (items.length <= n) return items
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!)
}

const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)]

export const Routes: ReadonlyArray<Route> = [
  { name: "list", tier: "anonymous", check: "equal", target: 5, paths: () => [`${api}/protocols?limit=50`] },
  {
    name: "list-filter",
    tier: "anonymous",
    check: "equal",
    target: 5,
    paths: (d) =>
      unique(
        d.protocols
          .filter((p) => p.category !== undefined && p.chain !== undefined)
          .map((p) => `${api}/protocols?category=${p.category}&chain=${p.chain}&limit=50`)
      )
  },
  {
    name: "list-search",
    tier: "anonymous",
    check: "equal",
    target: 5,
    paths: (d) => unique(d.protocols.map((p) => `${api}/protocols?search=${p.slug.slice(0, 6)}&limit=50`))
  },
  {
    name: "list-skip",
    tier: "anonymous",
    check: "equal",
    target: 5,
    paths: (d) => {
      const step = Math.max(1, Math.floor(d.listed / Rotation))
      return Array.from(
        { length: Math.ceil(d.listed / step) },
        (_, i) => `${api}/protocols?limit=50&skip=${i * step}`
      )
    }
  },
  {
    name: "detail-slug",
    tier: "anonymous",
    check: "equal",
    target: 3,
    paths: (d) => d.protocols.map((p) => `${api}/protocols/${p.slug}`)
  },
  {
    name: "detail-id",
    tier: "anonymous",
    check: "equal",
    target: 3,
    paths: (d) => d.protocols.map((p) => `${api}/protocols/${p.id}`)
  },
  {
    name: "scorecards",
    tier: "anonymous",
    check: "equal",
    target: 5,
    paths: (d) => d.protocols.map((p) => `${api}/protocols/${p.slug}/scorecards`)
  },
  ...(["domains", "history"] as const).map(
    (r): Route => ({
      name: r,
      tier: "pro",
      check: "equal",
      target: 3,
      paths: (d) => d.protocols.map((p) => `${api}/protocols/${p.slug}/${r}`)
    })
  ),
  ...(["questions", "rubric", "evidence"] as const).map(
    (r): Route => ({
      name: r,
      tier: "enterprise",
      check: "equal",
      target: 3,
      paths: (d) => d.protocols.map((p) => `${api}/protocols/${p.slug}/${r}`)
    })
  ),
  {
    name: "scorecard-id",
    tier: "enterprise",
    check: "equal",
    target: 3,
    paths: (d) => d.protocols.map((p) => `${api}/scorecards/${p.scorecard_id}`)
  },
  {
    name: "incidents",
    tier: "anonymous",
    check: "equal",
    target: 3,
    paths: () =>
      ["rumored", "corroborated", "confirmed"].flatMap((s) =>
        [5, 50].flatMap((limit) =>
          [0, 1, 2].map((o) => `${api}/incidents?min_status=${s}&limit=${limit}&offset=${o}`)
        )
      )
  },
  {
    name: "quantum",
    tier: "anonymous",
    check: "equal",
    target: 3,
    paths: () => [`${api}/quantum-readiness`]
  },
  {
    name: "chain-quantum",
    tier: "anonymous",
    check: "equal",
    target: 3,
    paths: (d) => d.chains.map((c) => `${api}/chains/${c}/quantum-readiness`)
  },
  { name: "methodology", tier: "anonymous", check: "equal", target: 3, paths: () => [`${api}/methodology`] },
  {
    name: "compare",
    tier: "enterprise",
    check: "equal",
    target: 3,
    paths: (d) =>
      Array.from({ length: Math.max(1, d.protocols.length - 2) }, (_, i) => {
        const ids = d.protocols
          .slice(i, i + 3)
          .map((p) => p.slug)
          .join(",")
        return `${api}/compare?entity=protocols&ids=${ids}&fields=slug,grade,letter_grade,composite_score`
      })
  }
]

export const RouteNames = Routes.map((r) => r.name)

// ---------------------------------------------------------------- the options

export interface ReadOptions {
  readonly protocols: number
  readonly seed: string
  readonly duration: number
  readonly warmup: number
  readonly connections: number
  readonly routes: ReadonlyArray<string>
  /** The routes loaded; the other routes of `routes` only get their bodies checked. */
  readonly load: ReadonlyArray<string>
  readonly callers: ReadonlyArray<CallerName>
  readonly loadgen: "wrk" | "autocannon"
  readonly keep: boolean
  /**
   * Rounds of the side-by-side comparisons: a keyed row on a route anonymous
   * callers read is measured in this many pairs of runs on ours (cache), keyed
   * and the route's anonymous requests in turn, the order flipped each round;
   * an anonymous row likewise on ours (cache) with metrics off and on.
   */
  readonly pairs: number
  /** Whether the explorer's pages get rows of their own (readExplorer.ts): EXPLORER=0 leaves them out. */
  readonly explorer: boolean
  /** An earlier commit's server script (BEFORE, readBefore.ts), measured beside ours (cache) on every loaded row. */
  readonly before?: string | undefined
}

const listOf = <A extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  known: ReadonlyArray<A>
): ReadonlyArray<A> => {
  const text = env[name]
  if (text === undefined || text === "") return known
  const wanted = text.split(",").map((s) => s.trim())
  const unknown = wanted.filter((w) => !(known as ReadonlyArray<string>).includes(w))
  if (unknown.length > 0 || wanted.length === 0)
    throw new Error(`${name}: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`)
  return known.filter((k) => wanted.includes(k))
}

/** The options from the environment; an invalid one throws, naming it, before anything starts. */
export const parseOptions = (env: NodeJS.ProcessEnv): ReadOptions => {
  const loadgen = loadgenOption(env)
  const seed = env.SEED ?? "1"
  if (seed === "") throw new Error("SEED must not be empty")
  return {
    protocols: wholeOption(env, "PROTOCOLS", 10_000, 10),
    seed,
    duration: wholeOption(env, "DURATION", 5, 1),
    warmup: wholeOption(env, "WARMUP", 2, 0),
    connections: wholeOption(env, "CONNECTIONS", 64, 2),
    routes: listOf(env, "ROUTES", RouteNames),
    load: listOf(env, "LOAD", RouteNames),
    callers: listOf(env, "CALLERS", CallerNames),
    loadgen,
    keep: env.KEEP === "1",
    pairs: wholeOption(env, "PAIRS", 4, 1),
    explorer: env.EXPLORER !== "0",
    before: beforeScript(env)
  }
}

// ---------------------------------------------------------------- the dataset

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

type Keys = Readonly<Record<Exclude<CallerName, "anonymous">, ReadonlyArray<string>>>

/** The scale dataset, the demo's incidents and quantum sample, and the keys, in the fresh database at `url`. */
const prepare = async (url: string, options: ReadOptions, work: string) => {
  const entities = entitiesFor(options.protocols)
  const dataDir = join(root, ".data", "bench", `read-${options.protocols}-protocols-seed-${options.seed}`)
  if (!existsSync(dataDir) || readdirSync(dataDir).filter((f) => f.endsWith(".json")).length === 0) {
    const progress = terminalProgress("generate")
    await run(
      writeDataset(dataDir, { entities, seed: options.seed }, (p) =>
        progress(p.entitiesWritten, p.totalEntities, "entities")
      ).pipe(Effect.provide(NodeServices.layer))
    )
  }
  // The demo's incident reports and quantum sample, alone: the scale dataset has neither.
  const extras = join(work, "extras")
  mkdirSync(extras, { recursive: true })
  for (const f of ["05-incidents.json", "06-quantum-sample.json"])
    copyFileSync(join(DemoDataDir, f), join(extras, f))
  const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
  const keys = await run(
    Effect.gen(function* () {
      for (const dir of [dataDir, extras]) {
        const outcome = yield* importPath(dir, terminalProgress("import"))
        if (outcome._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(outcome.issues)))
      }
      const repository = yield* ApiKeyRepository
      const create = (tier: keyof Keys, i: number) =>
        Effect.gen(function* () {
          const { key, record } = issueApiKey({ name: `read benchmark (${tier} ${i})`, tier })
          yield* repository.create(record)
          return key
        })
      const of = (tier: keyof Keys) =>
        Effect.forEach(
          Array.from({ length: KeysPerTier }, (_, i) => i),
          (i) => create(tier, i)
        )
      return {
        free: yield* of("free"),
        pro: yield* of("pro"),
        enterprise: yield* of("enterprise")
      } satisfies Keys
    }).pipe(Effect.provide(application(serverKey).pipe(Layer.provideMerge(database(url)))), Effect.scoped)
  )
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    // Fresh statistics and visibility map, as autovacuum would leave them, for every server alike.
    await db.query("VACUUM (ANALYZE)")
    const rated = await db.query<{
      id: string
      slug: string
      categories: Array<string>
      chain_slugs: Array<string>
      scorecard_id: string
    }>(
      `SELECT e.id, e.slug, e.categories, e.chain_slugs, s.id AS scorecard_id
       FROM entities e JOIN scorecards s ON s.entity_id = e.id AND s.status = 'published'
       WHERE e.entity_type = 'protocol' AND e.status = 'published' AND e.is_active AND NOT e.is_private
       ORDER BY e.slug COLLATE "C"`
    )
    const listed = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entities
       WHERE entity_type = 'protocol' AND status = 'published' AND is_active AND NOT is_private`
    )
    const chains = await db.query<{ slug: string }>(
      `SELECT slug FROM entities WHERE entity_type = 'chain' AND status = 'published' AND is_active
       AND NOT is_private ORDER BY slug COLLATE "C"`
    )
    const dataset: Dataset = {
      protocols: spread(rated.rows, Rotation).map((r) => ({
        id: r.id,
        slug: r.slug,
        category: r.categories[0],
        chain: r.chain_slugs[0],
        scorecard_id: r.scorecard_id
      })),
      listed: listed.rows[0]!.n,
      chains: spread(
        chains.rows.map((r) => r.slug),
        Rotation
      )
    }
    return { entities, keys, dataset, serverKey }
  } finally {
    await db.end()
  }
}

// ---------------------------------------------------------------- the servers

export interface Server {
  readonly name: string
  readonly baseUrl: string
  readonly child: ChildProcess
}

export const startServer = async (
  name: string,
  script: string,
  args: ReadonlyArray<string>,
  /** Set in the child's environment over this process's. */
  env: NodeJS.ProcessEnv = {}
): Promise<Server> => {
  const port = await run(freePort)
  // Ours runs with the options of a `ratings serve` process; the baseline and the ceiling with Node's defaults.
  const flags = script.endsWith("readServer.ts") ? ServeNodeFlags : []
  const child = spawn(
    process.execPath,
    [...flags, script.startsWith("/") ? script : join(import.meta.dirname, script), String(port), ...args],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, ...env }
    }
  )
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
  child.kill("SIGKILL")
  throw new Error(`${name} did not answer within 60 s`)
}

export const stop = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve()
    const kill = setTimeout(() => server.child.kill("SIGKILL"), 10_000)
    server.child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    server.child.kill("SIGTERM")
  })

// ---------------------------------------------------------------- the load

/** One measured run of one server. */
export interface Cell {
  readonly rps: number
  readonly p99: number
  /** The median latency in ms, when the load generator gives it (one run; the larger worker's with autocannon). */
  readonly p50?: number | undefined
  /** Socket errors and timeouts. */
  readonly errors: number
  /** Responses other than 2xx. */
  readonly non2xx: number
}

export interface Line {
  readonly path: string
  readonly authorization: string | undefined
}

/** Runs of one server and request list together: the mean rate, the worst p99, every error. */
export const meanCell = (cells: ReadonlyArray<Cell>): Cell => ({
  rps: cells.reduce((n, c) => n + c.rps, 0) / cells.length,
  p99: Math.max(...cells.map((c) => c.p99)),
  errors: cells.reduce((n, c) => n + c.errors, 0),
  non2xx: cells.reduce((n, c) => n + c.non2xx, 0)
})

export const wrkLoad = (baseUrl: string, file: string, connections: number, seconds: number): Promise<Cell> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      "wrk",
      ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", LuaScript, baseUrl, "--", file],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("error", reject)
    child.on("close", () => {
      try {
        const last = out.trim().split("\n").at(-1) ?? ""
        const r = JSON.parse(last)
        resolve({
          rps: r.responses / (r.microseconds / 1e6),
          p99: r.p99,
          p50: r.p50,
          errors: r.connect + r.read + r.write + r.timeout,
          non2xx: r.status
        })
      } catch (e) {
        reject(new Error(`wrk report unreadable: ${String(e)}\n${out}\n${err}`))
      }
    })
  })

/** The fallback: two autocannon workers (bench/soakLoad.ts), each with half the connections and its own order. */
export const autocannonLoad = async (
  baseUrl: string,
  lines: ReadonlyArray<Line>,
  connections: number,
  seconds: number
): Promise<Cell> => {
  const workers = 2
  const one = (w: number) =>
    new Promise<LoadReport>((resolve, reject) => {
      const child = spawn(process.execPath, [LoadScript], { stdio: ["pipe", "pipe", "inherit"] })
      let out = ""
      child.stdout.on("data", (d) => (out += d))
      child.on("error", reject)
      child.on("close", () => {
        try {
          resolve(JSON.parse(out) as LoadReport)
        } catch (e) {
          reject(new Error(`autocannon report unreadable: ${String(e)}\n${out}`))
        }
      })
      const start = Math.floor((w * lines.length) / workers)
      const ordered = [...lines.slice(start), ...lines.slice(0, start)]
      child.stdin.end(
        JSON.stringify({
          url: baseUrl,
          connections: Math.max(1, Math.floor(connections / workers)),
          seconds,
          requests: ordered.map((l) => ({
            name: "r",
            path: l.path,
            headers: l.authorization === undefined ? undefined : { authorization: l.authorization },
            expect: 200
          }))
        })
      )
    })
  const reports = await Promise.all(Array.from({ length: workers }, (_, w) => one(w)))
  return {
    rps: reports.reduce((n, r) => n + r.rps, 0),
    p99: Math.max(...reports.map((r) => r.latency.p99)),
    p50: Math.max(...reports.map((r) => r.latency.p50)),
    errors: reports.reduce((n, r) => n + r.errors, 0),
    non2xx: reports.reduce((n, r) => n + r.unexpected, 0)
  }
}

// ---------------------------------------------------------------- the checks

interface Fetched {
  readonly status: number
  readonly bytes: number
  readonly body: unknown
}

const get = async (baseUrl: string, line: Line): Promise<Fetched> => {
  const response = await fetch(baseUrl + line.path, {
    headers: {
      accept: "application/json",
      ...(line.authorization === undefined ? {} : { authorization: line.authorization })
    },
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, bytes: Buffer.byteLength(text), body }
}

/**
 * Sample requests of a row from every server: each answers 200, ours with and
 * without the cache (and with metrics on, when given) the same JSON, the
 * baseline the same JSON or (a "same size" route) a body within 10 % of ours.
 * Returns the mean size of our bodies.
 */
const checkRow = async (
  route: Route,
  caller: CallerName,
  lines: ReadonlyArray<Line>,
  ours: Server,
  uncached: Server,
  baseline: Server,
  metered?: Server | undefined
): Promise<number> => {
  const samples = unique([0, 1, 2, Math.floor(lines.length / 2), lines.length - 1].map(String))
    .map(Number)
    .filter((i) => i < lines.length)
    .map((i) => lines[i]!)
  let bytes = 0
  for (const line of samples) {
    const [a, b, c] = await Promise.all([ours, uncached, baseline].map((s) => get(s.baseUrl, line)))
    const where = `${route.name} as ${caller} (${line.path})`
    for (const [s, f] of [
      [ours, a!],
      [uncached, b!],
      [baseline, c!]
    ] as const)
      if (f.status !== 200)
        throw new Error(`${s.name} answers ${f.status} to ${where}: ${JSON.stringify(f.body)}`)
    if (!isDeepStrictEqual(a!.body, b!.body))
      throw new Error(`ours answers ${where} differently with and without the cache`)
    if (metered !== undefined) {
      const m = await get(metered.baseUrl, line)
      if (m.status !== 200)
        throw new Error(`${metered.name} answers ${m.status} to ${where}: ${JSON.stringify(m.body)}`)
      if (!isDeepStrictEqual(a!.body, m.body))
        throw new Error(`ours answers ${where} differently with and without metrics`)
    }
    if (route.check === "equal" && !isDeepStrictEqual(a!.body, c!.body))
      throw new Error(`the baseline answers ${where} unlike ours`)
    if (route.check === "same size" && Math.abs(c!.bytes - a!.bytes) > SizeTolerance * a!.bytes)
      throw new Error(
        `the baseline's body for ${where} is ${c!.bytes} bytes, ours ${a!.bytes}: more than 10 % apart`
      )
    bytes += a!.bytes
  }
  return Math.round(bytes / samples.length)
}

// ---------------------------------------------------------------- the run

/** Concurrent requests of the priming pass. */
const PrimingConcurrency = 32

/**
 * Sends each distinct request of a row once, `PrimingConcurrency` at a time,
 * before the cached server's warm-up: its cell then measures the cache's
 * steady state whatever the row's number of distinct requests (2,133 list
 * pages take longer to compute once than a short warm-up lasts); the cost of
 * a miss is the no-cache column's.
 */
const prime = async (server: Server, lines: ReadonlyArray<Line>): Promise<void> => {
  const seen = new Set<string>()
  const distinct = lines.filter((l) => {
    const id = `${l.path} ${l.authorization}`
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
  let next = 0
  const worker = async () => {
    while (next < distinct.length) {
      const line = distinct[next++]!
      const headers: Record<string, string> =
        line.authorization === undefined ? {} : { authorization: line.authorization }
      const response = await fetch(`${server.baseUrl}${line.path}`, { headers })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`priming ${line.path}: ${response.status}`)
    }
  }
  await Promise.all(Array.from({ length: PrimingConcurrency }, worker))
}

/**
 * Two loads in turn, after a warm-up of each: `pairs` rounds, the first load
 * first in the even rounds and the second first in the odd ones (a drift of
 * the machine over the rounds weighs on both alike). Each load's cells, round
 * by round.
 */
export const inTurn = async (
  first: (seconds: number) => Promise<Cell>,
  second: (seconds: number) => Promise<Cell>,
  options: Pick<ReadOptions, "pairs" | "warmup" | "duration">
): Promise<readonly [ReadonlyArray<Cell>, ReadonlyArray<Cell>]> => {
  if (options.warmup > 0) {
    await first(options.warmup)
    await second(options.warmup)
  }
  const a: Array<Cell> = []
  const b: Array<Cell> = []
  for (let round = 0; round < options.pairs; round++) {
    if (round % 2 === 0) {
      a.push(await first(options.duration))
      b.push(await second(options.duration))
    } else {
      b.push(await second(options.duration))
      a.push(await first(options.duration))
    }
  }
  return [a, b]
}

/** The requests a server with metrics on has counted (`http_requests_total`, every label), read from /metrics. */
const requestsCounted = async (server: Server, token: string): Promise<number> => {
  const response = await fetch(`${server.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${server.name}: /metrics answers ${response.status}: ${text}`)
  return text
    .split("\n")
    .filter((l) => l.startsWith("http_requests_total{") || l.startsWith("http_requests_total "))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0)
}

export interface Row {
  readonly route: string
  readonly caller: CallerName
  readonly check: "equal" | "same size"
  /** Distinct requests the row rotates over. */
  readonly requests: number
  readonly bytes: number
  readonly ours: Cell
  readonly uncached: Cell
  readonly baseline: Cell
  readonly ceiling: Cell
  /**
   * A keyed row on a route anonymous callers may read: ours (cache) loaded with
   * the route's anonymous requests in turn with the keyed ones (`pairs`), so the
   * keyed / anonymous target compares figures taken over the same minutes
   * (rows a minute apart drift with the machine by as much as the target's
   * margin). Its cell is the mean over the rounds, as `ours` is then.
   */
  readonly anonymousBeside?: Cell | undefined
  /** The rounds behind `anonymousBeside` and `ours` of such a row: each round's two figures, in req/s. */
  readonly pairs?: ReadonlyArray<{ readonly keyed: number; readonly anonymous: number }> | undefined
  /**
   * An anonymous row: ours (cache) with its Prometheus metrics on, loaded in
   * turn with `ours` (metrics off) over `metricsPairs`, the mean of its rounds
   * as `ours` is then; what metrics cost, taken over the same minutes.
   */
  readonly metricsOn?: Cell | undefined
  /** The rounds behind `metricsOn` and `ours` of such a row: each round's two figures, in req/s. */
  readonly metricsPairs?: ReadonlyArray<{ readonly off: number; readonly on: number }> | undefined
  /** With BEFORE: ours (cache) and the earlier commit's, loaded in turn (readBefore.ts). */
  readonly beside?: BeforeAfter | undefined
}

export interface Skipped {
  readonly route: string
  readonly caller: CallerName
  readonly reason: string
}

export interface Target {
  readonly name: string
  readonly value: number
  readonly min: number
  /** "ms" targets are upper bounds (`min` is then the most allowed). */
  readonly unit: "x" | "%" | "ms"
  readonly pass: boolean
  /** The figures behind the ratio, when they are not the row's own cells. */
  readonly detail?: string | undefined
}

export interface ReadResult {
  readonly rows: ReadonlyArray<Row>
  /** The explorer's pages, anonymous, cached (readExplorer.ts). */
  readonly explorer: ReadonlyArray<ExplorerRow>
  readonly skipped: ReadonlyArray<Skipped>
  /** Rows whose bodies were checked against the baseline but not loaded (LOAD names the routes loaded). */
  readonly checkedOnly: ReadonlyArray<string>
  readonly targets: ReadonlyArray<Target>
  /** Cells with errors or non-2xx responses: a broken run. */
  readonly broken: ReadonlyArray<string>
  /** The printed report. */
  readonly report: ReadonlyArray<string>
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

/** ADR 0009: with the cache off, no read route below half its baseline. */
export const CacheOffFloor = 0.5

/** Metrics on cost at most 15 % of the cached list's throughput (every anonymous row is held to it). */
export const MetricsOnFloor = 0.85

export const targetsOf = (rows: ReadonlyArray<Row>): ReadonlyArray<Target> => {
  const targets: Array<Target> = []
  const routeOf = new Map(Routes.map((r) => [r.name, r]))
  for (const r of rows) {
    const min = routeOf.get(r.route)?.target ?? 3
    const value = r.ours.rps / r.baseline.rps
    targets.push({
      name: `${r.route} as ${r.caller}: ours / baseline`,
      value,
      min,
      unit: "x",
      pass: value >= min
    })
  }
  for (const r of rows) {
    if (r.caller === "anonymous") continue
    const anonymous =
      r.anonymousBeside ?? rows.find((a) => a.route === r.route && a.caller === "anonymous")?.ours
    if (anonymous === undefined) continue
    const value = (100 * r.ours.rps) / anonymous.rps
    targets.push({
      name: `${r.route} as ${r.caller}: keyed / anonymous`,
      value,
      min: 85,
      unit: "%",
      pass: value >= 85,
      ...(r.anonymousBeside === undefined
        ? {}
        : r.pairs === undefined || r.pairs.length === 0
          ? { detail: `${fmt(r.ours.rps)} req/s keyed, ${fmt(anonymous.rps)} anonymous measured right after` }
          : {
              detail:
                `${fmt(r.ours.rps)} req/s keyed, ${fmt(anonymous.rps)} anonymous, means of ${r.pairs.length} ` +
                `alternated pair${r.pairs.length === 1 ? "" : "s"} (each: ` +
                `${r.pairs.map((p) => `${Math.round((100 * p.keyed) / p.anonymous)} %`).join(", ")})`
            })
    })
  }
  const list = rows.find((r) => r.route === "list" && r.caller === "anonymous")
  if (list !== undefined) {
    const value = (100 * list.ours.rps) / list.ceiling.rps
    targets.push({
      name: "list of 50 as anonymous: ours / ceiling",
      value,
      min: 60,
      unit: "%",
      pass: value >= 60
    })
  }
  for (const r of rows) {
    const value = r.uncached.rps / r.baseline.rps
    targets.push({
      name: `${r.route} as ${r.caller}: cache off / baseline`,
      value,
      min: CacheOffFloor,
      unit: "x",
      pass: value >= CacheOffFloor
    })
  }
  for (const r of rows) {
    if (r.metricsOn === undefined) continue
    const value = r.metricsOn.rps / r.ours.rps
    const pairs = r.metricsPairs ?? []
    targets.push({
      name: `${r.route} as ${r.caller}: metrics on / off`,
      value,
      min: MetricsOnFloor,
      unit: "x",
      pass: value >= MetricsOnFloor,
      detail:
        `${fmt(r.metricsOn.rps)} req/s metrics on, ${fmt(r.ours.rps)} off` +
        (pairs.length === 0
          ? ""
          : `, means of ${pairs.length} alternated pair${pairs.length === 1 ? "" : "s"} (each: ` +
            `${pairs.map((p) => `${(p.on / p.off).toFixed(2)}x`).join(", ")})`)
    })
  }
  return targets
}

const cellText = (c: Cell) => `${fmt(c.rps)} (${Math.round(c.p99)})`

export const tableOf = (rows: ReadonlyArray<Row>): ReadonlyArray<string> => [
  "| route | caller | check | requests | bytes | ours, cache | ours, cache, metrics on | ours, no cache | baseline | ceiling | cache / baseline | no cache / baseline | errors |",
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((r) => {
    const errors = [
      r.ours,
      r.uncached,
      r.baseline,
      r.ceiling,
      ...(r.metricsOn === undefined ? [] : [r.metricsOn])
    ].reduce((n, c) => n + c.errors + c.non2xx, 0)
    const metered = r.metricsOn === undefined ? "-" : cellText(r.metricsOn)
    return `| ${r.route} | ${r.caller} | ${r.check} | ${fmt(r.requests)} | ${fmt(r.bytes)} | ${cellText(r.ours)} | ${metered} | ${cellText(r.uncached)} | ${cellText(r.baseline)} | ${cellText(r.ceiling)} | ${(r.ours.rps / r.baseline.rps).toFixed(2)}x | ${(r.uncached.rps / r.baseline.rps).toFixed(2)}x | ${errors} |`
  })
]

export const readBench = async (
  serverUrl: string,
  options: ReadOptions,
  log: (line: string) => void = (l) => console.error(l)
): Promise<ReadResult> => {
  const began = Date.now()
  const work = join(root, ".tmp", `read-bench-${process.pid}`)
  mkdirSync(work, { recursive: true, mode: 0o700 })
  try {
    return await withScratchDatabase(serverUrl, "bench_read", options.keep, async (db) => {
      const prepared = await prepare(db.url, options, work)
      const plan = Routes.filter((r) => options.routes.includes(r.name)).flatMap((route) =>
        options.callers.map((caller) => ({ route, caller }))
      )
      const servers: Array<Server> = []
      try {
        // Metrics off in ours whatever this process's environment says: the metered server is the one with them.
        const metricsOff = { RATINGS_METRICS: "false" }
        const ours = await startServer("ours (response cache)", "readServer.ts", [db.url, "on"], metricsOff)
        servers.push(ours)
        const uncached = await startServer("ours, uncached", "readServer.ts", [db.url, "off"], metricsOff)
        servers.push(uncached)
        const baseline = await startServer("baseline (Fastify + pg)", "readBaselineServer.ts", [db.url])
        servers.push(baseline)
        const ceiling = await startServer("ceiling (node:http)", "ceilingServer.ts", [])
        servers.push(ceiling)
        // Ours (cache) with metrics on, for the anonymous rows loaded, if any; its token reads its /metrics.
        const metricsToken = randomBytes(16).toString("hex")
        const metered = plan.some(
          ({ route, caller }) =>
            caller === "anonymous" && route.tier === "anonymous" && options.load.includes(route.name)
        )
          ? await startServer("ours (cache, metrics on)", "readServer.ts", [db.url, "on"], {
              RATINGS_METRICS: "true",
              RATINGS_METRICS_TOKEN: metricsToken
            })
          : undefined
        if (metered !== undefined) servers.push(metered)
        const previous =
          options.before === undefined
            ? undefined
            : await startServer("before (cache)", options.before, [db.url, "on"], metricsOff)
        if (previous !== undefined) servers.push(previous)

        const rows: Array<Row> = []
        const skipped: Array<Skipped> = []
        const broken: Array<string> = []
        /** Rows whose bodies were checked against the baseline but not loaded (LOAD). */
        const checkedOnly: Array<string> = []
        for (const { route, caller } of plan) {
          if (TierRank[caller] < TierRank[route.tier]) {
            skipped.push({
              route: route.name,
              caller,
              reason: `the spec answers ${caller === "anonymous" ? "401 (no key)" : `403 (below ${route.tier})`}`
            })
            continue
          }
          const paths = route.paths(prepared.dataset)
          if (paths.length === 0) throw new Error(`${route.name}: the dataset gives no request`)
          const keys = caller === "anonymous" ? [] : prepared.keys[caller]
          const count = keys.length === 0 ? paths.length : Math.max(paths.length, keys.length)
          const lines: Array<Line> = Array.from({ length: count }, (_, i) => ({
            path: paths[i % paths.length]!,
            authorization: keys.length === 0 ? undefined : `Bearer ${keys[i % keys.length]}`
          }))
          const bytes = await checkRow(
            route,
            caller,
            lines,
            ours,
            uncached,
            baseline,
            caller === "anonymous" ? metered : undefined
          )
          if (!options.load.includes(route.name)) {
            checkedOnly.push(`${route.name} as ${caller}`)
            continue
          }
          const file = join(work, `${route.name}-${caller}.txt`)
          writeFileSync(file, lines.map((l) => `${l.path}\t${l.authorization ?? ""}`).join("\n") + "\n", {
            mode: 0o600
          })
          const loadOnce = (server: Server, seconds: number) =>
            options.loadgen === "wrk"
              ? wrkLoad(server.baseUrl, file, options.connections, seconds)
              : autocannonLoad(server.baseUrl, lines, options.connections, seconds)
          const measure = async (server: Server): Promise<Cell> => {
            if (server === ours) await prime(server, lines)
            if (options.warmup > 0) await loadOnce(server, options.warmup)
            const cell = await loadOnce(server, options.duration)
            if (cell.errors + cell.non2xx > 0)
              broken.push(
                `${route.name} as ${caller} on ${server.name}: ${cell.errors} socket errors, ${cell.non2xx} non-2xx`
              )
            return cell
          }
          /**
           * A keyed row on a route anonymous callers read: ours (cache) with the keyed
           * requests and the route's anonymous ones (no key) in turn (`inTurn`), keyed
           * first in the even rounds; each figure the mean of its rounds.
           */
          const alternated = async (): Promise<
            Pick<Row, "ours" | "anonymousBeside" | "pairs"> | undefined
          > => {
            if (caller === "anonymous" || TierRank.anonymous < TierRank[route.tier]) return undefined
            const besideFile = join(work, `${route.name}-anonymous-beside.txt`)
            writeFileSync(besideFile, paths.map((p) => `${p}\t`).join("\n") + "\n", { mode: 0o600 })
            const anonymousLines = paths.map((path) => ({ path, authorization: undefined }))
            const loadAnonymous = (seconds: number) =>
              options.loadgen === "wrk"
                ? wrkLoad(ours.baseUrl, besideFile, options.connections, seconds)
                : autocannonLoad(ours.baseUrl, anonymousLines, options.connections, seconds)
            const loadKeyed = (seconds: number) => loadOnce(ours, seconds)
            await prime(ours, lines)
            await prime(ours, anonymousLines)
            const [keyed, anonymous] = await inTurn(loadKeyed, loadAnonymous, options)
            const k = meanCell(keyed)
            const a = meanCell(anonymous)
            if (k.errors + k.non2xx > 0)
              broken.push(
                `${route.name} as ${caller} on ${ours.name}: ${k.errors} socket errors, ${k.non2xx} non-2xx`
              )
            if (a.errors + a.non2xx > 0)
              broken.push(`${route.name} as anonymous (beside ${caller}) on ${ours.name}: errors or non-2xx`)
            return {
              ours: k,
              anonymousBeside: a,
              pairs: keyed.map((c, i) => ({ keyed: c.rps, anonymous: anonymous[i]!.rps }))
            }
          }
          /**
           * An anonymous row: ours (cache) with metrics off and on in turn (`inTurn`),
           * off first in the even rounds; each figure the mean of its rounds. The
           * metered server's request counter must have grown by at least the requests
           * it answered in the measured rounds: its figure is that of metrics at work.
           */
          const metricsAlternated = async (): Promise<
            Pick<Row, "ours" | "metricsOn" | "metricsPairs"> | undefined
          > => {
            if (caller !== "anonymous" || metered === undefined) return undefined
            await prime(ours, lines)
            await prime(metered, lines)
            const before = await requestsCounted(metered, metricsToken)
            const [off, on] = await inTurn(
              (seconds) => loadOnce(ours, seconds),
              (seconds) => loadOnce(metered, seconds),
              options
            )
            const counted = (await requestsCounted(metered, metricsToken)) - before
            const answered = on.reduce((n, c) => n + c.rps * options.duration, 0)
            const o = meanCell(off)
            const m = meanCell(on)
            for (const [server, c] of [
              [ours, o],
              [metered, m]
            ] as const)
              if (c.errors + c.non2xx > 0)
                broken.push(
                  `${route.name} as ${caller} on ${server.name}: ${c.errors} socket errors, ${c.non2xx} non-2xx`
                )
            if (counted < 0.9 * answered)
              broken.push(
                `${route.name} as ${caller} on ${metered.name}: its metrics counted ${fmt(counted)} requests, ` +
                  `it answered about ${fmt(answered)}`
              )
            return {
              ours: o,
              metricsOn: m,
              metricsPairs: off.map((c, i) => ({ off: c.rps, on: on[i]!.rps }))
            }
          }
          /** With BEFORE: ours (cache) and the earlier commit's in turn, the order flipped each round. */
          const besideBefore = async (): Promise<BeforeAfter | undefined> => {
            if (previous === undefined) return undefined
            await prime(ours, lines)
            await prime(previous, lines)
            const [after, before] = await inTurn(
              (seconds) => loadOnce(ours, seconds),
              (seconds) => loadOnce(previous, seconds),
              options
            )
            for (const [server, cells] of [
              [ours, after],
              [previous, before]
            ] as const)
              if (cells.some((c) => c.errors + c.non2xx > 0))
                broken.push(`${route.name} as ${caller} on ${server.name}: socket errors or non-2xx`)
            return beforeAfterOf(after, before, meanCell)
          }
          const sized = await fetch(`${ceiling.baseUrl}/__body?bytes=${bytes}`)
          if (sized.status !== 204) throw new Error(`the ceiling refused a body of ${bytes} bytes`)
          const row: Row = {
            route: route.name,
            caller,
            check: route.check,
            requests: unique(lines.map((l) => `${l.path} ${l.authorization}`)).length,
            bytes,
            ceiling: await measure(ceiling),
            ...((await alternated()) ?? (await metricsAlternated()) ?? { ours: await measure(ours) }),
            uncached: await measure(uncached),
            baseline: await measure(baseline),
            beside: await besideBefore()
          }
          rows.push(row)
          log(
            `  ${route.name} as ${caller}: ours ${fmt(row.ours.rps)}, ` +
              (row.metricsOn === undefined ? "" : `metrics on ${fmt(row.metricsOn.rps)}, `) +
              `no cache ${fmt(row.uncached.rps)}, ` +
              `baseline ${fmt(row.baseline.rps)}, ceiling ${fmt(row.ceiling.rps)} req/s`
          )
        }

        const explorer = options.explorer
          ? await explorerRows({
              dataset: prepared.dataset,
              ours,
              ceiling,
              work,
              connections: options.connections,
              warmup: options.warmup,
              duration: options.duration,
              load: (server, file, paths, connections, seconds) =>
                options.loadgen === "wrk"
                  ? wrkLoad(server.baseUrl, file, connections, seconds)
                  : autocannonLoad(
                      server.baseUrl,
                      paths.map((path) => ({ path, authorization: undefined })),
                      connections,
                      seconds
                    ),
              broken,
              log
            })
          : []
        const targets: ReadonlyArray<Target> = [
          ...targetsOf(rows),
          ...explorerTargets(explorer),
          ...beforeTargets(rows)
        ]
        const best = rows.reduce<Row | undefined>(
          (b, r) => (b === undefined || r.ours.rps > b.ours.rps ? r : b),
          undefined
        )
        const ceilings = rows.map((r) => r.ceiling.rps)
        const generator =
          options.loadgen === "wrk"
            ? `wrk (1 thread, bench/readLoad.lua), ${options.connections} connections`
            : `autocannon fallback (2 workers), ${options.connections} connections`
        const report = [
          `read benchmark: ${fmt(options.protocols)} protocols (${fmt(prepared.dataset.listed)} public) in ` +
            `${fmt(prepared.entities)} entities, seed ${options.seed}; ${fmt(prepared.dataset.protocols.length)} ` +
            `rotating slugs, ${KeysPerTier} keys per tier; ${options.duration} s per run after ${options.warmup} s warm-up`,
          machineLine(await postgresVersion(serverUrl)),
          `load generator: ${generator}; its own figure against the ceiling server: ` +
            (ceilings.length === 0
              ? "none (no row ran)"
              : `${fmt(Math.min(...ceilings))}-${fmt(Math.max(...ceilings))} req/s` +
                (best === undefined
                  ? ""
                  : `; the fastest server figure of the run (${best.route} as ${best.caller}, ${fmt(best.ours.rps)} req/s) ` +
                    `is ${Math.round((100 * best.ours.rps) / best.ceiling.rps)} % of it at that body size`)),
          "req/s (p99 ms) per server; requests: distinct requests (path and key) the row rotates over; " +
            'check: the baseline\'s body "equal" to ours, or of the "same size" (within 10 %)',
          "",
          ...tableOf(rows),
          "",
          ...explorerTable(explorer),
          ...beforeTable(rows),
          ...(skipped.length === 0
            ? []
            : [
                `not loaded (${skipped.length}): ${skipped.map((s) => `${s.route} as ${s.caller}`).join(", ")}: ` +
                  "the spec refuses these routes to these callers (401 without a key, 403 below the route's tier)"
              ]),
          ...(checkedOnly.length === 0
            ? []
            : [
                `bodies checked against the baseline, not loaded (LOAD) (${checkedOnly.length}): ${checkedOnly.join(", ")}`
              ]),
          "targets, from this run:",
          ...targets.map((t) =>
            t.unit === "ms"
              ? `  ${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${Math.round(t.value)} ms (under ${t.min} ms)`
              : `  ${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.unit === "x" ? `${t.value.toFixed(2)}x` : `${Math.round(t.value)} %`} ` +
                `(at least ${t.unit === "x" ? `${t.min}x` : `${t.min} %`})${t.detail === undefined ? "" : `; ${t.detail}`}`
          ),
          `${targets.filter((t) => t.pass).length} of ${targets.length} targets pass; ` +
            `total time ${Math.round((Date.now() - began) / 1000)} s`,
          ...(broken.length === 0 ? [] : ["BROKEN RUN:", ...broken.map((b) => `  ${b}`)])
        ]
        return { rows, explorer, skipped, checkedOnly, targets, broken, report }
      } finally {
        await Promise.all(servers.map(stop))
        if (options.keep) log(`kept database ${db.url}`)
      }
    })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) reportMain(parseOptions, readBench)
