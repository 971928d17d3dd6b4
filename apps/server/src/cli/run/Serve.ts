/**
 * What `ratings serve` does (the command and what it promises:
 * ServeCommand.ts): the HTTP API, the dashboard and /mcp, the webhook
 * dispatcher loop and, when configured, the quantum-readiness refresher; the
 * demo dataset on the first start of the embedded default.
 */
import { type AuthConfig, trustedHops } from "@ratings/adapters-http/server/AuthConfig"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import { describeUrl } from "@ratings/adapters-http/upstream/LayerQuSource"
import { McpBodyLimit } from "@ratings/adapters-mcp/McpEndpoint"
import { mcpRoutes } from "@ratings/adapters-mcp/RatingsMcpServer"
import { DemoDataDir } from "@ratings/demo-data"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import * as QuantumRefresher from "@ratings/domain/services/QuantumRefresher"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { AppInfo, ServeAppLayer } from "../../AppLayer.ts"
import type { ServerConfig } from "../../Config.ts"
import { explorerRoutes } from "../../explorer/ExplorerRoutes.ts"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { checkIdentityProvider, httpOptions } from "../../HttpOptions.ts"
import { responseCache, webhookDispatcherLoop, webhookHousekeepingLoop } from "../../Layers.ts"
import { countedTransport, metricsOptions, ObservabilityConfig } from "../../Observability.ts"
import { progressReporter } from "../../Progress.ts"
import { stoppedGracefully } from "../../Shutdown.ts"

const isEmpty = Effect.gen(function* () {
  const entities = yield* EntityRepository
  for (const entity_type of EntityTypes) {
    const page = yield* entities.list({
      entity_type,
      categories: [],
      skip: 0,
      limit: 1,
      flags: { include_inactive: true, include_frameworks: true, include_unpublished: true }
    })
    if (page.total > 0) return false
  }
  return true
})

const loadDemo = Effect.gen(function* () {
  yield* Console.log(`first start of the embedded database: loading the demo dataset from ${DemoDataDir}`)
  const outcome = yield* importPath(DemoDataDir, yield* progressReporter("demo"))
  if (outcome._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(outcome.issues)))
  if (outcome._tag === "Refused") return yield* Effect.die(new Error(outcome.message))
  yield* Console.log("demo dataset loaded")
})

/**
 * The routes served beside the API: the ratings explorer (its Webhooks tab
 * is where the dashboard page was), and the MCP server for AI agents at
 * /mcp, which limits per client address as authentication establishes it
 * (behind the proxies `auth` trusts).
 */
const appRoutes = (auth: AuthConfig) =>
  Layer.merge(explorerRoutes(auth), mcpRoutes(trustedHops(auth.trustProxy)))

/** What the server says once its port is bound and its configuration checked. */
const announce = (
  config: ServerConfig,
  embedded: boolean,
  devIdp: ReturnType<typeof httpOptions>["devIdentityProvider"]
) =>
  Effect.gen(function* () {
    yield* Console.log(
      devIdp.on
        ? `development identity provider: on (${devIdp.reason}): tokens from \`ratings dev token\` are admin here`
        : `development identity provider: off (${devIdp.reason})`
    )
    yield* Console.log(
      `ratings service listening on http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}` +
        ` (${embedded ? "embedded Postgres" : "DATABASE_URL"})`
    )
    const { sourceUrl, refreshInterval } = config.quantum
    if (Option.isSome(sourceUrl)) {
      yield* Console.log(
        `refreshing quantum readiness from ${describeUrl(sourceUrl.value)} every ${Duration.format(refreshInterval)}`
      )
    }
    const { concurrency, pollInterval, retryScale } = config.webhooks
    yield* Console.log(
      `delivering webhooks from the outbox (up to ${concurrency} at once, polling every ${Duration.format(pollInterval)})` +
        (Option.isSome(retryScale) ? `; retry offsets scaled by ${retryScale.value} (NODE_ENV=test)` : "")
    )
  })

/**
 * Shutdown (SIGTERM or SIGINT) drains, side by side and within one
 * RATINGS_SHUTDOWN_GRACE, the HTTP server (no new connections; requests in
 * flight finish) and the dispatcher (no new claims; deliveries claimed but not
 * started handed back at once; sends in flight finish and are recorded). What
 * still runs when the grace ends is cut (a cut send's claim expires and the
 * attempt is made again); then the pool and the embedded Postgres close, and
 * the process exits 0.
 */
export const serveCommand = Effect.fnUntraced(function* (noDemo: boolean) {
  const { config, database } = yield* AppInfo
  if (database.embedded && config.loadDemo && !noDemo && (yield* isEmpty)) yield* loadDemo
  const http = httpOptions(config)
  yield* checkIdentityProvider(http.auth)
  const { sourceUrl, refreshInterval } = config.quantum
  const refresher = Option.isSome(sourceUrl)
    ? QuantumRefresher.layer({ interval: refreshInterval })
    : Layer.empty
  const observability = yield* ObservabilityConfig
  const metrics = observability.metrics ? yield* metricsOptions(observability) : undefined
  const server = Layer.mergeAll(
    serve({
      port: config.port,
      host: config.host,
      auth: http.auth,
      policies: http.policies,
      // /mcp's own body limit, for the Node server's 413 before any route.
      connections: { ...http.connections, bodyLimits: [McpBodyLimit] },
      responseCache: responseCache(),
      routes: appRoutes(http.auth),
      shutdownGrace: config.shutdownGrace,
      metrics
    }),
    refresher,
    webhookHousekeepingLoop,
    metrics === undefined
      ? webhookDispatcherLoop(config.shutdownGrace)
      : webhookDispatcherLoop(config.shutdownGrace).pipe(Layer.provide(countedTransport))
  )
  return yield* Effect.scoped(
    Effect.gen(function* () {
      // Bound and configured (the identity provider's settings are checked as the server is built).
      yield* Layer.build(server)
      yield* announce(config, database.embedded, http.devIdentityProvider)
      if (metrics !== undefined)
        yield* Console.log(
          `metrics: GET /metrics (an admin JWT${metrics.token === undefined ? "" : " or the RATINGS_METRICS_TOKEN"})`
        )
      return yield* Effect.never
    })
  ).pipe(Effect.onInterrupt(() => stoppedGracefully))
}, Effect.provide(ServeAppLayer))
