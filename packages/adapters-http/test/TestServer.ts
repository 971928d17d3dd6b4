/**
 * The real HTTP server of the ratings API on an ephemeral port, for tests. It
 * serves the API's production routes (allRoutes; `routes` mounts more beside
 * them, as the MCP endpoint's tests do) over whatever stores it is given:
 * the domain's in-memory ones (`layerMemory`), or the Postgres repositories
 * over a fresh database (`layerPostgres`), both seeded with the same fixtures.
 * `onEachBackend` declares a suite once per backend, so that every rule is
 * checked against both without a second copy of its test.
 *
 * Callers authenticate for real, through the production Authentication
 * middleware: the server seeds one API key per tier in the backend's
 * ApiKeyRepository and trusts a test identity provider (a generated ES256 key
 * pair) for admin JWTs. `get(path, { caller: "pro" })` sends the pro key as
 * `Authorization: Bearer`; there is no test-only way in.
 *
 * Alert rules run over the backend's rule store and delivery outbox, with the
 * real HMAC signer and the real undici transport (allowed to call loopback
 * receivers), and a dispatcher without its loop: a test sends what is due by
 * calling `WebhookDispatcher.runOnce` itself. The create-time URL policy
 * allows http and private targets unless `webhookTargets` says otherwise.
 */
import { layer as layerSuite, type Vitest } from "@effect/vitest"
import * as PgAlertRuleRepository from "@ratings/adapters-sql/PgAlertRuleRepository"
import * as PgApiKeyRepository from "@ratings/adapters-sql/PgApiKeyRepository"
import * as PgContactRequestRepository from "@ratings/adapters-sql/PgContactRequestRepository"
import * as PgDeliveryOutbox from "@ratings/adapters-sql/PgDeliveryOutbox"
import * as PgEntityRepository from "@ratings/adapters-sql/PgEntityRepository"
import * as PgExportLog from "@ratings/adapters-sql/PgExportLog"
import * as PgIncidentRepository from "@ratings/adapters-sql/PgIncidentRepository"
import * as PgQuantumSnapshotStore from "@ratings/adapters-sql/PgQuantumSnapshotStore"
import * as PgRubricRepository from "@ratings/adapters-sql/PgRubricRepository"
import * as PgScorecardRepository from "@ratings/adapters-sql/PgScorecardRepository"
import * as PgTransaction from "@ratings/adapters-sql/PgTransaction"
import { SecretBox } from "@ratings/adapters-sql/SecretBox"
import * as HmacSigner from "@ratings/adapters-webhook/HmacSigner"
import * as UndiciTransport from "@ratings/adapters-webhook/UndiciTransport"
import { type AdminRole, type Caller, type KeyTier, KeyTiers } from "@ratings/domain/model/Caller"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { Branding } from "@ratings/domain/model/ServiceInfo"
import type { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import type { ContactRequestRepository } from "@ratings/domain/ports/ContactRequestRepository"
import type { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import type { ExportLog } from "@ratings/domain/ports/ExportLog"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import type { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import type { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import type { QuantumSource } from "@ratings/domain/ports/QuantumSource"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import type { Signer } from "@ratings/domain/ports/Signer"
import type { Transaction } from "@ratings/domain/ports/Transaction"
import type { WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { CompareService } from "@ratings/domain/services/CompareService"
import { ContactService } from "@ratings/domain/services/ContactService"
import { ExportService } from "@ratings/domain/services/ExportService"
import { IncidentService, RatedProtocols } from "@ratings/domain/services/IncidentService"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { type TargetPolicy, WebhookTargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { Context, Effect, Layer, Logger, Option, References } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { Authentication } from "../src/api/Authentication.ts"
import { CurrentCaller } from "../src/api/CurrentCaller.ts"
import { type AuthConfig, trustedHops } from "../src/server/AuthConfig.ts"
import { displayPrefix, generateApiKey, hashApiKey } from "../src/server/ApiKeyCrypto.ts"
import { layerAuthentication } from "../src/server/Authentication.ts"
import { type DevKeyPair, generateDevKeyPair, mintDevAdminToken } from "../src/server/DevToken.ts"
import {
  allRoutes,
  layerCallerPolicies,
  type PoliciesConfig,
  type RouteServices
} from "../src/server/HttpServerLive.ts"
import { type ConnectionLimits, createServer } from "../src/server/front/NodeServer.ts"
import { layer as layerNodeServer } from "../src/server/front/ServerLayer.ts"
import type { ResponseCache } from "../src/server/cache/ResponseCache.ts"
import { MaxPathParamLength } from "../src/server/RouterFallbacks.ts"
import { type CallerName, Callers5, Seed } from "./fixtures.ts"
import { ScratchDatabase } from "./ScratchDatabase.ts"
import { AlertRuleRepositoryMemory } from "@ratings/domain/ports/memory/AlertRuleRepositoryMemory"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { EntityRepositoryMemory } from "@ratings/domain/ports/memory/EntityRepositoryMemory"
import { ExportLogMemory } from "@ratings/domain/ports/memory/ExportLogMemory"
import { IncidentRepositoryMemory } from "@ratings/domain/ports/memory/IncidentRepositoryMemory"
import { QuantumSnapshotStoreMemory } from "@ratings/domain/ports/memory/QuantumSnapshotStoreMemory"
import { QuantumSourceMemory } from "@ratings/domain/ports/memory/QuantumSourceMemory"
import { RubricRepositoryMemory } from "@ratings/domain/ports/memory/RubricRepositoryMemory"
import { ScorecardRepositoryMemory } from "@ratings/domain/ports/memory/ScorecardRepositoryMemory"
import { TransactionMemory } from "@ratings/domain/ports/memory/TransactionMemory"
import { DeliveryOutboxMemory } from "@ratings/domain/ports/memory/DeliveryOutboxMemory"
import { ContactRequestRepositoryMemory } from "@ratings/domain/ports/memory/ContactRequestRepositoryMemory"

export type Ports = EntityRepository | ScorecardRepository | RubricRepository

/**
 * The ports behind the incident feed, quantum readiness and coverage
 * requests. The quantum source is always the domain's scripted one
 * (QuantumSourceMemory): the real upstream adapter has its own tests against
 * a real HTTP upstream.
 */
export type FeedPorts =
  | ExportLog
  | IncidentRepository
  | RatedProtocols
  | IdGenerator
  | QuantumSnapshotStore
  | QuantumSource
  | QuantumSourceMemory
  | ChainDirectory
  | ContactRequestRepository

/**
 * The ports behind alert rules and their deliveries, and the dispatcher over
 * them (without its loop: tests call `runOnce`).
 */
export type AlertPorts =
  | AlertRuleRepository
  | DeliveryOutbox
  | Transaction
  | Signer
  | WebhookTransport
  | WebhookDispatcher

/** What a backend gives the server: the ports the use cases need, and the key store. */
export type BackendStores = Ports | ApiKeyRepository | FeedPorts

/** What the server runs on and provides to tests: the backend's stores and the alert ports. */
export type Stores = BackendStores | AlertPorts

/** A fresh random UUID per call, as in production (the memory generator counts from 1). */
const RandomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => crypto.randomUUID()) }))

/** The feed ports in memory, over the backend's entity and scorecard stores (rated protocols, chains). */
export const MemoryFeeds = Layer.mergeAll(
  ExportLogMemory.layer,
  IncidentRepositoryMemory.layer.pipe(Layer.provideMerge(RatedProtocols.layerStores)),
  RandomIds,
  QuantumSnapshotStoreMemory.layer,
  QuantumSourceMemory.layer,
  ChainDirectory.layerEntities,
  ContactRequestRepositoryMemory.layer
)

/** The feed ports on Postgres (the production repositories), with the scripted quantum source. */
const PostgresFeeds = Layer.mergeAll(
  PgExportLog.layer,
  PgIncidentRepository.layer,
  PgIncidentRepository.layerRatedProtocols,
  RandomIds,
  PgQuantumSnapshotStore.layer,
  QuantumSourceMemory.layer,
  ChainDirectory.layerEntities,
  PgContactRequestRepository.layer
)

/** The transport of every backend: real undici POSTs, allowed to reach the tests' loopback receivers. */
const LoopbackTransport = UndiciTransport.layer(WebhookTargetPolicy.permissive)

/** The transport a server's options ask for: LoopbackTransport unless `webhookTransport` is given. */
const transportOf = (options: TestServerOptions) =>
  options.webhookTransport === undefined ? LoopbackTransport : UndiciTransport.layer(options.webhookTransport)

/** The dispatcher without its loop over the alert ports, the signer and the transport being real. */
const alertPorts = <E, R>(
  stores: Layer.Layer<AlertRuleRepository | DeliveryOutbox | Transaction, E, R>,
  transport: Layer.Layer<WebhookTransport> = LoopbackTransport
) =>
  WebhookDispatcher.layerWithoutLoop().pipe(
    Layer.provideMerge(Layer.mergeAll(stores, HmacSigner.layer, transport))
  )

/** Alert rules and deliveries in memory. */
const memoryAlerts = (transport?: Layer.Layer<WebhookTransport>) =>
  alertPorts(
    Layer.mergeAll(AlertRuleRepositoryMemory.layer, DeliveryOutboxMemory.layer, TransactionMemory.layer),
    transport
  )
export const MemoryAlerts = memoryAlerts()

/** Alert rules and deliveries on Postgres, signing keys sealed with a random server key (as in production). */
const postgresAlerts = (transport?: Layer.Layer<WebhookTransport>) =>
  alertPorts(
    Layer.mergeAll(
      PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layerRandom)),
      PgDeliveryOutbox.layer,
      PgTransaction.layer
    ),
    transport
  )

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

export interface RequestOptions extends GetOptions {
  readonly method?: "GET" | "POST" | "DELETE" | undefined
  /** Sent as JSON (with `Content-Type: application/json`). */
  readonly body?: unknown
  /** Sent as is instead of JSON.stringify(body), still as `application/json`. */
  readonly raw?: string | undefined
}

/** A fetch answer read whole: its status, headers, text, and the text parsed as JSON when it is JSON. */
export const readResponse = async (response: globalThis.Response): Promise<Response> => {
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
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

/**
 * What a test server, and the test's effects run beside it, log when the test
 * captures no logs: warnings and errors only, so that a run prints test results.
 */
export const QuietLogs = Layer.succeed(References.MinimumLogLevel, "Warn")

/** Rate limits far above what any test sends, so that only the rate-limit tests meet a 429. */
const Unreached = [{ limit: 1_000_000, window: "1 minute" }] as const
export const TestPolicies: PoliciesConfig = {
  limits: { anonymous: Unreached, free: Unreached, pro: Unreached, enterprise: Unreached, admin: Unreached },
  contacts: Unreached,
  mcpSessions: Unreached
}

export interface TestServerOptions {
  /** The authentication configuration, given the test identity provider; by default it trusts its public key. */
  readonly auth?: ((idp: TestIdp) => AuthConfig) | undefined
  /** Wraps the backend's key store (to observe what it is given); by default the store as is. */
  readonly apiKeys?: Layer.Layer<ApiKeyRepository, never, ApiKeyRepository> | undefined
  /** Receives every log line of the server, request logs included, at every level; without it, QuietLogs. */
  readonly logger?: Logger.Logger<unknown, unknown> | undefined
  /** Rate-limit store and limits; by default in memory, with limits no test reaches (TestPolicies). */
  readonly policies?: PoliciesConfig | undefined
  /** The create-time webhook URL policy; by default http and private (loopback) targets are allowed. */
  readonly webhookTargets?: TargetPolicy | undefined
  /** The send-time transport's policy (and resolver); by default it reaches the tests' loopback receivers. */
  readonly webhookTransport?: UndiciTransport.UndiciTransportOptions | undefined
  /** A response cache in front of the hot reads, built over the server's stores; by default none. */
  readonly responseCache?: Layer.Layer<ResponseCache> | undefined
  /** The operator's branding, provided to everything the server builds; by default none (DefaultBranding). */
  readonly branding?: Branding | undefined
  /** Request timeouts and connection caps of the Node server; by default those of production (DefaultConnectionLimits). */
  readonly connections?: ConnectionLimits | undefined
  /**
   * More routes beside the API's, as `serve`'s `routes` (the MCP endpoint's
   * tests mount it), given the proxy hops `auth` trusts; by default none.
   */
  readonly routes?: ((trustedHops: number) => Layer.Layer<never, never, RouteServices>) | undefined
}

export class TestServer extends Context.Service<
  TestServer,
  {
    readonly baseUrl: string
    readonly get: (path: string, options?: GetOptions) => Effect.Effect<Response>
    /** Any request: GET by default, a JSON body when `body` or `raw` is given. */
    readonly request: (path: string, options?: RequestOptions) => Effect.Effect<Response>
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
  /**
   * The server over the given stores, with the alert ports in memory, all of
   * which it also provides (so a test can reach them).
   */
  static readonly layer = <E, R>(stores: Layer.Layer<BackendStores, E, R>, options: TestServerOptions = {}) =>
    TestServer.layerWithAlerts(Layer.merge(stores, MemoryAlerts), options)

  /** The server over the given stores, alert ports included, which it also provides. */
  static readonly layerWithAlerts = <E, R>(
    stores: Layer.Layer<Stores, E, R>,
    options: TestServerOptions = {}
  ) =>
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
        const served =
          options.apiKeys === undefined ? stores : options.apiKeys.pipe(Layer.provideMerge(stores))
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

          const request = (path: string, opts: RequestOptions = {}) =>
            Effect.promise(async (): Promise<Response> => {
              const headers: Record<string, string> = { accept: "application/json", ...opts.headers }
              const authorization =
                opts.authorization ?? (opts.caller === undefined ? undefined : bearerFor(opts.caller))
              if (authorization !== undefined) headers.authorization = authorization
              const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
              if (body !== undefined) headers["content-type"] = "application/json"
              return readResponse(
                await fetch(baseUrl + path, {
                  method: opts.method ?? "GET",
                  headers,
                  ...(body === undefined ? {} : { body })
                })
              )
            })

          return TestServer.of({
            baseUrl,
            get: request,
            request,
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
            HttpRouter.serve(
              options.routes === undefined
                ? allRoutes
                : Layer.merge(allRoutes, options.routes(trustedHops(auth.trustProxy))),
              {
                routerConfig: { maxParamLength: MaxPathParamLength },
                disableLogger: options.logger === undefined,
                disableListenLog: true
              }
            )
          ),
          Layer.provide(observed),
          Layer.provide(layerCallerPolicies(options.policies ?? TestPolicies)),
          Layer.provide(
            Layer.mergeAll(
              RatingsReader.layer,
              Scoring.layer,
              IncidentService.layer,
              QuantumService.layer,
              ExportService.layer,
              CompareService.layer,
              ContactService.layer,
              AlertRuleService.layer.pipe(
                Layer.provide(
                  WebhookTargetPolicy.layer(options.webhookTargets ?? WebhookTargetPolicy.permissive)
                )
              )
            )
          ),
          Layer.provide(options.responseCache ?? Layer.empty),
          Layer.provideMerge(served),
          Layer.provide(
            layerNodeServer(() => testNodeServer(options.connections), { port: 0, host: "127.0.0.1" })
          ),
          Layer.provide(logging),
          Layer.provide(options.branding === undefined ? Layer.empty : Branding.layer(options.branding)),
          Layer.provideMerge(options.logger === undefined ? QuietLogs : Layer.empty)
        )
      })
    )

  /** The server over the domain's in-memory stores, seeded with the fixtures. */
  static readonly layerMemory = (seed = Seed, options: TestServerOptions = {}) =>
    TestServer.layerWithAlerts(
      Layer.mergeAll(MemoryFeeds, memoryAlerts(transportOf(options))).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            EntityRepositoryMemory.layer(seed.entities),
            ScorecardRepositoryMemory.layer({ scorecards: seed.scorecards, history: seed.history }),
            RubricRepositoryMemory.layer(seed.questions),
            ApiKeyRepositoryMemory.layer
          )
        )
      ),
      options
    )

  /**
   * The server over the Postgres repositories of the production wiring, on a
   * fresh migrated database that lives as long as the layer, seeded with the
   * fixtures through those repositories. The database's SqlClient is provided
   * too (see `database`).
   */
  static readonly layerPostgres = (seed = Seed, options: TestServerOptions = {}) =>
    TestServer.layerWithAlerts(
      Layer.effectDiscard(seedStores(seed)).pipe(
        Layer.provideMerge(Layer.mergeAll(PostgresFeeds, postgresAlerts(transportOf(options)))),
        Layer.provideMerge(
          Layer.mergeAll(
            PgEntityRepository.layer,
            PgScorecardRepository.layer,
            PgRubricRepository.layer,
            PgApiKeyRepository.layer
          )
        ),
        Layer.provideMerge(ScratchDatabase)
      ),
      options
    )

  /** The server over a backend's stores, seeded with the fixtures. */
  static readonly layerOf = (
    backend: Backend,
    seed = Seed,
    options: TestServerOptions = {}
  ): Layer.Layer<TestServer | Stores, unknown> =>
    backend === "memory" ? TestServer.layerMemory(seed, options) : TestServer.layerPostgres(seed, options)
}

/**
 * Writes a seed through the ports, as the importer and publisher would: the
 * entities, each type's rubric, every scorecard (a published or superseded
 * one saved as a draft and then published with its history entry, in version
 * order, so that the store itself supersedes the earlier versions), and the
 * history entries of no seeded publication.
 */
export const seedStores = (seed: Seed) =>
  Effect.gen(function* () {
    const entities = yield* EntityRepository
    const scorecards = yield* ScorecardRepository
    const rubric = yield* RubricRepository
    yield* entities.upsert(seed.entities)
    for (const type of EntityTypes)
      yield* rubric.replace(
        type,
        seed.questions.filter((q) => q.entity_type === type)
      )
    const published = new Set<string>()
    const inVersionOrder = [...seed.scorecards].sort((a, b) => a.scorecard_version - b.scorecard_version)
    for (const card of inVersionOrder) {
      if (card.status === "draft") {
        yield* scorecards.saveDraft(card)
        continue
      }
      const entry = seed.history.find((h) => h.scorecard_id === card.id)
      if (entry === undefined) return yield* Effect.die(`fixture scorecard ${card.id} has no history entry`)
      const later = inVersionOrder.some(
        (c) =>
          c.entity_id === card.entity_id &&
          c.status !== "draft" &&
          c.scorecard_version > card.scorecard_version
      )
      if (card.status === "superseded" && !later)
        return yield* Effect.die(`fixture scorecard ${card.id} is superseded by no later published version`)
      const { entity_id, ...history } = entry
      published.add(card.id)
      yield* scorecards.saveDraft({ ...card, status: "draft" })
      yield* scorecards.publish({
        entity_type: card.entity_type,
        entity_id,
        scorecard: { ...card, status: "published" },
        history
      })
    }
    for (const { entity_id, ...entry } of seed.history)
      if (!published.has(entry.scorecard_id)) yield* scorecards.importHistory(entity_id, [entry])
  })

export const Backends = ["memory", "postgres"] as const
export type Backend = (typeof Backends)[number]

/** The `it` of a suite over a test server, whose stores it can reach too. */
export type ServerIt = Vitest.MethodsNonLive<TestServer | Stores>

/**
 * Declares `suites` once per backend, inside a describe named after it, over
 * one server per backend (on Postgres, one fresh database) shared by every
 * test the suites declare.
 */
export const onEachBackend = (
  suites: (it: ServerIt, backend: Backend) => void,
  options: { readonly seed?: Seed | undefined; readonly server?: TestServerOptions | undefined } = {}
) => {
  for (const backend of Backends)
    layerSuite(TestServer.layerOf(backend, options.seed, options.server), { excludeTestServices: true })(
      backend,
      (it) => suites(it, backend)
    )
}

/**
 * The production Node server, with idle keep-alive connections kept for a
 * minute instead of Node's 5 s. The test's client shares the server's event
 * loop: when a long step starves the loop (5,000 entities upserted on a
 * loaded machine), the server's overdue keep-alive timer can close a socket
 * the client has just reused for its next request, which the client sees as
 * ECONNRESET. Clients on other machines are not in that race.
 */
const testNodeServer = (limits?: ConnectionLimits) => {
  const server = createServer(limits)
  server.http.keepAliveTimeout = 60_000
  return server
}

/** The database under a Postgres-backed server (a defect on any other). */
export const database = Effect.flatMap(Effect.serviceOption(SqlClient.SqlClient), (sql) =>
  Option.isSome(sql) ? Effect.succeed(sql.value) : Effect.die("the server is not backed by Postgres")
)
