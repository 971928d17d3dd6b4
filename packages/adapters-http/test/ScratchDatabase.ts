/**
 * A fresh, migrated Postgres database for one test server, on the server that
 * DATABASE_URL names or, when it is unset, on the embedded server the vitest
 * global setup started (RATINGS_TEST_PG_URL). Dropped when the layer's scope
 * closes.
 *
 * It does what adapters-sql's test/TestDatabase.ts does; that file is not part
 * of the package's exports, and this project cannot import another project's
 * test folder, so the few lines live here too.
 */
import * as PgDatabase from "@ratings/adapters-sql/PgDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const onDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** Runs one statement on the server's maintenance database. */
const administer = (statement: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(statement)
  }).pipe(
    Effect.provide(
      PgDatabase.PgClientLayer({
        url: onDatabase(serverUrl(), "postgres"),
        maxConnections: 1,
        applicationName: "ratings-http-test-admin"
      })
    )
  )

let counter = 0

/** PgClient and SqlClient of a new, migrated database that lives as long as the layer. */
export const ScratchDatabase = Layer.unwrap(
  Effect.gen(function* () {
    const name = `ratings_http_${process.pid}_${Date.now().toString(36)}_${counter++}`
    yield* Effect.acquireRelease(Effect.orDie(administer(`CREATE DATABASE "${name}"`)), () =>
      Effect.ignore(administer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
    )
    return PgDatabase.layer({
      url: onDatabase(serverUrl(), name),
      maxConnections: 8,
      applicationName: "ratings-http-test"
    })
  })
)
