/**
 * The Postgres side of the domain's shared contract suites
 * (`@ratings/domain/test-support/contract/*`): `postgresTarget` for the
 * ratings-side harness (one database per suite, emptied before each test),
 * `sharedDatabase` for the event-side suites (one database per test file,
 * emptied each time a test builds its layer); and a second connection pool to
 * the same test database ("another server process"), so the Postgres-only
 * concurrency tests exercise two clients that share nothing but Postgres.
 */
import { PgClient } from "@effect/sql-pg"
import { afterAll } from "@effect/vitest"
import type { Target } from "@ratings/domain/test-support/contract/ratings-harness"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { PgClientLayer } from "../src/PgDatabase.ts"
import { TestDatabase, testDatabaseUrl } from "./TestDatabase.ts"

type Database = Layer.Success<typeof TestDatabase>

/** Every table the ratings side writes; CASCADE reaches answers and evidence through their foreign keys. */
export const truncateRatings = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`TRUNCATE entities, questions, scorecards, answers, evidence, rating_history, api_keys, export_log, contact_requests CASCADE`
})

/** A ratings-side contract target over Postgres: one migrated database for the suite, emptied before each test. */
export const postgresTarget = <S>(fresh: Layer.Layer<S, unknown, Database>): Target<S, Database> => ({
  label: "Postgres",
  shared: TestDatabase,
  fresh,
  reset: truncateRatings
})

/** A separate pool on the database of the PgClient in context (the one TestDatabase made). */
export const otherProcessClient: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient,
  unknown,
  PgClient.PgClient
> = Layer.unwrap(
  Effect.map(testDatabaseUrl, (url) =>
    PgClientLayer({ url, maxConnections: 5, applicationName: "ratings-test-other-process" })
  )
)

/** Runs `effect` with `layer` built on a second pool, as another server process would. */
export const secondConnection = <A, E, R, ROut, E2>(
  effect: Effect.Effect<A, E, R>,
  layer: Layer.Layer<ROut, E2, SqlClient.SqlClient>
) => effect.pipe(Effect.provide(layer.pipe(Layer.provide(otherProcessClient))))

/**
 * One migrated database for a whole test file, emptied of `tables` each time
 * the returned layer is built: contract tests get a fresh, empty store per test
 * without paying for a database per test. The pool is built outside any test,
 * so its idle timers run on the live clock (a test that moves the TestClock by
 * years would otherwise expire its connections under it), and the database is
 * dropped after the file.
 */
export const sharedDatabase = (
  tables: ReadonlyArray<string>
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> => {
  const runtime = ManagedRuntime.make(TestDatabase)
  afterAll(() => runtime.dispose())
  return Layer.effectContext(
    Effect.tap(runtime.contextEffect, (context) =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        yield* sql.unsafe(`TRUNCATE ${tables.map((t) => `"${t}"`).join(", ")} CASCADE`)
      }).pipe(Effect.provide(context))
    )
  )
}
