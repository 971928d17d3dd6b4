/**
 * Import benchmark: the generated dataset (100,000 entities with full
 * scorecards by default) loaded by `ratings import`'s pipeline in a child
 * process (importChild.ts: validate, write all in one transaction, replay the
 * publications), against a plain `COPY ... FROM STDIN` of the very rows the
 * import wrote into the same tables of a fresh database, in the same run.
 * Prints rows, seconds, rows/s, the ratio and the import's peak RSS.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test ENTITIES=100000 npm run bench:import
 *   (without DATABASE_URL an embedded Postgres is started; KEEP=1 keeps the databases)
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { PassThrough } from "node:stream"
import { NodeServices } from "@effect/platform-node"
import { MigrationsLayer, PgClientLayer } from "@ratings/adapters-sql/PgDatabase"
import { writeDataset } from "@ratings/demo-data"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect, Layer } from "effect"
import pg from "pg"
import copy from "pg-copy-streams"
import { runMain, withPostgresServer, withScratchDatabase } from "./harness.ts"

const ENTITIES = Number(process.env.ENTITIES ?? 100_000)
const SEED = process.env.SEED ?? "1"
const KEEP = process.env.KEEP === "1"
const root = join(import.meta.dirname, "..")
const dataDir = join(root, ".data", "bench", `import-${ENTITIES}-seed-${SEED}`)

/** Tables the import writes, in an order that satisfies foreign keys. */
const Tables = [
  "entities",
  "questions",
  "scorecards",
  "answers",
  "evidence",
  "rating_history",
  "incidents",
  "incident_nonces",
  "incident_sources",
  "quantum_snapshots"
]

/**
 * `ratings import`'s pipeline loading `dir` into `url`, in a child process
 * (importChild.ts, with the CLI's Node flags): its seconds and peak RSS.
 */
export const importInChild = (dir: string, url: string) =>
  new Promise<{ seconds: number; peakRss: number }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--max-semi-space-size=16", "--expose-gc", join(import.meta.dirname, "importChild.ts"), dir],
      { env: { ...process.env, DATABASE_URL: url }, stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString()
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}"))
      else reject(new Error(`the import exited with ${code}`))
    })
  })

const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)

/** Generates the dataset if need be, imports it into `importUrl`, COPYs the same rows into `copyUrl`; prints. */
const measure = async (importUrl: string, copyUrl: string) => {
  if (!existsSync(dataDir) || readdirSync(dataDir).length === 0) {
    const progress = terminalProgress("generate")
    await run(
      writeDataset(dataDir, { entities: ENTITIES, seed: SEED }, (p) =>
        progress(p.entitiesWritten, p.totalEntities, "entities")
      ).pipe(Effect.provide(NodeServices.layer))
    )
  }

  // 1. `ratings import`, in its own process so that its memory is its own.
  const { seconds: importSeconds, peakRss: importRss } = await importInChild(dataDir, importUrl)

  // 2. The same rows, COPY'd into the same tables of a fresh, migrated database.
  await run(
    Layer.build(MigrationsLayer.pipe(Layer.provideMerge(PgClientLayer({ url: copyUrl })))).pipe(Effect.scoped)
  )
  const source = new pg.Client({ connectionString: importUrl })
  const target = new pg.Client({ connectionString: copyUrl })
  await source.connect()
  await target.connect()
  let rows = 0
  let copySeconds = 0
  for (const table of Tables) {
    const count = Number((await source.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
    if (count === 0) continue
    rows += count
    // Buffer the table's rows first so only the COPY into the target is timed.
    const chunks: Array<Buffer> = []
    const buffer = new PassThrough()
    buffer.on("data", (c: Buffer) => chunks.push(c))
    await pipeline(source.query(copy.to(`COPY ${table} TO STDOUT (FORMAT binary)`)), buffer)
    const started = performance.now()
    const into = target.query(copy.from(`COPY ${table} FROM STDIN (FORMAT binary)`))
    const feed = new PassThrough()
    const done = pipeline(feed, into)
    for (const c of chunks) feed.write(c)
    feed.end()
    await done
    copySeconds += (performance.now() - started) / 1000
  }
  await source.end()
  await target.end()

  const importRate = rows / importSeconds
  const copyRate = rows / copySeconds
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
  console.log(
    `import benchmark: ${fmt(ENTITIES)} entities (seed ${SEED}), ${fmt(rows)} rows written, node ${process.version}`
  )
  console.log(
    `  ratings import (validate + write + publish)  ${importSeconds.toFixed(1).padStart(8)} s  ${fmt(importRate).padStart(10)} rows/s`
  )
  console.log(
    `  COPY of the same rows (baseline)             ${copySeconds.toFixed(1).padStart(8)} s  ${fmt(copyRate).padStart(10)} rows/s`
  )
  console.log(`  ratio import/COPY                            ${(importRate / copyRate).toFixed(3)}`)
  console.log(`  peak RSS of ratings import                   ${fmt(importRss / 1024 / 1024).padStart(8)} MB`)
}

const main = async () => {
  if (!Number.isInteger(ENTITIES) || ENTITIES < 1)
    throw new Error(`ENTITIES must be a whole number >= 1, got ${process.env.ENTITIES}`)
  await withPostgresServer((serverUrl) =>
    withScratchDatabase(serverUrl, "bench_import", KEEP, (dbImport) =>
      withScratchDatabase(serverUrl, "bench_copy", KEEP, (dbCopy) => measure(dbImport.url, dbCopy.url))
    )
  )
}

if (import.meta.main) runMain(main)
