/**
 * The request metrics (Metrics.ts) over a small router: with `withMetrics`
 * each request is counted under its route template, method and final status
 * (an unmatched path is `unmatched`); without it (metrics off, the default)
 * a request leaves the metric registry untouched. Rate-limit refusals are
 * counted by caller kind; with a shared store, whether it answers and what
 * each limit decided without it are read from the limiter at each scrape.
 */
import { assert, describe, it } from "@effect/vitest"
import { Caller, type CallerKind, callerKind } from "@ratings/domain/model/Caller"
import { Effect, Layer, Metric } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { failingLimiter } from "./FakeStores.ts"
import { Authentication } from "../src/api/Authentication.ts"
import { CurrentCaller } from "../src/api/CurrentCaller.ts"
import { RateLimitedError, ServiceUnavailableError } from "../src/api/Errors.ts"
import { countRefusals, RateLimitRefusals, withMetrics } from "../src/server/Metrics.ts"
import { enact } from "../src/server/limits/Allowances.ts"
import { type Allowance, RequestRateLimiter } from "../src/server/limits/RateLimit.ts"

const Items = HttpRouter.add("GET", "/items/:id", Effect.succeed(HttpServerResponse.text("item")))

const AdminAuthentication = Layer.succeed(
  Authentication,
  Authentication.of({
    bearer: (effect) => Effect.provideService(effect, CurrentCaller, Caller.admin("ops", "admin"))
  })
)

const handlerOf = (
  metrics: boolean,
  registry: Metric.MetricRegistry,
  limiter: Layer.Layer<never> | Layer.Layer<RequestRateLimiter> = Layer.empty
) =>
  HttpRouter.toWebHandler(
    (metrics ? withMetrics(Items, {}) : Items).pipe(
      Layer.provide(AdminAuthentication),
      Layer.provide(limiter),
      Layer.provide(Layer.succeed(Metric.MetricRegistry, registry))
    ),
    { disableLogger: true }
  )

const request = (handler: (r: Request) => Promise<Response>, path: string) =>
  Effect.promise(async () => {
    const response = await handler(new Request(`http://localhost${path}`))
    return { status: response.status, body: await response.text() }
  })

describe("request metrics", () => {
  it.effect("off: a request does no metric work (the registry stays empty)", () =>
    Effect.gen(function* () {
      const registry: Metric.MetricRegistry = new Map()
      const { handler, dispose } = handlerOf(false, registry)
      const answer = yield* request(handler, "/items/42")
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(registry.size, 0)
      yield* Effect.promise(dispose)
    })
  )

  it.effect("on: counted by route template and status, never by raw path", () =>
    Effect.gen(function* () {
      const registry: Metric.MetricRegistry = new Map()
      const { handler, dispose } = handlerOf(true, registry)
      yield* request(handler, "/items/42")
      yield* request(handler, "/items/43")
      yield* request(handler, "/nowhere")
      const metrics = yield* request(handler, "/metrics")
      assert.strictEqual(metrics.status, 200)
      assert.include(metrics.body, 'http_requests_total{route="/items/:id",method="GET",status="200"} 2')
      assert.match(metrics.body, /http_requests_total\{route="unmatched",method="GET",status="\d{3}"\} 1/)
      assert.include(
        metrics.body,
        'http_request_duration_seconds_count{route="/items/:id",method="GET",status="200"} 2'
      )
      assert.notInclude(metrics.body, "/items/42")
      yield* Effect.promise(dispose)
    })
  )

  it.effect("rate-limit refusals are counted by caller kind", () =>
    Effect.gen(function* () {
      const refused = (kind: CallerKind): Allowance => ({
        _tag: "Denied",
        error: new RateLimitedError({ detail: { error: "rate_limited", retry_after: 1 } }),
        headers: {},
        kind
      })
      const limiter = countRefusals({
        drawRequest: (caller: Caller) => refused(callerKind(caller)),
        readFailedCredentials: () => ({ _tag: "Allowed", headers: {} }),
        drawFailedCredential: () => refused("anonymous"),
        enact
      } as unknown as RequestRateLimiter["Service"])
      yield* Effect.exit(limiter.check(Caller.apiKey("pro", "acct", "key")))
      yield* Effect.exit(limiter.countFailedCredential("10.0.0.1"))
      yield* Effect.exit(limiter.admitCredential("10.0.0.1"))
      const pro = yield* Metric.value(Metric.withAttributes(RateLimitRefusals, { kind: "pro" }))
      const anonymous = yield* Metric.value(Metric.withAttributes(RateLimitRefusals, { kind: "anonymous" }))
      assert.strictEqual(pro.count, 1)
      assert.strictEqual(anonymous.count, 1)
      // A decision made ahead (the lane's) and enacted by the router is counted as it is answered.
      yield* Effect.exit(limiter.enact(refused("free")))
      const free = yield* Metric.value(Metric.withAttributes(RateLimitRefusals, { kind: "free" }))
      assert.strictEqual(free.count, 1)
      // A 503 of a limit failing closed is no refusal of the caller's rate.
      const unavailable = countRefusals({
        drawContact: () => ({
          _tag: "Denied",
          error: ServiceUnavailableError.instance,
          headers: {},
          kind: "anonymous"
        }),
        enact
      } as unknown as RequestRateLimiter["Service"])
      yield* Effect.exit(unavailable.checkContact("10.0.0.1"))
      const after = yield* Metric.value(Metric.withAttributes(RateLimitRefusals, { kind: "anonymous" }))
      assert.strictEqual(after.count, 1)
    }).pipe(
      Effect.provideService(Metric.MetricRegistry, new Map()),
      Effect.provideService(
        HttpServerRequest.HttpServerRequest,
        HttpServerRequest.fromWeb(new Request("http://localhost/"))
      )
    )
  )

  it.effect(
    "with a shared store (issue 23 point 10): ratings_rate_limit_store_up is 0 during an outage, and the requests each limit decided without the store are counted (admitted or refused)",
    () =>
      Effect.gen(function* () {
        const limiter = yield* RequestRateLimiter.make({}).pipe(Effect.provide(failingLimiter))
        const incoming = HttpServerRequest.fromWeb(new Request("http://localhost/"))
        const asRequest = <A, E>(effect: Effect.Effect<A, E, HttpServerRequest.HttpServerRequest>) =>
          Effect.exit(Effect.provideService(effect, HttpServerRequest.HttpServerRequest, incoming))
        for (let i = 0; i < 3; i++) yield* asRequest(limiter.check(Caller.anonymous("10.0.0.1")))
        yield* asRequest(limiter.checkContact("10.0.0.1"))
        const registry: Metric.MetricRegistry = new Map()
        const { handler, dispose } = handlerOf(true, registry, Layer.succeed(RequestRateLimiter, limiter))
        const metrics = yield* request(handler, "/metrics")
        assert.strictEqual(metrics.status, 200)
        assert.include(metrics.body, "ratings_rate_limit_store_up 0")
        assert.include(
          metrics.body,
          'ratings_rate_limit_store_decisions_total{limit="requests",decision="admitted"} 3'
        )
        assert.include(
          metrics.body,
          'ratings_rate_limit_store_decisions_total{limit="contacts",decision="refused"} 1'
        )
        yield* Effect.promise(dispose)
      })
  )

  it.effect("with the memory store, which cannot fail, there is no store gauge", () =>
    Effect.gen(function* () {
      const registry: Metric.MetricRegistry = new Map()
      const { handler, dispose } = handlerOf(true, registry, Layer.orDie(RequestRateLimiter.layer({})))
      const metrics = yield* request(handler, "/metrics")
      assert.strictEqual(metrics.status, 200)
      assert.notInclude(metrics.body, "ratings_rate_limit_store_up")
      yield* Effect.promise(dispose)
    })
  )
})
