/**
 * The real HTTP server of the ratings API on an ephemeral port, for tests. It
 * serves the production routes (AllRoutes) over whatever port layers it is
 * given: the domain's in-memory stores here, the Postgres repositories later.
 *
 * TEST ONLY: the caller is taken from the `x-test-caller` header (anonymous,
 * free, pro, enterprise, admin) by a router middleware that provides
 * CurrentCaller. Authentication is not part of these routes yet; the
 * production wiring has no such header.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import type { Caller } from "@ratings/domain/model/Caller"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { CurrentCaller } from "../src/api/CurrentCaller.ts"
import { AllRoutes } from "../src/server/HttpServerLive.ts"
import { type CallerName, Callers5, Seed } from "./fixtures.ts"

export const TestCallerHeader = "x-test-caller"

/** The default test-only caller: the `x-test-caller` header names one of the fixture callers. */
export const callerFromTestHeader = (request: HttpServerRequest.HttpServerRequest): Caller | undefined => {
  const name = request.headers[TestCallerHeader]
  return name !== undefined && Object.hasOwn(Callers5, name) ? Callers5[name as CallerName] : undefined
}

const testCallers = (callerOf: (request: HttpServerRequest.HttpServerRequest) => Caller | undefined) =>
  HttpRouter.middleware(
    (effect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const caller = callerOf(request)
        return caller === undefined ? effect : Effect.provideService(effect, CurrentCaller, caller)
      }),
    { global: true }
  )

export type Ports = EntityRepository | ScorecardRepository | RubricRepository

export interface Response {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown
}

export class TestServer extends Context.Service<
  TestServer,
  {
    readonly baseUrl: string
    readonly get: (
      path: string,
      options?: { readonly caller?: CallerName | undefined }
    ) => Effect.Effect<Response>
  }
>()("@ratings/adapters-http/test/TestServer") {
  /** The server over the given port layers. */
  static readonly layer = <E, R>(
    ports: Layer.Layer<Ports, E, R>,
    options: { readonly callerOf?: (request: HttpServerRequest.HttpServerRequest) => Caller | undefined } = {}
  ) =>
    Layer.effect(
      TestServer,
      Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const address = server.address
        if (address._tag !== "InetAddressV4") return yield* Effect.die("the test server listens on 127.0.0.1")
        const baseUrl = `http://127.0.0.1:${address.port}`
        const get = (path: string, opts: { readonly caller?: CallerName | undefined } = {}) =>
          Effect.promise(async (): Promise<Response> => {
            const headers: Record<string, string> = { accept: "application/json" }
            if (opts.caller !== undefined) headers[TestCallerHeader] = opts.caller
            const response = await fetch(baseUrl + path, { headers })
            const text = await response.text()
            let json: unknown
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            return { status: response.status, headers: response.headers, text, json }
          })
        return TestServer.of({ baseUrl, get })
      })
    ).pipe(
      Layer.provide(
        HttpRouter.serve(Layer.mergeAll(AllRoutes, testCallers(options.callerOf ?? callerFromTestHeader)), {
          disableLogger: true,
          disableListenLog: true
        })
      ),
      Layer.provide(Layer.merge(RatingsReader.layer, Scoring.layer).pipe(Layer.provide(ports))),
      Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )

  /** The server over the domain's in-memory stores, seeded with the fixtures. */
  static readonly layerMemory = (seed = Seed) =>
    TestServer.layer(
      Layer.mergeAll(
        EntityRepository.layerMemory(seed.entities),
        ScorecardRepository.layerMemory({ scorecards: seed.scorecards, history: seed.history }),
        RubricRepository.layerMemory(seed.questions)
      )
    )
}
