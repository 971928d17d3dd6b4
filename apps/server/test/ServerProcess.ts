/**
 * Server processes modelled in the test's own process: each built from the
 * production layers in its own memo map (own pool, own LISTEN connection,
 * own cache), so that to Postgres they are separate clients, as OS processes
 * are, while the test can reach into them (their cache, their stores).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { Context, Effect, Layer, type LogLevel, Redacted, References } from "effect"
import type { SqlClient } from "effect/sql"
import { application, database } from "../src/Layers.ts"
import { scratchDatabase } from "./CliHarness.ts"
import { exampleWithDraft } from "./WebhookHarness.ts"

export const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

/** One process: the production layers over the database, built in a memo map of its own. */
export const processOf = (url: string) => application(serverKey).pipe(Layer.provideMerge(database(url)))

/**
 * Builds a process (and what runs in it later, through its context) logging
 * at `minimum` and above: by default warnings and errors only, so that a
 * test run prints test results; a test that causes warnings on purpose may
 * raise it.
 */
export const buildAlone = <A, E>(layer: Layer.Layer<A, E>, minimum: LogLevel.LogLevel = "Warn") =>
  Effect.flatMap(Effect.scope, (scope) =>
    Layer.buildWithMemoMap(
      layer.pipe(Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, minimum))),
      Layer.makeMemoMapUnsafe(),
      scope
    )
  )

/** Imports the example (with lendwell's v3 draft) into a fresh database through process A: its URL, and A. */
export const importedDatabase = Effect.gen(function* () {
  const db = yield* Effect.acquireRelease(
    Effect.promise(() => scratchDatabase()),
    (d) => Effect.promise(() => d.drop())
  )
  const dir = mkdtempSync(join(tmpdir(), "ratings-cache-"))
  writeFileSync(join(dir, "example.json"), JSON.stringify(exampleWithDraft()))
  const a = yield* buildAlone(processOf(db.url))
  const imported = yield* importPath(dir).pipe(Effect.provideContext(a))
  if (imported._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(imported.issues)))
  return { url: db.url, a }
})

/** `serve`'s options but the port, host and cache, which `serverProcess` sets (no access log unless given). */
export type ServeOptions = Omit<
  Parameters<typeof serve>[0],
  "port" | "host" | "responseCache" | "keyVersions"
>

/**
 * Process B: the production layers over the database with `cache` in front,
 * serving HTTP on a free port (with `options` given to `serve`), logging at
 * `minimum` and above (as `buildAlone`).
 */
export const serverProcess = <E>(
  url: string,
  cache: Layer.Layer<ResponseCache, E, SqlClient.SqlClient>,
  options: ServeOptions = {},
  minimum: LogLevel.LogLevel = "Warn"
) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const b = yield* buildAlone(cache.pipe(Layer.provideMerge(processOf(url))), minimum)
    const cacheB = Context.get(b, ResponseCache)
    yield* buildAlone(
      serve({
        accessLog: false,
        ...options,
        port,
        host: "127.0.0.1",
        responseCache: Layer.succeed(ResponseCache, cacheB)
      }).pipe(Layer.provide(Layer.succeedContext(b))),
      minimum
    )
    return { cacheB, b, baseUrl: `http://127.0.0.1:${port}` }
  })
