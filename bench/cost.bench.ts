/**
 * Cost curve benchmark: what an operator plans by, per dataset size (SIZES
 * entities of the scale generator, each in a fresh database), in one run:
 * `ratings import` of the dataset (time, rows/s, peak RSS, database size), one
 * re-rating (`ratings import` of a draft, then `ratings publish`, CLI processes,
 * median of PUBLISHES), and the anonymous list and one protocol's detail with
 * the response cache on and off (bench/readServer.ts; after VACUUM (ANALYZE),
 * or straight after the import with ANALYZE=0). One Markdown table (a row a
 * measure, a column a size); a failed command or request is a broken run.
 *
 *   SIZES=1000,10000,100000 SEED=1 DURATION=5 WARMUP=1 CONNECTIONS=32 PUBLISHES=5
 *   ANALYZE=1 KEEP=1 LOADGEN=wrk|autocannon npm run bench:cost
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { writeDataset } from "@ratings/demo-data"
import type { ImportFile } from "@ratings/domain/import/ImportFile"
import { ServeNodeFlags } from "@ratings/server/ServeNodeFlags"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect } from "effect"
import pg from "pg"
import { median } from "./cliStart.bench.ts"
import {
  loadgenOption,
  machineLine,
  postgresVersion,
  reportMain,
  wholeOption,
  withScratchDatabase
} from "./harness.ts"
import { autocannonLoad, type Cell, type Server, startServer, stop, wrkLoad } from "./read.bench.ts"

const root = join(import.meta.dirname, "..")
const MainScript = join(root, "apps", "server", "src", "main.ts")

/** Tables an import writes: its rows are theirs. */
const ImportTables = ["entities", "questions", "scorecards", "answers", "evidence", "rating_history"]
const IncidentAndQuantumTables = ["incidents", "incident_nonces", "incident_sources", "quantum_snapshots"]

export interface CostOptions {
  readonly sizes: ReadonlyArray<number>
  readonly seed: string
  readonly duration: number
  readonly warmup: number
  readonly connections: number
  readonly publishes: number
  readonly loadgen: "wrk" | "autocannon"
  /** Whether the reads are measured after `VACUUM (ANALYZE)` (ANALYZE=0: straight after the import). */
  readonly analyze: boolean
  readonly keep: boolean
}

/** The options from the environment; an invalid one throws, naming it, before anything starts. */
export const parseCostOptions = (env: NodeJS.ProcessEnv): CostOptions => {
  const text = env.SIZES === undefined || env.SIZES === "" ? "1000,10000,100000" : env.SIZES
  const sizes = text.split(",").map((s) => s.trim())
  if (sizes.some((s) => !/^\d+$/.test(s) || Number(s) < 20))
    throw new Error(`SIZES must be whole numbers >= 20, comma-separated, got ${text}`)
  const seed = env.SEED ?? "1"
  if (seed === "") throw new Error("SEED must not be empty")
  return {
    sizes: sizes.map(Number),
    seed,
    duration: wholeOption(env, "DURATION", 5, 1),
    warmup: wholeOption(env, "WARMUP", 1, 0),
    connections: wholeOption(env, "CONNECTIONS", 32, 1),
    publishes: wholeOption(env, "PUBLISHES", 5, 1),
    loadgen: loadgenOption(env),
    analyze: env.ANALYZE !== "0",
    keep: env.KEEP === "1"
  }
}

/** Median seconds of a command's runs: wall time, and the CPU time (user and system) it used. */
export interface Timed {
  readonly seconds: number
  readonly cpu: number
}

/** What one size costs. */
export interface Column {
  readonly entities: number
  /** Rows the import wrote, over the tables it writes. */
  readonly rows: number
  readonly importSeconds: number
  readonly importCpu: number
  /** Peak resident set of the `ratings import` process, in bytes. */
  readonly importPeakRss: number
  /** The database's size once imported, in bytes. */
  readonly databaseBytes: number
  /** `ratings import` of one draft, and `ratings publish` of it: median wall and CPU seconds. */
  readonly draft: Timed
  readonly publish: Timed
  readonly listCached: Cell
  readonly listUncached: Cell
  readonly detailCached: Cell
  readonly detailUncached: Cell
  /** The 1-minute load average once the column was measured. */
  readonly load: number
}

// ---------------------------------------------------------------- the CLI

/** Preloaded into every `ratings` process: writes its peak RSS (KiB) and CPU time (µs) to COST_USAGE_FILE. */
const UsageRecorder =
  "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>{const u=process.resourceUsage();" +
  "writeFileSync(process.env.COST_USAGE_FILE,JSON.stringify([u.maxRSS,u.userCPUTime+u.systemCPUTime]))})"

interface CliRun {
  /** Wall time; on a busy machine mostly waiting for a core, which `cpu` is not. */
  readonly seconds: number
  readonly cpu: number
  readonly peakRss: number
  readonly output: string
}

/** `ratings <args>` as a child process with `ratings`'s Node flags, timed; throws unless it exits 0. */
const ratings = (args: ReadonlyArray<string>, databaseUrl: string, work: string): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const usageFile = join(work, "usage")
    const conditions = "--conditions=@ratings/source"
    const nodeOptions = process.env.NODE_OPTIONS ?? ""
    const started = process.hrtime.bigint()
    const child = spawn(
      process.execPath,
      [...ServeNodeFlags, "--import", UsageRecorder, MainScript, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          COST_USAGE_FILE: usageFile,
          NODE_OPTIONS: nodeOptions.includes(conditions) ? nodeOptions : `${nodeOptions} ${conditions}`.trim()
        }
      }
    )
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("error", reject)
    child.on("close", (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      if (code !== 0)
        return reject(new Error(`ratings ${args.join(" ")} exited ${code}:\n${output.slice(-2000)}`))
      const [rss, cpu] = JSON.parse(readFileSync(usageFile, "utf8")) as [number, number]
      rmSync(usageFile, { force: true })
      resolve({ seconds, cpu: cpu / 1e6, peakRss: rss * 1024, output })
    })
  })

// ---------------------------------------------------------------- the dataset

/** The generated dataset of `entities` (shared with bench:import: same generator, same folder). */
const datasetDir = async (entities: number, seed: string): Promise<string> => {
  const dir = join(root, ".data", "bench", `import-${entities}-seed-${seed}`)
  if (!existsSync(dir) || readdirSync(dir).filter((f) => f.endsWith(".json")).length === 0) {
    const progress = terminalProgress("generate")
    await Effect.runPromise(
      writeDataset(dir, { entities, seed }, (p) =>
        progress(p.entitiesWritten, p.totalEntities, "entities")
      ).pipe(Effect.provide(NodeServices.layer))
    )
  }
  return dir
}

type Draft = NonNullable<ImportFile["scorecards"]>[number]

/**
 * The latest scorecard of the first readable protocol the dataset publishes
 * (a public, active, published protocol), as the dataset's files give it.
 */
const ratedProtocol = (dir: string): Draft => {
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const content = JSON.parse(readFileSync(join(dir, file), "utf8")) as ImportFile
    const published = new Set((content.publications ?? []).map((p) => `${p.entity_type}:${p.slug}`))
    const readable = (content.entities ?? []).find(
      (e) =>
        e.entity_type === "protocol" &&
        e.record.status === "published" &&
        e.record.is_active &&
        !e.record.is_private &&
        published.has(`protocol:${e.record.slug}`)
    )
    if (readable === undefined) continue
    const drafts = (content.scorecards ?? []).filter(
      (s) => s.entity_type === "protocol" && s.slug === readable.record.slug
    )
    const latest = drafts.reduce<Draft | undefined>(
      (l, s) => (l === undefined || s.scorecard_version > l.scorecard_version ? s : l),
      undefined
    )
    if (latest !== undefined) return latest
  }
  throw new Error(`${dir}: no readable protocol with a published scorecard`)
}

/**
 * A re-rating's draft: the scorecard again at `version`, its first scored
 * answer moved to 0 or to its maximum (in turn), ids derived, no claimed figure.
 */
export const reRating = (scorecard: Draft, version: number): Draft => {
  const { id: _id, composite_score: _claim, ...rest } = scorecard
  const first = scorecard.answers.findIndex((a) => a.score !== null)
  return {
    ...rest,
    scorecard_version: version,
    answers: scorecard.answers.map(({ id: _answerId, ...a }, i) =>
      i === first ? { ...a, score: version % 2 === 0 ? 0 : a.max_score } : a
    )
  }
}

// ---------------------------------------------------------------- one size

const queryOne = async <A>(url: string, sql: string, params: ReadonlyArray<unknown> = []): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, [...params])).rows[0] as A
  } finally {
    await client.end()
  }
}

/** The import's rows, the database's size, and the highest stored version of the protocol `slug`. */
const storedFigures = async (url: string, slug: string) => {
  const counts = [...ImportTables, ...IncidentAndQuantumTables]
    .map((t) => `(SELECT count(*) FROM ${t})`)
    .join(" + ")
  return queryOne<{ rows: string; bytes: string; version: number }>(
    url,
    `SELECT ${counts} AS rows, pg_database_size(current_database()) AS bytes,
       (SELECT max(s.scorecard_version) FROM scorecards s JOIN entities e ON e.id = s.entity_id
        WHERE e.entity_type = 'protocol' AND e.slug = $1) AS version`,
    [slug]
  )
}

/** Loads `path` on `server` (WARMUP, then DURATION seconds); the body checked first and the cache primed. */
const loadRoute = async (server: Server, path: string, options: CostOptions, work: string): Promise<Cell> => {
  const response = await fetch(`${server.baseUrl}${path}`, { signal: AbortSignal.timeout(60_000) })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${server.name} answers ${response.status} to ${path}`)
  const file = join(work, "requests.txt")
  writeFileSync(file, `${path}\t\n`)
  const once = (seconds: number) =>
    options.loadgen === "wrk"
      ? wrkLoad(server.baseUrl, file, options.connections, seconds)
      : autocannonLoad(server.baseUrl, [{ path, authorization: undefined }], options.connections, seconds)
  if (options.warmup > 0) await once(options.warmup)
  return once(options.duration)
}

const timed = (runs: ReadonlyArray<CliRun>): Timed => ({
  seconds: median(runs.map((r) => r.seconds)),
  cpu: median(runs.map((r) => r.cpu))
})

const measureSize = async (
  serverUrl: string,
  entities: number,
  options: CostOptions,
  work: string,
  log: (line: string) => void,
  broken: Array<string>
): Promise<Column> => {
  const dir = await datasetDir(entities, options.seed)
  const rated = ratedProtocol(dir)
  return withScratchDatabase(serverUrl, "bench_cost", options.keep, async (db) => {
    // Migrated first, untimed: the import's figure is the import's.
    await ratings(["questions", "list", "protocol"], db.url, work)
    log(`  ${entities} entities: importing`)
    const imported = await ratings(["import", dir], db.url, work)
    const stored = await storedFigures(db.url, rated.slug)
    const drafts: Array<CliRun> = []
    const publishes: Array<CliRun> = []
    for (let i = 1; i <= options.publishes; i++) {
      const file = join(work, "re-rating.json")
      const draft = reRating(rated, stored.version + i)
      writeFileSync(file, JSON.stringify({ format: "ratings-import/v1", scorecards: [draft] }))
      drafts.push(await ratings(["import", file], db.url, work))
      const run = await ratings(
        [
          "publish",
          "protocol",
          rated.slug,
          "--reasoning",
          `cost benchmark re-rating ${i}`,
          "--actor",
          "bench"
        ],
        db.url,
        work
      )
      if (!run.output.includes(`published protocol ${rated.slug} v${draft.scorecard_version}`))
        broken.push(
          `${entities} entities: ratings publish printed ${JSON.stringify(run.output.slice(0, 300))}`
        )
      publishes.push(run)
    }
    log(`  ${entities} entities: imported in ${imported.seconds.toFixed(1)} s; loading`)
    // Fresh statistics and visibility map, as autovacuum leaves them a minute or so after an import.
    if (options.analyze) await queryOne(db.url, "VACUUM (ANALYZE)")
    const servers: Array<Server> = []
    try {
      const metricsOff = { RATINGS_METRICS: "false" }
      const cached = await startServer("ours (response cache)", "readServer.ts", [db.url, "on"], metricsOff)
      servers.push(cached)
      const uncached = await startServer("ours, uncached", "readServer.ts", [db.url, "off"], metricsOff)
      servers.push(uncached)
      const list = "/api/v1/protocols?limit=50"
      const detail = `/api/v1/protocols/${rated.slug}`
      const cells = {
        listCached: await loadRoute(cached, list, options, work),
        listUncached: await loadRoute(uncached, list, options, work),
        detailCached: await loadRoute(cached, detail, options, work),
        detailUncached: await loadRoute(uncached, detail, options, work)
      }
      for (const [name, cell] of Object.entries(cells))
        if (cell.errors + cell.non2xx > 0)
          broken.push(`${entities} entities, ${name}: ${cell.errors} socket errors, ${cell.non2xx} non-2xx`)
      return {
        entities,
        rows: Number(stored.rows),
        importSeconds: imported.seconds,
        importCpu: imported.cpu,
        importPeakRss: imported.peakRss,
        databaseBytes: Number(stored.bytes),
        draft: timed(drafts),
        publish: timed(publishes),
        ...cells,
        load: loadavg()[0]!
      }
    } finally {
      await Promise.all(servers.map(stop))
      if (options.keep) log(`kept database ${db.url}`)
    }
  })
}

// ---------------------------------------------------------------- the table

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20)} MB`
const ms = (n: number | undefined) => (n === undefined ? "?" : n < 10 ? n.toFixed(1) : fmt(n))
const timedCell = (t: Timed) => `${t.seconds.toFixed(2)} s (CPU ${t.cpu.toFixed(2)} s)`
const loadCell = (c: Cell) => `${fmt(c.rps)} req/s, p50 ${ms(c.p50)} / p99 ${ms(c.p99)} ms`

/** The table: a row a measure, a column a size. */
export const costTable = (columns: ReadonlyArray<Column>, publishes: number): ReadonlyArray<string> => {
  const row = (name: string, cell: (c: Column) => string) => `| ${name} | ${columns.map(cell).join(" | ")} |`
  return [
    `| measure | ${columns.map((c) => `${fmt(c.entities)} entities`).join(" | ")} |`,
    `| --- | ${columns.map(() => "---:").join(" | ")} |`,
    row("rows imported", (c) => fmt(c.rows)),
    row(
      "`ratings import` of the dataset",
      (c) => `${c.importSeconds.toFixed(1)} s (CPU ${c.importCpu.toFixed(1)} s)`
    ),
    row("import rate", (c) => `${fmt(c.rows / c.importSeconds)} rows/s`),
    row("import peak RSS", (c) => mb(c.importPeakRss)),
    row("database size after import", (c) => mb(c.databaseBytes)),
    row(`re-rating: \`ratings import\` of its draft (median of ${publishes})`, (c) => timedCell(c.draft)),
    row(`re-rating: \`ratings publish\` (median of ${publishes})`, (c) => timedCell(c.publish)),
    row("list of 50, cached", (c) => loadCell(c.listCached)),
    row("list of 50, uncached", (c) => loadCell(c.listUncached)),
    row("detail of one protocol, cached", (c) => loadCell(c.detailCached)),
    row("detail of one protocol, uncached", (c) => loadCell(c.detailUncached)),
    row("load average (1 min) after the column", (c) => c.load.toFixed(2))
  ]
}

export const costBench = async (
  serverUrl: string,
  options: CostOptions,
  log: (line: string) => void = (l) => console.error(l)
) => {
  const began = Date.now()
  const work = join(root, ".tmp", `cost-bench-${process.pid}`)
  mkdirSync(work, { recursive: true, mode: 0o700 })
  try {
    const columns: Array<Column> = []
    const broken: Array<string> = []
    for (const entities of options.sizes)
      columns.push(await measureSize(serverUrl, entities, options, work, log, broken))
    const generator = options.loadgen === "wrk" ? "wrk (1 thread)" : "autocannon fallback (2 workers)"
    const report = [
      `cost curve benchmark: ${options.sizes.map(fmt).join(" / ")} entities, seed ${options.seed}; ` +
        `${generator}, ${options.connections} connections, anonymous, ${options.duration} s per cell after ` +
        `${options.warmup} s warm-up, ` +
        (options.analyze ? "after VACUUM (ANALYZE)" : "straight after the import (ANALYZE=0)"),
      machineLine(await postgresVersion(serverUrl)),
      "",
      ...costTable(columns, options.publishes),
      "",
      `total time ${Math.round((Date.now() - began) / 1000)} s`,
      ...(broken.length === 0 ? [] : ["BROKEN RUN:", ...broken.map((b) => `  ${b}`)])
    ]
    return { columns, broken, report }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) reportMain(parseCostOptions, (serverUrl, options) => costBench(serverUrl, options))
