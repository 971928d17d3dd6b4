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
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { CallerPolicies, RatingsApi } from "../api/Api.ts"
import { attribute } from "./Attribution.ts"
import type { AuthConfig } from "./AuthConfig.ts"
import { layerAuthentication } from "./Authentication.ts"
import { cacheHeaders } from "./Caching.ts"
import { Cors } from "./Cors.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { Handlers } from "./Handlers.ts"
import { type RateLimitConfig, RequestRateLimiter } from "./RateLimit.ts"
import { createServer } from "./NodeServer.ts"
import { MaxPathParamLength, RouterFallbacks } from "./RouterFallbacks.ts"
import type { ResponseCache } from "./ResponseCache.ts"

export const ApiRoutes = HttpApiBuilder.layer(RatingsApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide(Handlers)
)

export const DocsRoute = HttpApiScalar.layer(RatingsApi, { path: "/docs" })

export const AllRoutes = Layer.mergeAll(ApiRoutes, DocsRoute, Cors, RouterFallbacks)

/** The configuration of the caller policies: where rate-limit counters live, and the limits. */
export type PoliciesConfig = RateLimitConfig

/**
 * The server side of CallerPolicies: for the caller authentication
 * established, the attribution (Attribution.ts), the cache headers
 * (Caching.ts) and the rate limit (RateLimit.ts), in that order, so that a
 * 429 is attributed and marked no-store too. It also provides its
 * RequestRateLimiter, which authentication uses to count failed credentials.
 */
export const layerCallerPolicies = (config: PoliciesConfig = {}) =>
  Layer.effect(
    CallerPolicies,
    Effect.gen(function* () {
      const limiter = yield* RequestRateLimiter
      return CallerPolicies.of((httpEffect) =>
        Effect.gen(function* () {
          const caller = yield* Effect.flatMap(HttpServerRequest.HttpServerRequest, currentCaller)
          yield* attribute(caller)
          yield* cacheHeaders(caller)
          yield* limiter.check(caller)
          return yield* httpEffect
        })
      )
    })
  ).pipe(Layer.provideMerge(RequestRateLimiter.layer(config)))

/**
 * The server. With `responseCache` (ResponseCache.ts) the hot public reads are
 * served from already-encoded responses; without it every read is computed.
 */
export const serve = <E = never, R = never>(options: {
  readonly port: number
  readonly host?: string | undefined
  readonly auth?: AuthConfig | undefined
  readonly policies?: PoliciesConfig | undefined
  readonly responseCache?: Layer.Layer<ResponseCache, E, R> | undefined
  /** More routes beside the API's (the app's dashboard page). */
  readonly routes?: Layer.Layer<never, never, HttpRouter.HttpRouter> | undefined
}) =>
  HttpRouter.serve(options.routes === undefined ? AllRoutes : Layer.merge(AllRoutes, options.routes), {
    routerConfig: { maxParamLength: MaxPathParamLength }
  }).pipe(
    Layer.provide(layerAuthentication(options.auth)),
    Layer.provide(layerCallerPolicies(options.policies)),
    Layer.provide(options.responseCache ?? (Layer.empty as Layer.Layer<never, E, R>)),
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host ?? "0.0.0.0" }))
  )
