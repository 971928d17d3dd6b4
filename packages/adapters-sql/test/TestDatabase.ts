/**
 * A fresh, migrated database per test file on the Postgres that DATABASE_URL
 * names (CI: the running server), or, when it is unset, on the embedded server
 * the global setup started. Dropped when the layer's scope closes.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { MigrationsLayer, PgClientLayer } from "../src/PgDatabase.ts"

export const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

const admin = (url: string) =>
  PgClient.layer({ url: Redacted.make(withDatabase(url, "postgres")), maxConnections: 1 })

/** Creates `name` on the server for the scope's lifetime. */
const scratchDatabase = (name: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const sql = yield* PgClient.PgClient
      yield* sql.unsafe(`CREATE DATABASE "${name}"`)
    }).pipe(Effect.provide(admin(serverUrl())), Effect.orDie),
    () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        yield* sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      }).pipe(Effect.provide(admin(serverUrl())), Effect.ignore)
  )

let counter = 0

/** A new, migrated database; its URL is also served as `TestDatabaseUrl`. */
export const TestDatabase = Layer.unwrap(
  Effect.gen(function* () {
    const name = `ratings_test_${process.pid}_${Date.now().toString(36)}_${counter++}`
    yield* scratchDatabase(name)
    const url = withDatabase(serverUrl(), name)
    return MigrationsLayer.pipe(Layer.provideMerge(PgClientLayer({ url, maxConnections: 5 })))
  })
)

export const testDatabaseUrl = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  const [row] = yield* sql<{ db: string }>`SELECT current_database() AS db`
  return withDatabase(serverUrl(), row!.db)
})
