/**
 * Export memory benchmark ("CSV streamed, with flat memory at 5000
 * rows"). The server's memory while it sends CSV exports of 500 and of 5000
 * rows, ours beside a baseline in the same run, over the same database.
 *
 * A generated dataset (published protocols with realistic scorecards) is
 * imported into a fresh database; Pro keys of distinct accounts are created
 * (the export quota is 5 per account per 24 hours). One server process
 * (bench/exportServer.ts, run with --expose-gc) serves both:
 *
 * - ours: `GET /api/v1/export.csv`, as `ratings serve` serves it (auth, tier,
 *   quota, watermark recorded, pages read from Postgres as the stream is pulled);
 * - baseline: the same export materialised (all records, scorecards and rows
 *   read and built, the document written as one string, then sent).
 *
 * For each of ours/baseline at each size, CONCURRENCY exports run at once,
 * REPEAT times; around each batch the server collects garbage, then samples
 * heapUsed + external (JS heap plus the Buffers being written) every 10 ms
 * right after a forced full collection: the live peak, what the exports hold,
 * which is the figure compared. Also printed: the raw peak (sampled every
 * millisecond without collecting, so it includes garbage V8 has not yet
 * collected) and the peak RSS. Every response is read
 * to its end by this process, its rows counted; the first export of each size
 * is compared with the baseline's byte for byte (watermark column aside).
 *
 * Printed: the peaks in MiB, the growth of the live peak from 500 to 5000
 * rows for each, and the verdict: ours is flat when its 5000-row live peak
 * stays within 2x its 500-row one (the data grows 10x).
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:export
 *   (without DATABASE_URL an embedded Postgres is started)
 *   SIZES=500,5000 CONCURRENCY=4 REPEAT=3 ENTITIES=9000 SEED=1 KEEP=1 (keeps the database)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { displayPrefix, generateApiKey, hashApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { writeDataset } from "@ratings/demo-data"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { machineLine, runMain, withPostgresServer, withScratchDatabase } from "./harness.ts"

export interface ExportMemoryOptions {
  /** Rows per export, smallest first; the first and last are compared. */
  readonly sizes: ReadonlyArray<number>
  /** Exports sent at once in each measured batch. */
  readonly concurrency: number
  /** Batches per (server, size). */
  readonly repeat: number
  /** Entities in the generated dataset (about 61% are listed, published protocols). */
  readonly entities: number
  readonly seed: string
  /** Where the generated dataset is kept between runs. */
  readonly dataDir: string
}

export interface Measured {
  readonly variant: "ours" | "baseline"
  readonly rows: number
  /** Peak live heapUsed + external (sampled right after a full collection) above the idle start, bytes. */
  readonly peakLive: number
  /** Peak heapUsed + external without forcing collections (floating garbage included) above the idle start, bytes. */
  readonly peakJs: number
  /** Peak RSS above the idle start, bytes (the highest batch). */
  readonly peakRss: number
  /** Response bytes per export. */
  readonly bytes: number
  /** Exports completed and their rows checked. */
  readonly exports: number
}

export interface ExportMemoryResult {
  readonly options: ExportMemoryOptions
  readonly listed: number
  readonly idleJs: number
  readonly measured: ReadonlyArray<Measured>
  /** Bodies compared equal to the baseline's (one per size). */
  readonly compared: number
}

const FieldList = "slug,name,grade,letter_grade,composite_score,domain_scores,last_rated_at"
const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)

// ----------------------------------------------------------------- server

interface ServerProcess {
  readonly origin: string
  readonly child: ChildProcess
}

type ProbeReply = {
  readonly type: "stop"
  readonly live: number
  readonly js: number
  readonly rss: number
  readonly idleJs: number
}

const ask = <A>(child: ChildProcess, type: "start" | "stop"): Promise<A> =>
  new Promise((resolve, reject) => {
    const onMessage = (reply: { readonly type?: string }) => {
      if (reply.type !== type) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      resolve(reply as A)
    }
    const onExit = (code: number | null) => {
      child.off("message", onMessage)
      reject(new Error(`the export server exited (${code}) before answering ${type}`))
    }
    child.on("message", onMessage)
    child.once("exit", onExit)
    child.send({ type })
  })

const startServer = async (url: string): Promise<ServerProcess> => {
  const port = await run(freePort)
  const child = spawn(
    process.execPath,
    ["--expose-gc", join(import.meta.dirname, "exportServer.ts"), String(port), url],
    { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, LOG_LEVEL: "Warn" } }
  )
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the export server exited with ${child.exitCode}`)
    const up = await fetch(`${origin}/health`).then(
      (r) => r.ok,
      () => false
    )
    if (up) return { origin, child }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  child.kill("SIGKILL")
  throw new Error("the export server did not answer within 60 s")
}

const stopServer = (server: ServerProcess): Promise<void> =>
  new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve()
    server.child.once("exit", () => resolve())
    server.child.kill("SIGTERM")
  })

// ------------------------------------------------------------------ client

/** GETs `path`, reads the body to its end; the text is kept only when asked. */
const download = async (
  origin: string,
  path: string,
  key: string | undefined,
  keep: boolean
): Promise<{ readonly bytes: number; readonly lines: number; readonly text: string }> => {
  const response = await fetch(origin + path, {
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` }
  })
  if (response.status !== 200 || response.body === null)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`)
  let bytes = 0
  let lines = 0
  const parts: Array<Uint8Array> = []
  for await (const chunk of response.body) {
    bytes += chunk.byteLength
    for (let i = 0; i < chunk.byteLength; i++) if (chunk[i] === 10) lines++
    if (keep) parts.push(chunk)
  }
  return { bytes, lines, text: keep ? Buffer.concat(parts).toString("utf8") : "" }
}

/** A body with its watermark column (the last one, a UUID or the baseline's placeholder) blanked. */
const withoutWatermark = (text: string): string =>
  text.replace(/,(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|baseline)\r\n/g, ",\r\n")

// -------------------------------------------------------------------- data

const prepare = async (url: string, options: ExportMemoryOptions, keys: number) => {
  if (
    !existsSync(options.dataDir) ||
    readdirSync(options.dataDir).filter((f) => f.endsWith(".json")).length === 0
  )
    await run(
      writeDataset(options.dataDir, { entities: options.entities, seed: options.seed }).pipe(
        Effect.asVoid,
        Effect.provide(NodeServices.layer)
      )
    )
  return run(
    Effect.gen(function* () {
      const outcome = yield* importPath(options.dataDir)
      if (outcome._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(outcome.issues)))
      const repository = yield* ApiKeyRepository
      return yield* Effect.forEach(
        Array.from({ length: keys }, (_, i) => i),
        (i) =>
          Effect.gen(function* () {
            const key = generateApiKey()
            yield* repository.create({
              id: randomUUID(),
              name: `export memory benchmark ${i}`,
              tier: "pro",
              account_id: randomUUID(),
              prefix: displayPrefix(key),
              hash: hashApiKey(key),
              created_at: new Date().toISOString()
            })
            return key
          })
      )
    }).pipe(Effect.provide(application(serverKey).pipe(Layer.provideMerge(database(url)))), Effect.scoped)
  )
}

// --------------------------------------------------------------------- run

/** The whole benchmark on `url`, a fresh database. Fails if any export's rows or bytes are not as expected. */
export const runExportMemory = async (
  url: string,
  options: ExportMemoryOptions
): Promise<ExportMemoryResult> => {
  const { sizes, concurrency, repeat } = options
  // One key per export of ours (plus one for the comparison), each well inside its account's quota.
  const oursExports = sizes.length * (repeat * concurrency + 1)
  const keys = await prepare(url, options, Math.ceil(oursExports / 4))
  let nextKey = 0
  const keyFor = () => keys[Math.floor(nextKey++ / 4)]!

  const db = new pg.Client({ connectionString: url })
  await db.connect()
  const listed = (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entities WHERE entity_type = 'protocol' AND status = 'published'
         AND is_active AND NOT is_private AND NOT is_framework`
    )
  ).rows[0]!.n
  await db.query("VACUUM (ANALYZE)")
  await db.end()
  const largest = Math.max(...sizes)
  if (listed < largest)
    throw new Error(`the dataset lists ${listed} protocols, fewer than ${largest}: raise ENTITIES`)

  const server = await startServer(url)
  try {
    const pathOf = (variant: "ours" | "baseline", rows: number) =>
      variant === "ours"
        ? `/api/v1/export.csv?entity=protocol&fields=${FieldList}&limit=${rows}`
        : `/baseline/export.csv?entity=protocol&fields=${FieldList}&limit=${rows}`

    // Same document from both before anything is measured (and a warm-up of every code path).
    let compared = 0
    for (const rows of sizes) {
      const ours = await download(server.origin, pathOf("ours", rows), keyFor(), true)
      const baseline = await download(server.origin, pathOf("baseline", rows), undefined, true)
      if (ours.lines !== rows + 1) throw new Error(`ours sent ${ours.lines - 1} rows, not ${rows}`)
      if (withoutWatermark(ours.text) !== withoutWatermark(baseline.text))
        throw new Error(`ours and the baseline differ at ${rows} rows`)
      compared++
    }

    let idleJs = 0
    const measured: Array<Measured> = []
    // Interleaved, so a drift of the machine touches both alike.
    for (const rows of sizes) {
      for (const variant of ["ours", "baseline"] as const) {
        let peakLive = 0
        let peakJs = 0
        let peakRss = 0
        let bytes = 0
        let exports = 0
        for (let round = 0; round < repeat; round++) {
          await ask(server.child, "start")
          const results = await Promise.all(
            Array.from({ length: concurrency }, () =>
              download(server.origin, pathOf(variant, rows), variant === "ours" ? keyFor() : undefined, false)
            )
          )
          const probe = await ask<ProbeReply>(server.child, "stop")
          for (const r of results) {
            if (r.lines !== rows + 1) throw new Error(`${variant} sent ${r.lines - 1} rows, not ${rows}`)
            bytes = r.bytes
            exports++
          }
          peakLive = Math.max(peakLive, probe.live)
          peakJs = Math.max(peakJs, probe.js)
          peakRss = Math.max(peakRss, probe.rss)
          idleJs = probe.idleJs
        }
        measured.push({ variant, rows, peakLive, peakJs, peakRss, bytes, exports })
      }
    }
    return { options, listed, idleJs, measured, compared }
  } finally {
    await stopServer(server)
  }
}

/** Ours is flat when its largest export's live peak is within 2x its smallest's. */
export const verdictOf = (r: ExportMemoryResult) => {
  const of = (variant: "ours" | "baseline", rows: number) =>
    r.measured.find((m) => m.variant === variant && m.rows === rows)!
  const small = Math.min(...r.options.sizes)
  const large = Math.max(...r.options.sizes)
  const growth = (variant: "ours" | "baseline") => of(variant, large).peakLive / of(variant, small).peakLive
  return { small, large, ours: growth("ours"), baseline: growth("baseline"), flat: growth("ours") <= 2 }
}

// --------------------------------------------------------------------- main

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

const main = async () => {
  const root = join(import.meta.dirname, "..")
  const entities = Number(process.env.ENTITIES ?? 9000)
  const seed = process.env.SEED ?? "1"
  const options: ExportMemoryOptions = {
    sizes: (process.env.SIZES ?? "500,5000").split(",").map(Number),
    concurrency: Number(process.env.CONCURRENCY ?? 4),
    repeat: Number(process.env.REPEAT ?? 3),
    entities,
    seed,
    dataDir: join(root, ".data", "bench", `export-${entities}-seed-${seed}`)
  }
  const whole = (n: number) => Number.isInteger(n) && n >= 1
  if (!options.sizes.every((n) => whole(n) && n <= 5000) || options.sizes.length < 2)
    throw new Error("SIZES: at least two whole numbers from 1 to 5000, comma-separated")
  if (!whole(options.concurrency) || !whole(options.repeat) || !whole(options.entities))
    throw new Error("CONCURRENCY, REPEAT and ENTITIES must be whole numbers >= 1")

  await withPostgresServer(async (serverUrl) => {
    console.log(machineLine())
    console.log(
      `settings: sizes ${options.sizes.join(", ")} rows, ${options.concurrency} exports at once, ` +
        `${options.repeat} batches each, all ${FieldList.split(",").length} fields, dataset ${entities} entities seed ${seed}`
    )
    const r = await withScratchDatabase(serverUrl, "bench_export", process.env.KEEP === "1", (db) =>
      runExportMemory(db.url, options)
    )
    console.log(
      `export memory: ${r.listed} listed protocols; server idle heap+external ${mib(r.idleJs)} MiB; ` +
        `${r.compared} documents compared equal to the baseline's`
    )
    console.log(
      "  server           rows   bytes/export   live peak    raw peak    peak RSS   (MiB above idle, highest batch)"
    )
    for (const m of r.measured)
      console.log(
        `  ${m.variant.padEnd(14)} ${String(m.rows).padStart(6)} ${String(m.bytes).padStart(14)}` +
          ` ${mib(m.peakLive).padStart(11)} ${mib(m.peakJs).padStart(11)} ${mib(m.peakRss).padStart(11)}`
      )
    const v = verdictOf(r)
    console.log(
      `  growth ${v.small} -> ${v.large} rows: ours ${v.ours.toFixed(2)}x, baseline ${v.baseline.toFixed(2)}x ` +
        `(data ${(v.large / v.small).toFixed(0)}x)`
    )
    console.log(
      `  verdict: ${v.flat ? "PASS, flat" : "FAIL, grows with the rows"} (ours' live peak within 2x from ${v.small} to ${v.large} rows)`
    )
    if (!v.flat) process.exitCode = 1
  })
}

if (import.meta.main) runMain(main)
