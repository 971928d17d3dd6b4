/**
 * Prometheus metrics of the HTTP server, installed only with `serve`'s
 * `metrics` option: per request `http_requests_total` and
 * `http_request_duration_seconds` by route template, method and status (the
 * lane of cache hits records into the same series); 429s by caller kind; the
 * shared rate-limit store's health; cache hits and misses and the app's own
 * gauges, read at scrape. `GET /metrics` answers an admin JWT or the metrics
 * token (constant-time compare) in the Prometheus text format, never cached,
 * outside the API's contract and rate limits (a failed credential counts).
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer, Metric, Option, Redacted } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { Authentication, InvalidKeyError, InvalidTokenError } from "../api/Authentication.ts"
import { CurrentCaller } from "../api/CurrentCaller.ts"
import { RateLimitedError, ServiceUnavailableError } from "../api/Errors.ts"
import {
  type Allowance,
  effectsOf,
  type Enact,
  LimitKindLabels,
  LimitKinds,
  RequestRateLimiter
} from "./limits/RateLimit.ts"
import { ResponseCache } from "./cache/ResponseCache.ts"

export interface MetricsOptions {
  /** A bearer token that may read /metrics besides an admin JWT; absent: admin JWTs only. */
  readonly token?: Redacted.Redacted<string> | undefined
  /** Run before each scrape, to refresh gauges read from elsewhere (the webhook queue depth). */
  readonly beforeScrape?: Effect.Effect<void> | undefined
}

export const MetricsPath = "/metrics"

/** The label of a request no route matched. */
export const UnmatchedRoute = "unmatched"

export const HttpRequests = Metric.counter("http_requests_total", {
  description: "HTTP requests answered, by route template, method and status",
  incremental: true
})

export const HttpRequestDuration = Metric.histogram("http_request_duration_seconds", {
  description: "Time to the response head, by route template, method and status",
  boundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})

export const RateLimitRefusals = Metric.counter("ratings_rate_limit_refusals_total", {
  description: "Requests refused with 429 by the rate limiter, by caller kind",
  incremental: true
})

export const RateLimitStoreUp = Metric.gauge("ratings_rate_limit_store_up", {
  description:
    "1 while the shared rate-limit store (Redis) answers, 0 during an outage; absent without a shared store"
})

export const RateLimitStoreDecisions = Metric.counter("ratings_rate_limit_store_decisions_total", {
  description:
    "Requests a rate limit decided without its store during an outage, by limit and by decision: " +
    "admitted (the limit fails open) or refused with 503 (it fails closed)",
  incremental: true
})

export const ResponseCacheHits = Metric.counter("ratings_response_cache_hits_total", {
  description: "Reads served from the response cache",
  incremental: true
})

export const ResponseCacheMisses = Metric.counter("ratings_response_cache_misses_total", {
  description: "Cacheable reads computed because the response cache had no current entry",
  incremental: true
})

const Methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * The matched route's template, written by the route (which alone sees the
 * router's RouteContext) into the holder the request's outer middleware made.
 */
class MatchedRoute extends Context.Service<MatchedRoute, { route: string }>()(
  "@ratings/adapters-http/MatchedRoute"
) {}

/** Per route: notes the route's template for the request's outer middleware. */
const noteRoute = HttpRouter.middleware((httpEffect) =>
  Effect.withFiber((fiber) => {
    const holder = Context.getOrUndefined(fiber.context, MatchedRoute)
    const matched = Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)
    if (holder !== undefined && matched !== undefined) holder.route = matched.route.path
    return httpEffect
  })
)

/** The series of one (route, method, status), made once and reused. */
const seriesOf =
  (cache: Map<string, readonly [Metric.Counter<number>, Metric.Histogram<number>]>) =>
  (route: string, method: string, status: number) => {
    const key = `${method} ${status} ${route}`
    let series = cache.get(key)
    if (series === undefined) {
      const attributes = { route, method, status: String(status) }
      series = [
        Metric.withAttributes(HttpRequests, attributes),
        Metric.withAttributes(HttpRequestDuration, attributes)
      ]
      cache.set(key, series)
    }
    return series
  }

/**
 * Records one answered request (route template, method, status, time since
 * `started`, a `performance.now()` reading): shared by the router's request
 * middleware and the lane of cache hits, so both count in the same series.
 */
export class RequestMetrics extends Context.Service<
  RequestMetrics,
  { readonly record: (route: string, method: string, status: number, started: number) => void }
>()("@ratings/adapters-http/RequestMetrics") {
  static readonly make = Effect.gen(function* () {
    const context = yield* Effect.context<never>()
    const series = seriesOf(new Map())
    return RequestMetrics.of({
      record: (route, method, status, started) => {
        const [count, duration] = series(route, Methods.has(method) ? method : "OTHER", status)
        count.updateUnsafe(1, context)
        duration.updateUnsafe((performance.now() - started) / 1000, context)
      }
    })
  })
}

/**
 * Outermost on the router: times every request and counts it under its
 * route template and final status (a failure's status is the response it is
 * answered with).
 */
const requestMetrics = HttpRouter.middleware(
  Effect.gen(function* () {
    const metrics = yield* RequestMetrics.make
    return (httpEffect) =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const holder = { route: UnmatchedRoute }
        const started = performance.now()
        const record = (status: number) => metrics.record(holder.route, request.method, status, started)
        return Effect.provideService(httpEffect, MatchedRoute, holder).pipe(
          Effect.onExit((exit) =>
            exit._tag === "Success"
              ? Effect.sync(() => record(exit.value.status))
              : Effect.map(HttpServerError.causeResponse(exit.cause), ([response]) => record(response.status))
          )
        )
      })
  }),
  { global: true }
)

/**
 * The rate limiter with its refusals counted by caller kind (failed
 * credentials, coverage requests and MCP sessions count as anonymous): every
 * decision is enacted through `enact`, which counts a 429 as it answers it.
 */
export const countRefusals = (limiter: RequestRateLimiter["Service"]): RequestRateLimiter["Service"] => {
  // A 429 only: a 503 of a limit failing closed is counted by the limiter (ratings_rate_limit_store_decisions_total).
  const enact = (<E>(allowance: Allowance<E>) =>
    allowance._tag === "Denied" && allowance.error instanceof RateLimitedError
      ? Effect.andThen(
          Metric.update(Metric.withAttributes(RateLimitRefusals, { kind: allowance.kind }), 1),
          limiter.enact(allowance)
        )
      : limiter.enact(allowance)) as Enact
  const steps = { ...limiter, enact }
  return RequestRateLimiter.of({ ...steps, ...effectsOf(steps) })
}

const digest = (value: string) => createHash("sha256").update(value).digest()

/** Whether the request carries `Bearer <token>`; constant time in the token's content. */
const bearsToken = (authorization: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const sent = /^Bearer +([^\s]+) *$/i.exec(authorization ?? "")?.[1]
  return sent !== undefined && timingSafeEqual(digest(sent), digest(Redacted.value(token)))
}

const json = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })

const AdminRequired = { detail: { error: "admin_required" } }

/** The status of an error authentication fails with (as its HttpApi error schema says). */
const statusOfAuthError = (error: unknown): number | undefined =>
  error instanceof InvalidKeyError || error instanceof InvalidTokenError
    ? 401
    : error instanceof RateLimitedError
      ? 429
      : error instanceof ServiceUnavailableError
        ? 503
        : undefined

/**
 * `respond` for the metrics token or an admin JWT (through the API's own
 * authentication); the API's JSON error bodies for anyone else.
 */
const authorised = (
  auth: Authentication["Service"],
  token: Redacted.Redacted<string> | undefined,
  respond: Effect.Effect<HttpServerResponse.HttpServerResponse>
) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (token !== undefined && bearsToken(request.headers.authorization, token)) return yield* respond
    // The server's bearer reads the request's Authorization header itself (Authentication.ts), not these options.
    return yield* auth.bearer(
      Effect.flatMap(CurrentCaller, (caller) =>
        caller._tag === "Admin"
          ? respond
          : Effect.succeed(
              caller._tag === "Anonymous"
                ? HttpServerResponse.setHeader(json(401, AdminRequired), "www-authenticate", "Bearer")
                : json(403, AdminRequired)
            )
      ),
      undefined as never
    )
  }).pipe(
    Effect.catch((error: unknown) => {
      const status = statusOfAuthError(error)
      return status === undefined
        ? Effect.fail(error)
        : Effect.succeed(json(status, { detail: (error as { readonly detail: unknown }).detail }))
    }),
    Effect.map((response) => HttpServerResponse.setHeader(response, "cache-control", "no-store"))
  )

/** Folds a monotonic count read from elsewhere into a counter, by its growth since the last scrape. */
const follow = (counter: Metric.Counter<number>) => {
  let last = 0
  return (current: number) => {
    const delta = current >= last ? current - last : current
    last = current
    return Metric.update(counter, delta)
  }
}

const metricsRoute = (options: MetricsOptions) =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      const auth = yield* Authentication
      const cache = yield* Effect.serviceOption(ResponseCache)
      // The registry the request middleware writes to (the layer's), read and refreshed here too.
      const registry = yield* Metric.MetricRegistry
      const context = yield* Effect.context<never>()
      const limiter = yield* Effect.serviceOption(RequestRateLimiter)
      const hits = follow(ResponseCacheHits)
      const misses = follow(ResponseCacheMisses)
      const decisions = LimitKinds.map((kind) => {
        const series = (decision: string) =>
          follow(Metric.withAttributes(RateLimitStoreDecisions, { limit: LimitKindLabels[kind], decision }))
        return { kind, admitted: series("admitted"), refused: series("refused") }
      })
      const refresh = Effect.gen(function* () {
        if (Option.isSome(cache)) {
          const stats = yield* cache.value.stats
          yield* hits(stats.hits)
          yield* misses(stats.misses)
        }
        const store = Option.isSome(limiter) ? limiter.value.storeStatus() : undefined
        if (store !== undefined) {
          yield* Metric.update(RateLimitStoreUp, store.reachable ? 1 : 0)
          for (const { kind, admitted, refused } of decisions) {
            yield* admitted(store.decidedWithoutStore[kind].admitted)
            yield* refused(store.decidedWithoutStore[kind].refused)
          }
        }
        if (options.beforeScrape !== undefined) yield* options.beforeScrape
      })
      yield* router.add(
        "GET",
        MetricsPath,
        authorised(
          auth,
          options.token,
          Effect.gen(function* () {
            yield* Effect.provideService(refresh, Metric.MetricRegistry, registry)
            return HttpServerResponse.text(PrometheusMetrics.formatUnsafe(context), {
              contentType: "text/plain; version=0.0.4; charset=utf-8"
            })
          })
        )
      )
    })
  )

/**
 * Metrics over the routes `app` registers (given /metrics beside them): each
 * route notes its template, and the request middleware is registered before
 * any other global middleware (CORS, the router fallbacks), so it is the
 * outermost and sees the status each request is finally answered with.
 */
export const withMetrics = <E, R>(
  app: Layer.Layer<never, E, R>,
  options: MetricsOptions
): Layer.Layer<never, E, Exclude<R, HttpRouter.HttpRouter> | HttpRouter.HttpRouter | Authentication> =>
  Layer.merge(app, metricsRoute(options)).pipe(
    Layer.provide(noteRoute.layer),
    Layer.provide(requestMetrics)
  ) as never

/** A limiter layer whose refusals are counted, over the limiter `limiterLayer` provides. */
export const countedLimiter = <E, R>(limiterLayer: Layer.Layer<RequestRateLimiter, E, R>) =>
  Layer.effect(
    RequestRateLimiter,
    Effect.gen(function* () {
      return countRefusals(yield* RequestRateLimiter)
    })
  ).pipe(Layer.provide(limiterLayer))
