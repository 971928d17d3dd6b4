/**
 * The real HTTP server of the ratings API on an ephemeral port, for tests. It
 * serves the production routes (AllRoutes) over whatever port layers it is
 * given: the domain's in-memory stores here, the Postgres repositories later.
 *
 * Callers authenticate for real, through the production Authentication
 * middleware: the server seeds one API key per tier in an ApiKeyRepository
 * (in memory unless given) and trusts a test identity provider (a generated
 * ES256 key pair) for admin JWTs. `get(path, { caller: "pro" })` sends the pro
 * key as `Authorization: Bearer`; there is no test-only way in.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { type AdminRole, type Caller, type KeyTier, KeyTiers } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Context, Effect, Layer, Logger, References } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { Authentication } from "../src/api/Authentication.ts"
import { CurrentCaller } from "../src/api/CurrentCaller.ts"
import type { AuthConfig } from "../src/server/AuthConfig.ts"
import { displayPrefix, generateApiKey, hashApiKey } from "../src/server/ApiKeyCrypto.ts"
import { layerAuthentication } from "../src/server/Authentication.ts"
import { type DevKeyPair, generateDevKeyPair, mintDevAdminToken } from "../src/server/DevToken.ts"
import { AllRoutes, layerCallerPolicies, type PoliciesConfig } from "../src/server/HttpServerLive.ts"
import { type CallerName, Callers5, Seed } from "./fixtures.ts"

export type Ports = EntityRepository | ScorecardRepository | RubricRepository

export interface Response {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown
}

export interface GetOptions {
  /** A fixture caller: its real key or admin token is sent. */
  readonly caller?: CallerName | undefined
  /** A raw Authorization header, sent as is (wins over `caller`). */
  readonly authorization?: string | undefined
  readonly headers?: { readonly [name: string]: string } | undefined
}

/** The test identity provider: the key pair the server trusts, and its names. */
export interface TestIdp extends DevKeyPair {
  readonly issuer: string
  readonly audience: string
}

export const TestIssuer = "https://idp.ratings.test"
export const TestAudience = "ratings-api"

/** The fixture key of each tier carries the ids of the fixture caller of that name. */
const fixtureKeyOf = (tier: KeyTier) => {
  const caller = Callers5[tier]
  if (caller._tag !== "ApiKey") throw new Error(`fixture caller ${tier} is not an API key`)
  return { id: caller.key_id, account_id: caller.account_id }
}

/** Rate limits far above what any test sends, so that only the rate-limit tests meet a 429. */
const Unreached = [{ limit: 1_000_000, window: "1 minute" }] as const
export const TestPolicies: PoliciesConfig = {
  limits: { anonymous: Unreached, free: Unreached, pro: Unreached, enterprise: Unreached, admin: Unreached }
}

export interface TestServerOptions {
  /** The authentication configuration, given the test identity provider; by default it trusts its public key. */
  readonly auth?: ((idp: TestIdp) => AuthConfig) | undefined
  /** The key store; by default the domain's in-memory one. */
  readonly apiKeys?: Layer.Layer<ApiKeyRepository> | undefined
  /** Receives every log line of the server, request logs included, at every level. */
  readonly logger?: Logger.Logger<unknown, unknown> | undefined
  /** Rate-limit store and limits; by default in memory, with limits no test reaches (TestPolicies). */
  readonly policies?: PoliciesConfig | undefined
}

export class TestServer extends Context.Service<
  TestServer,
  {
    readonly baseUrl: string
    readonly get: (path: string, options?: GetOptions) => Effect.Effect<Response>
    /** The `Authorization` value of a fixture caller (undefined for anonymous). */
    readonly bearerFor: (caller: CallerName) => string | undefined
    /** A new key of a tier in the server's store; returns the key in clear, as `ratings keys create` prints it. */
    readonly createKey: (
      tier: KeyTier,
      ids?: { readonly id?: string; readonly account_id?: string }
    ) => Effect.Effect<{ readonly key: string; readonly id: string }>
    readonly keys: ApiKeyRepository["Service"]
    readonly idp: TestIdp
    /** A token of the test identity provider for an admin role. */
    readonly adminToken: (role: AdminRole, subject?: string) => Effect.Effect<string>
    /** Every caller the middleware established, oldest first. */
    readonly callers: () => ReadonlyArray<Caller>
  }
>()("@ratings/adapters-http/test/TestServer") {
  /** The server over the given port layers. */
  static readonly layer = <E, R>(ports: Layer.Layer<Ports, E, R>, options: TestServerOptions = {}) =>
    Layer.unwrap(
      Effect.sync(() => {
        const idp: TestIdp = { ...generateDevKeyPair(), issuer: TestIssuer, audience: TestAudience }
        const auth: AuthConfig = options.auth?.(idp) ?? {
          jwt: { publicKey: idp.publicKeyPem, issuer: idp.issuer, audience: idp.audience }
        }
        const seen: Array<Caller> = []
        // The real middleware, observed: the handler effect it wraps first records the caller it provides.
        const observed = Layer.effect(
          Authentication,
          Effect.gen(function* () {
            const real = yield* Authentication
            return Authentication.of({
              bearer: (httpEffect, context) =>
                real.bearer(
                  Effect.flatMap(CurrentCaller, (caller) => {
                    seen.push(caller)
                    return httpEffect
                  }),
                  context
                )
            })
          })
        ).pipe(Layer.provide(layerAuthentication(auth)))
        const keysLayer = options.apiKeys ?? ApiKeyRepository.layerMemory
        const logging =
          options.logger === undefined
            ? Layer.empty
            : Layer.merge(Logger.layer([options.logger]), Layer.succeed(References.MinimumLogLevel, "All"))

        const service = Effect.gen(function* () {
          const server = yield* HttpServer.HttpServer
          const keys = yield* ApiKeyRepository
          const address = server.address
          if (address._tag !== "InetAddressV4")
            return yield* Effect.die("the test server listens on 127.0.0.1")
          const baseUrl = `http://127.0.0.1:${address.port}`

          const createKey = (
            tier: KeyTier,
            ids: { readonly id?: string; readonly account_id?: string } = {}
          ) =>
            Effect.gen(function* () {
              const key = generateApiKey()
              const id = ids.id ?? crypto.randomUUID()
              yield* Effect.orDie(
                keys.create({
                  id,
                  name: `test ${tier} key`,
                  tier,
                  account_id: ids.account_id ?? crypto.randomUUID(),
                  prefix: displayPrefix(key),
                  hash: hashApiKey(key),
                  created_at: new Date().toISOString()
                })
              )
              return { key, id }
            })

          const adminToken = (role: AdminRole, subject = "ops@example") =>
            Effect.orDie(
              mintDevAdminToken({
                privateKeyPem: idp.privateKeyPem,
                issuer: idp.issuer,
                audience: idp.audience,
                subject,
                role,
                ttlSeconds: 3600
              })
            )

          const bearer = new Map<CallerName, string>()
          for (const tier of KeyTiers)
            bearer.set(tier, `Bearer ${(yield* createKey(tier, fixtureKeyOf(tier))).key}`)
          const admin = Callers5.admin
          if (admin._tag !== "Admin") return yield* Effect.die("the fixture admin is not an admin")
          bearer.set("admin", `Bearer ${yield* adminToken(admin.role, admin.subject)}`)
          const bearerFor = (caller: CallerName) => bearer.get(caller)

          const get = (path: string, opts: GetOptions = {}) =>
            Effect.promise(async (): Promise<Response> => {
              const headers: Record<string, string> = { accept: "application/json", ...opts.headers }
              const authorization =
                opts.authorization ?? (opts.caller === undefined ? undefined : bearerFor(opts.caller))
              if (authorization !== undefined) headers.authorization = authorization
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

          return TestServer.of({
            baseUrl,
            get,
            bearerFor,
            createKey,
            keys,
            idp,
            adminToken,
            callers: () => [...seen]
          })
        })

        return Layer.effect(TestServer, service).pipe(
          Layer.provide(
            HttpRouter.serve(AllRoutes, {
              disableLogger: options.logger === undefined,
              disableListenLog: true
            })
          ),
          Layer.provide(observed),
          Layer.provide(layerCallerPolicies(options.policies ?? TestPolicies)),
          Layer.provideMerge(keysLayer),
          Layer.provide(Layer.merge(RatingsReader.layer, Scoring.layer).pipe(Layer.provide(ports))),
          Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
          Layer.provide(logging)
        )
      })
    )

  /** The server over the domain's in-memory stores, seeded with the fixtures. */
  static readonly layerMemory = (seed = Seed, options: TestServerOptions = {}) =>
    TestServer.layer(
      Layer.mergeAll(
        EntityRepository.layerMemory(seed.entities),
        ScorecardRepository.layerMemory({ scorecards: seed.scorecards, history: seed.history }),
        RubricRepository.layerMemory(seed.questions)
      ),
      options
    )
}
