/**
 * `/ready` (issue 13 point 12): readiness for load balancers beside the
 * `/health` liveness. 200 `{"status": "ready"}` when the database answers a
 * `SELECT 1` (the Readiness port) within a short timeout, else 503 with a
 * JSON detail that shows nothing of the failure or the configuration; never
 * cached, and outside the request rate limit (like /health, only failed
 * credentials are counted there).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Readiness } from "@ratings/domain/ports/Readiness"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer } from "effect"
import { NotReadyReasons, ReadinessTimeoutSeconds } from "../src/api/SystemApi.ts"
import { Seed } from "./fixtures.ts"
import { TestServer } from "./TestServer.ts"

const probe = (check: Effect.Effect<void, StoreError>) => Layer.succeed(Readiness, { check })

const getReady = Effect.gen(function* () {
  const server = yield* TestServer
  const response = yield* server.get("/ready")
  return {
    status: response.status,
    cache: response.headers.get("cache-control"),
    body: response.json
  }
})

describe("/ready", () => {
  layer(
    TestServer.layerMemory(Seed, {
      policies: { limits: { anonymous: [{ limit: 1, window: "1 minute" }] } }
    }).pipe(Layer.provide(probe(Effect.void))),
    { excludeTestServices: true }
  )("while the database answers (anonymous callers limited to 1 request a minute)", (it) => {
    it.effect("/ready is 200 {status: ready}, not cacheable, and outside the request rate limit", () =>
      Effect.gen(function* () {
        for (let i = 0; i < 5; i++) {
          const ready = yield* getReady
          assert.deepStrictEqual(ready, { status: 200, cache: "no-store", body: { status: "ready" } })
        }
        const server = yield* TestServer
        const response = yield* server.get("/ready")
        assert.isNull(response.headers.get("ratelimit-limit"))
        assert.strictEqual((yield* server.get("/api/v1/protocols")).status, 200, "the probes used none of it")
        assert.strictEqual((yield* server.get("/api/v1/protocols")).status, 429, "the limit is in force")
      })
    )

    it.effect(
      "/ready is in the OpenAPI document: 200 ReadyBody, 503 NotReadyBody, a 429 only as /health's",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* server.get("/openapi.json")
          // biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked untyped
          const openapi: any = response.json
          const responses = openapi.paths["/ready"].get.responses
          assert.strictEqual(
            responses["200"].content["application/json"].schema.$ref,
            "#/components/schemas/ReadyBody"
          )
          // Beside the 503 the authentication middleware may answer (its key store down).
          const unavailable = responses["503"].content["application/json"].schema
          assert.include(
            (unavailable.anyOf ?? [unavailable]).map((s: { $ref: string }) => s.$ref),
            "#/components/schemas/NotReadyBody"
          )
          // Failed credentials are limited on every route; the request rate is not on the probes.
          assert.deepStrictEqual(responses["429"], openapi.paths["/health"].get.responses["429"])
        })
    )
  })

  layer(
    TestServer.layerMemory().pipe(
      Layer.provide(
        probe(Effect.fail(new StoreError({ message: "connect ECONNREFUSED 10.1.2.3:5432 (db.internal)" })))
      )
    ),
    { excludeTestServices: true }
  )("when the database is unreachable", (it) => {
    it.effect(
      "/ready is 503 with a JSON detail that shows nothing of the failure, and /health stays 200",
      () =>
        Effect.gen(function* () {
          const ready = yield* getReady
          assert.deepStrictEqual(ready, {
            status: 503,
            cache: "no-store",
            body: { detail: NotReadyReasons[0] }
          })
          assert.notInclude(JSON.stringify(ready.body), "10.1.2.3")
          const server = yield* TestServer
          assert.strictEqual((yield* server.get("/health")).status, 200)
        })
    )
  })

  layer(TestServer.layerMemory().pipe(Layer.provide(probe(Effect.never))), { excludeTestServices: true })(
    "when the database does not answer",
    (it) => {
      it.effect(`/ready is 503 after ${ReadinessTimeoutSeconds} seconds, not a hang`, () =>
        Effect.gen(function* () {
          const started = Date.now()
          const ready = yield* getReady
          const took = Date.now() - started
          assert.deepStrictEqual(ready, {
            status: 503,
            cache: "no-store",
            body: { detail: NotReadyReasons[1] }
          })
          assert.isAtLeast(took, ReadinessTimeoutSeconds * 1_000 - 100)
          assert.isBelow(took, ReadinessTimeoutSeconds * 1_000 + 3_000)
        })
      )
    }
  )
})
