/**
 * Soak benchmark child process: `ratings serve` as cli/run/Serve.ts composes it
 * (configuration from the environment, the production layers over
 * DATABASE_URL, the response cache invalidated through Postgres, the
 * explorer's routes, authentication and caller policies from the
 * configuration), with one change: every caller kind's rate limit is raised
 * so that the limiter still counts each request (its cost stays in the
 * measurement) but refuses none of the soak's traffic. The configuration has
 * no setting for the limits, so this bench-only entry point replaces them, as
 * bench/readServer.ts does for the read benchmark. The quantum refresher is
 * left out: the soak sets no upstream, and without one `serve` runs none.
 *
 *   PORT=... HOST=127.0.0.1 DATABASE_URL=... RATINGS_SECRET_KEY=... node bench/soakServer.ts
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import type { RateLimitTable } from "@ratings/adapters-http/server/limits/RateLimit"
import { AppInfo, AppLayer } from "@ratings/server/AppLayer"
import { explorerRoutes } from "@ratings/server/explorer/ExplorerRoutes"
import { httpOptions } from "@ratings/server/HttpOptions"
import { responseCache } from "@ratings/server/Layers"
import { Effect, Layer } from "effect"

const unrefused = [{ limit: 1e9, window: "1 minute" }] as const

/** One window per kind, far above what the soak sends, in place of the production table. */
export const SoakLimits: RateLimitTable = {
  anonymous: unrefused,
  free: unrefused,
  pro: unrefused,
  enterprise: unrefused,
  admin: unrefused
}

const program = Effect.gen(function* () {
  const { config } = yield* AppInfo
  const http = httpOptions(config)
  return yield* Layer.launch(
    serve({
      port: config.port,
      host: config.host,
      auth: http.auth,
      policies: { ...http.policies, limits: SoakLimits },
      responseCache: responseCache(),
      routes: explorerRoutes(http.auth)
    })
  )
}).pipe(Effect.provide(AppLayer), Effect.provide(NodeServices.layer))

NodeRuntime.runMain(program)
