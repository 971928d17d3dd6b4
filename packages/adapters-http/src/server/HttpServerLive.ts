/**
 * The HTTP server: the contract's routes with their handlers, the OpenAPI
 * document at /openapi.json (and under the API prefix), served by Node.
 *
 * The API's routes need the Authentication middleware: `serve` provides it
 * from its `auth` option (API keys only, every JWT refused, when absent).
 *
 * Inside authentication, CallerPolicies applies what depends on the caller
 * (rate limits, attribution, cache headers) from `serve`'s `policies` option;
 * CORS wraps every route at the router.
 */
import type { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { Branding } from "@ratings/domain/model/ServiceInfo"
import { brandedApi, CallerPolicies, docsApi } from "../api/Api.ts"
import { attribute, attributionHeadersOf } from "./Attribution.ts"
import type { AuthConfig } from "./AuthConfig.ts"
import { Admission } from "./admission/Admission.ts"
import { AdmittedDraw, layerAuthenticationOverAdmission } from "./Authentication.ts"
import { cacheHeaders } from "./Caching.ts"
import { Cors } from "./Cors.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { Handlers } from "./Handlers.ts"
import { type RateLimitConfig, RequestRateLimiter } from "./limits/RateLimit.ts"
import { countedLimiter, type MetricsOptions, withMetrics } from "./Metrics.ts"
import { type IdleMemoryOptions, releaseMemoryWhenQuiet } from "./IdleMemory.ts"
import { drain } from "./front/Drain.ts"
import { type ConnectionLimits, createServer, type NodeServer } from "./front/NodeServer.ts"
import { layer as layerNodeServer } from "./front/ServerLayer.ts"
import { HitLane } from "./HitLane.ts"
import { KeyMemo, type KeyVersions } from "./KeyMemo.ts"
import { type AccessLog, accessLogMiddleware, makeAccessLog } from "./AccessLog.ts"
import { FallbackPages, MaxPathParamLength, RouterFallbacks } from "./RouterFallbacks.ts"
import { ResponseCache } from "./cache/ResponseCache.ts"
import { DefaultShutdownGrace, ServerShutdown } from "./ServerShutdown.ts"
import { docsRoutes } from "./DocsPage.ts"
import { SecurityHeaders } from "./SecurityHeaders.ts"

/**
 * The API's routes and its OpenAPI document, whose `info` carries the
 * Branding in context (brandedApi): read when the routes are built.
 */
export const ApiRoutes = Layer.unwrap(
  Effect.map(Branding, (branding) =>
    HttpApiBuilder.layer(brandedApi(branding), { openapiPath: "/openapi.json" })
  )
).pipe(Layer.provide(Handlers))

/**
 * The docs page, rendered from the same branded document (its title is the
 * OpenAPI title), with the Content-Security-Policy of what it loads and the
 * viewer's script as an asset of its own (DocsPage.ts).
 */
export const DocsRoute = Layer.unwrap(
  Effect.map(Branding, (branding) =>
    docsRoutes((scalar) => HttpApiScalar.layer(docsApi(branding), { path: "/docs", scalar }))
  )
)

/**
 * The API and its docs page. SecurityHeaders is provided, so built first: it
 * wraps the other global middleware and every route, the app's own (the
 * explorer, the MCP endpoint) included.
 */
export const allRoutes = Layer.mergeAll(ApiRoutes, DocsRoute, Cors, RouterFallbacks).pipe(
  Layer.provide(SecurityHeaders)
)

/**
 * What routes mounted beside the API's (`serve`'s `routes`) may use: the
 * router (a handler's failure is answered as the router answers any), the
 * server's rate limiter (the MCP endpoint draws its sessions from it), and
 * what the API's own handlers and its admission read (the domain's
 * services and the key store: the explorer's pages read through the same,
 * and admit their callers by the same step). The server's KeyMemo and ResponseCache are
 * there too when it has them, and its FallbackPages (read with `Effect.serviceOption`).
 */
export type RouteServices =
  | HttpRouter.HttpRouter
  | HttpRouter.Request<"Error", unknown>
  | RequestRateLimiter
  | ApiKeyRepository
  | Layer.Services<typeof ApiRoutes>

/** The configuration of the caller policies: where rate-limit counters live, and the limits. */
export type PoliciesConfig = RateLimitConfig

/**
 * The server side of CallerPolicies: for the caller authentication
 * established, the attribution (Attribution.ts, of the Branding in context), the cache headers
 * (Caching.ts) and the rate limit: the draw admission made (AdmittedDraw), enacted (its
 * headers, or its 429 or 503), in that order, so that a 429 is attributed and marked
 * no-store too. It also provides its RequestRateLimiter, which admission draws on (so that
 * failed credentials and anonymous requests share counters); with `countRefusals`, its
 * 429s are counted (Metrics.ts).
 */
export const layerCallerPolicies = (config: PoliciesConfig = {}, countRefusals = false) =>
  Layer.effect(
    CallerPolicies,
    Effect.gen(function* () {
      const limiter = yield* RequestRateLimiter
      const attribution = attributionHeadersOf(yield* Branding)
      return CallerPolicies.of((httpEffect) =>
        Effect.gen(function* () {
          const caller = yield* Effect.flatMap(HttpServerRequest.HttpServerRequest, currentCaller)
          yield* attribute(caller, attribution)
          yield* cacheHeaders(caller)
          // A caller established without admission (a middleware of a test's own) is drawn here.
          const drawn = yield* Effect.serviceOption(AdmittedDraw)
          yield* Option.isSome(drawn) ? limiter.enact(drawn.value) : limiter.check(caller)
          return yield* httpEffect
        })
      )
    })
  ).pipe(
    Layer.provideMerge(
      countRefusals ? countedLimiter(RequestRateLimiter.layer(config)) : RequestRateLimiter.layer(config)
    )
  )

/**
 * Builds the lane of cache hits and puts it in front of the server's router
 * (the front door, front/NodeServer.ts) until the layer closes. Its
 * ResponseCache is left out of the type's requirements: `serve` installs the
 * lane only when it has a response cache.
 */
const installHitLane = (server: () => NodeServer | undefined, log: AccessLog | undefined, metrics: boolean) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const lane = yield* HitLane
      const node = server()
      if (node === undefined) return
      node.lane = lane.serve
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          node.lane = undefined
        })
      )
    })
  ).pipe(Layer.provide(HitLane.layer(log, metrics))) as Layer.Layer<never, never, Admission>

/**
 * The response cache's recorder of complete answers (cache/Answers.ts), as
 * the outermost global middleware of the routes it is provided to; nothing
 * without a response cache.
 */
const RecordAnswers = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpRouter.HttpRouter
    const cache = yield* Effect.serviceOption(ResponseCache)
    if (cache._tag === "Some") yield* router.addGlobalMiddleware(cache.value.recorder)
  })
)

/**
 * Closing the layer drains the server (front/Drain.ts): no new
 * connections; requests in flight and their streamed bodies have `grace` to
 * finish; then what is still open is closed, and the handlers are told so
 * (ServerShutdown). It is built after the server and the routes, so it is
 * closed before them, and before anything the handlers use (the pool).
 */
const drainOnClose = (server: () => NodeServer | undefined, grace: Duration.Duration, onCut: () => void) =>
  Layer.effectDiscard(
    Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const node = server()
        if (node === undefined) return
        // The listener is closed as `drain` is called, so the line below is true when printed.
        const drained = yield* Effect.sync(() => drain(node, Duration.toMillis(grace), onCut))
        yield* Effect.logInfo(
          `stopping: no new connections; requests in flight have ${Duration.format(grace)} to finish`
        )
        const cut = yield* Effect.promise(() => drained)
        yield* Effect.logInfo(
          cut === 0
            ? "stopped: every request in flight finished"
            : `stopped: ${cut} connection(s) still open after ${Duration.format(grace)} were closed`
        )
      })
    )
  )

/**
 * Returns memory to the operating system when the server goes quiet after
 * serving requests (IdleMemory.ts; needs Node's `--expose-gc`), and says so
 * in the log.
 */
const releaseMemoryOnQuiet = (server: () => NodeServer | undefined, options: IdleMemoryOptions) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const node = server()
      if (node === undefined) return
      const context = yield* Effect.context<never>()
      const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`
      const stop = releaseMemoryWhenQuiet(node.gate, () => node.requestsStarted, {
        ...options,
        onRelease: (before, after) => {
          options.onRelease?.(before, after)
          Effect.runForkWith(context)(
            Effect.logInfo(`quiet: memory returned to the system (RSS ${mib(before)} -> ${mib(after)})`)
          )
        }
      })
      yield* Effect.addFinalizer(() => Effect.sync(stop))
    })
  )

/**
 * Logs, as a warning, what the server's connection limits report (an address
 * reaching its cap of open connections): `report` is set while the layer is
 * open, with the logger of the server's context.
 */
const logConnectionCaps = (report: { log: ((line: string) => void) | undefined }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      report.log = (line) => Effect.runForkWith(context)(Effect.logWarning(line))
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          report.log = undefined
        })
      )
    })
  )

/**
 * The server. With `responseCache` (ResponseCache.ts) the hot public reads are
 * served from already-encoded responses; without it every read is computed.
 * Closing it drains the requests in flight for at most `shutdownGrace`.
 * With `metrics`, requests are counted and timed and /metrics serves them
 * (Metrics.ts); without it, off: nothing of it is installed.
 */
export const serve = <E = never, R = never>(options: {
  readonly port: number
  readonly host?: string | undefined
  readonly auth?: AuthConfig | undefined
  readonly policies?: PoliciesConfig | undefined
  readonly responseCache?: Layer.Layer<ResponseCache, E, R> | undefined
  /** Without a response cache, the versions the key memo holds keys under (KeyMemo.ts); ignored with one. */
  readonly keyVersions?: Layer.Layer<KeyVersions, E, R> | undefined
  /**
   * More routes beside the API's (the app's explorer pages, the MCP endpoint);
   * a path among them with its own body limit goes in `connections.bodyLimits`.
   */
  readonly routes?: Layer.Layer<never, never, RouteServices> | undefined
  /** How long requests in flight may take to finish when the server stops; default 20 seconds. */
  readonly shutdownGrace?: Duration.Duration | undefined
  /** Prometheus metrics and GET /metrics; absent, off. */
  readonly metrics?: MetricsOptions | undefined
  /**
   * The lane of cache hits (HitLane.ts) in front of the router: on by
   * default with a response cache; its answers are counted in the request
   * metrics and traced like the router's.
   */
  readonly hitLane?: boolean | undefined
  /** Where the access log goes (AccessLog.ts); default standard output, `false` none. */
  readonly accessLog?: AccessLog | false | undefined
  /** Memory returned to the system when the server goes quiet (IdleMemory.ts); defaults as there. */
  readonly idleMemory?: IdleMemoryOptions | undefined
  /** The time a client has to send a request, and the connections it may hold (front/NodeServer.ts); defaults as there. */
  readonly connections?: Omit<ConnectionLimits, "onCapped"> | undefined
}) => {
  const grace = options.shutdownGrace ?? DefaultShutdownGrace
  let server: NodeServer | undefined
  let cutting = false
  const log = options.accessLog === false ? undefined : (options.accessLog ?? makeAccessLog())
  const laneOn = (options.hitLane ?? true) && options.responseCache !== undefined
  // One place for the routes' fallback pages: the app's routes leave theirs, the fallbacks answer with them.
  const app = (options.routes === undefined ? allRoutes : Layer.merge(allRoutes, options.routes)).pipe(
    Layer.provide(RecordAnswers),
    Layer.provide(FallbackPages.make())
  )
  const router = HttpRouter.serve(options.metrics === undefined ? app : withMetrics(app, options.metrics), {
    routerConfig: { maxParamLength: MaxPathParamLength },
    disableLogger: true,
    middleware: accessLogMiddleware(log)
  }).pipe(Layer.provide(layerAuthenticationOverAdmission))
  const withLane = laneOn
    ? Layer.merge(
        router,
        installHitLane(() => server, log, options.metrics !== undefined)
      )
    : router
  const caps: { log: ((line: string) => void) | undefined } = { log: undefined }
  const routes = Layer.mergeAll(
    withLane,
    releaseMemoryOnQuiet(() => server, options.idleMemory ?? {}),
    logConnectionCaps(caps)
  ).pipe(
    // One admission for both entrances, over one key memo.
    Layer.provide(Admission.layer(options.auth)),
    Layer.provide(KeyMemo.layer),
    Layer.provide(layerCallerPolicies(options.policies, options.metrics !== undefined)),
    Layer.provide(options.responseCache ?? options.keyVersions ?? (Layer.empty as Layer.Layer<never, E, R>)),
    Layer.provide(Layer.succeed(ServerShutdown, ServerShutdown.of({ cutting: () => cutting }))),
    Layer.provide(
      layerNodeServer(
        () => (server = createServer({ ...options.connections, onCapped: (line) => caps.log?.(line) })),
        {
          port: options.port,
          host: options.host ?? "0.0.0.0",
          // The drain above has closed the server by the time this applies; a bound, not the mechanism.
          gracefulShutdownTimeout: grace
        }
      )
    )
  )
  return drainOnClose(
    () => server,
    grace,
    () => {
      cutting = true
    }
  ).pipe(Layer.provide(routes))
}
