/**
 * Read benchmark child process: our server as `ratings serve` composes it
 * (the production layers over Postgres, `serve` with its caller policies, the
 * explorer's pages beside the API), with every caller kind's rate limit
 * raised (anonymous and the Free, Pro and Enterprise keys alike) so that the
 * limiter still counts every request, its cost staying in the measurement,
 * without refusing the load; and the response cache on or off; with
 * RATINGS_METRICS=true, its Prometheus metrics on (off by default, as in
 * production), /metrics then readable with RATINGS_METRICS_TOKEN when set.
 *
 *   node bench/readServer.ts <port> <database-url> <cache: on|off>
 */
import { NodeRuntime } from "@effect/platform-node"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import type { RateLimitTable } from "@ratings/adapters-http/server/limits/RateLimit"
import { explorerRoutes } from "@ratings/server/explorer/ExplorerRoutes"
import { application, database, keyVersions, responseCache } from "@ratings/server/Layers"
import { Layer, Redacted } from "effect"

const [port, url, cache] = process.argv.slice(2)
if (port === undefined || url === undefined || (cache !== "on" && cache !== "off"))
  throw new Error("usage: readServer.ts <port> <database-url> <on|off>")

const unrefused = [{ limit: 1e9, window: "1 minute" }] as const

/** One window per caller kind, far above what the bench sends, in place of the production table. */
const BenchLimits: RateLimitTable = {
  anonymous: unrefused,
  free: unrefused,
  pro: unrefused,
  enterprise: unrefused,
  admin: unrefused
}

const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

/** Lets the read benchmark scrape /metrics, to see the requests it measured counted there. */
const metricsToken =
  process.env.RATINGS_METRICS_TOKEN === undefined || process.env.RATINGS_METRICS_TOKEN === ""
    ? undefined
    : Redacted.make(process.env.RATINGS_METRICS_TOKEN)

const server = serve({
  port: Number(port),
  host: "127.0.0.1",
  policies: { limits: BenchLimits },
  routes: explorerRoutes({}),
  responseCache: cache === "on" ? responseCache() : undefined,
  // Off, every read is a miss as in production: keys are still held under the keys' version.
  keyVersions: cache === "off" ? keyVersions : undefined,
  metrics: process.env.RATINGS_METRICS === "true" ? { token: metricsToken } : undefined
}).pipe(Layer.provide(application(key).pipe(Layer.provideMerge(database(url)))))

NodeRuntime.runMain(Layer.launch(server))
