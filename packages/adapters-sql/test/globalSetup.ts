/**
 * Vitest global setup: when DATABASE_URL is unset, start one throwaway embedded
 * Postgres for the whole run and hand its URL to the test files.
 */
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { start } from "../src/EmbeddedPostgres.ts"

export default async function setup() {
  if (process.env.DATABASE_URL !== undefined) return
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
