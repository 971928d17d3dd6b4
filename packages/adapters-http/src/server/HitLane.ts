/**
 * The lane of cache hits: a request whose answer is already in
 * the response cache is answered in front of the Effect router, as plain
 * Node code, with the same bytes and headers the handlers would send, and
 * the same checks in the same order. Everything else, and any request for
 * which one of those checks does not simply pass, is handed to the router
 * untouched (with what the lane already read, so nothing is read or counted
 * twice).
 *
 * What a request line leads to is learned from the router's own answers:
 * when the handlers answer a GET with a cached response (ResponseCache.ts
 * notes it), the lane remembers, for the caller kind and the exact request
 * target, which cache entry it was (type, projection class, key: the
 * handlers' decoding of the path and query) and the headers sent with it
 * but the per-request ones (the rate-limit headers). So the lane needs no
 * knowledge of routes, parameters, tiers or headers of its own: it can only
 * repeat an answer the handlers gave to the same request target and kind of
 * caller, for the entry the handlers would serve now.
 *
 * A request in the lane:
 * 1. GET only, with no credential or an API key (a JWT, a malformed
 *    header: handed over), for a target the lane has learned;
 * 2. the versions, from a query sent after the request began (the one the
 *    cache's readers share), exactly as the handlers' reads would get them:
 *    a change committed before the request began is seen;
 * 3. the caller: anonymous by client address (the trusted-proxy rule of
 *    authentication), or a key remembered under the current keys' version
 *    (KeyMemo.ts: a revoked key is never taken; an unknown one is looked up
 *    by the handlers);
 * 4. the entry under the current version of its type (absent: handed over,
 *    and the handlers compute it);
 * 5. the rate limit, drawn once (RateLimit.ts `drawForLane`): admitted, the
 *    answer is written (a 304 when If-None-Match matches; without limit
 *    headers when the shared store is unreachable and the rate fails open);
 *    refused, or the store unreachable and a limit failing closed, the draw
 *    is handed over with the request and the handlers answer it (429, 503)
 *    as ever.
 *
 * Off when the server has no versioned response cache, and (ServeCommand)
 * with metrics or tracing on, whose per-request records the handlers make.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { performance } from "node:perf_hooks"
import { type ProjectionClass, ProjectionClasses } from "@ratings/domain/access/Projection"
import { Caller, type CallerKind, callerKind, KeyTiers } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { AccessLog } from "./AccessLog.ts"
import { type AuthConfig, trustedHops } from "./AuthConfig.ts"
import { hashApiKey, looksLikeApiKey } from "./ApiKeyCrypto.ts"
import { type Credential, clientAddressOf, credentialOf } from "./Authentication.ts"
import { matchesIfNoneMatch } from "./Caching.ts"
import { KeyMemo } from "./KeyMemo.ts"
import type { FrontDoorRequest } from "./front/Handoff.ts"
import { type LaneDraw, RequestRateLimiter } from "./RateLimit.ts"
import {
  type CacheHits,
  type CacheVersions,
  ResponseCache,
  type ServedFromCache,
  servedFromCache,
  versionStamp
} from "./ResponseCache.ts"

/** The most entries remembered (a request target's, per caller kind); past it the target learned longest ago is forgotten. */
export const MaxLaneTargets = 20_000

/** What a request target leads to for a kind of caller: the cache entry and the headers sent with it. */
interface Learned {
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly projection: ProjectionClass
  readonly key: string
  readonly headers: Readonly<Record<string, string>>
}

const RateLimitHeader = /^ratelimit-|^retry-after$/

/** The kinds whose reads are shared (the domain's projection classes): only theirs can be in the cache. */
const sharing = (kinds: ReadonlyArray<CallerKind>): ReadonlyArray<CallerKind> =>
  kinds.filter((kind) => ProjectionClasses[kind] !== undefined)

/** The kinds of caller an API key can give and an anonymous request gives, whose answers the lane may serve. */
export const KeyedKinds = sharing(KeyTiers)
export const AnonymousKind = sharing(["anonymous"])

export class HitLane extends Context.Service<
  HitLane,
  {
    /** Answers the request, or calls `handOver` (at once or later) for the router to answer it. */
    readonly serve: (request: FrontDoorRequest, response: ServerResponse, handOver: () => void) => void
  }
>()("@ratings/adapters-http/HitLane") {
  /** The lane over the server's response cache, key memo and limiter; `log` gets its requests' lines. */
  static readonly layer = (auth: AuthConfig | undefined, log: AccessLog | undefined) =>
    Layer.effect(
      HitLane,
      Effect.gen(function* () {
        const cache = yield* ResponseCache
        const memo = yield* KeyMemo
        const limiter = yield* RequestRateLimiter
        const context = yield* Effect.context<never>()
        const draw = (caller: Caller, credentialFrom: string | undefined, then: (draw: LaneDraw) => void) => {
          // The memory store draws at once; any other store through the effect.
          const now = limiter.drawForLaneNow(caller, credentialFrom)
          if (now !== undefined) return then(now.draw)
          const fiber = Effect.runForkWith(context)(limiter.drawForLane(caller, credentialFrom))
          fiber.addObserver((exit) => then(exit._tag === "Success" ? exit.value : undefined))
        }
        return makeLane({ hits: cache.hits, memo, draw, hops: trustedHops(auth?.trustProxy), log })
      })
    )
}

interface LaneDeps {
  readonly hits: CacheHits | undefined
  readonly memo: KeyMemo["Service"]
  readonly draw: (caller: Caller, credentialFrom: string | undefined, then: (draw: LaneDraw) => void) => void
  readonly hops: number
  readonly log: AccessLog | undefined
}

/**
 * The request targets' learned entries, per kind of caller, at most
 * `MaxLaneTargets` entries (insertion order: the target learned longest ago
 * is forgotten first, with its entries). One lookup of the target answers for
 * every kind (a keyed request may be of any keyed kind).
 */
export const makeTargets = () => {
  const learned = new Map<string, Partial<Record<CallerKind, Learned>>>()
  let entries = 0
  const countOf = (byKind: Partial<Record<CallerKind, Learned>>) => Object.keys(byKind).length
  return {
    get: (kind: CallerKind, target: string) => learned.get(target)?.[kind],
    /** Whether the target is learned for one of `kinds`. */
    hasAny: (kinds: ReadonlyArray<CallerKind>, target: string) => {
      const byKind = learned.get(target)
      return byKind !== undefined && kinds.some((kind) => byKind[kind] !== undefined)
    },
    set: (kind: CallerKind, target: string, entry: Learned) => {
      const byKind = learned.get(target) ?? {}
      if (learned.delete(target)) entries -= countOf(byKind)
      while (entries >= MaxLaneTargets && learned.size > 0) {
        const [oldest, itsEntries] = learned.entries().next().value!
        learned.delete(oldest)
        entries -= countOf(itsEntries)
      }
      const next = { ...byKind, [kind]: entry }
      learned.set(target, next)
      entries += countOf(next)
    },
    /** How many entries are held (for tests). */
    size: () => entries
  }
}

/** The headers of an answer from the learned ones: this entry's validators and length, this draw's limits. */
const headersOf = (
  learned: Learned,
  cached: HttpServerResponse.HttpServerResponse,
  length: number,
  limits: Readonly<Record<string, string>>,
  notModified: boolean
): Record<string, string> => {
  const headers: Record<string, string> = { ...learned.headers }
  const etag = cached.headers.etag
  if (etag !== undefined) headers.etag = etag
  if (notModified) {
    delete headers["content-type"]
    delete headers["content-length"]
  } else headers["content-length"] = String(length)
  return Object.assign(headers, limits)
}

/** The caller a request's credential gives under these versions, or undefined when the lane cannot tell. */
const callerOf = (
  deps: LaneDeps,
  request: IncomingMessage,
  key: string | undefined,
  versions: CacheVersions
): { readonly caller: Caller; readonly address: string } | undefined => {
  const address = clientAddressOf(
    Option.fromNullishOr(request.socket.remoteAddress),
    request.headers["x-forwarded-for"] as string | undefined,
    deps.hops
  )
  if (key === undefined) return { caller: Caller.anonymous(address), address }
  const keysVersion = versions.api_keys
  const info = keysVersion === undefined ? undefined : deps.memo.held(hashApiKey(key), keysVersion)
  return info === undefined
    ? undefined
    : { caller: Caller.apiKey(info.tier, info.account_id, info.id), address }
}

type Targets = ReturnType<typeof makeTargets>

/** The answer from the cached entry: 200 with its body, or 304 when If-None-Match names it. */
const answer = (
  request: IncomingMessage,
  response: ServerResponse,
  learned: Learned,
  cached: HttpServerResponse.HttpServerResponse,
  limits: Readonly<Record<string, string>>
): number => {
  const body = (cached.body as { readonly body: Uint8Array }).body
  const notModified = matchesIfNoneMatch(request.headers["if-none-match"], cached.headers.etag ?? "")
  response.writeHead(
    notModified ? 304 : 200,
    headersOf(learned, cached, body.byteLength, limits, notModified)
  )
  if (notModified) response.end()
  else response.end(body)
  return notModified ? 304 : 200
}

/** What the router's head for a cached response teaches: the entry, and its headers but the per-request ones. */
const learn = (
  targets: Targets,
  noted: ServedFromCache,
  target: string,
  sent: Readonly<Record<string, unknown>>
) => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(sent))
    if (typeof value === "string" && !RateLimitHeader.test(name) && name !== "connection")
      headers[name] = value
  targets.set(noted.kind, target, {
    topics: noted.topics,
    projection: noted.projection,
    key: noted.key,
    headers
  })
}

/**
 * Learns from the router's answer to a GET it was handed: when the handlers
 * answered with a cached response (ResponseCache noted it), the head
 * written for it, if it is that entry's whole answer (200, its ETag).
 */
const learnFrom = (targets: Targets, request: IncomingMessage, response: ServerResponse): void => {
  const writeHead = response.writeHead as (...args: Array<unknown>) => ServerResponse
  response.writeHead = function (this: ServerResponse, status: number, ...rest: Array<unknown>) {
    const noted = servedFromCache.get(request)
    const headers = rest.find((arg) => typeof arg === "object" && arg !== null) as
      | Readonly<Record<string, unknown>>
      | undefined
    if (noted !== undefined && status === 200 && headers !== undefined && request.url !== undefined) {
      servedFromCache.delete(request)
      if (headers.etag === noted.response.headers.etag) learn(targets, noted, request.url, headers)
    }
    return writeHead.call(this, status, ...rest)
  } as ServerResponse["writeHead"]
}

/** Whether the lane has learned the target for the kind of caller the credential may give. */
const mayKnow = (
  targets: Targets,
  target: string,
  credential: Credential,
  key: string | undefined
): boolean =>
  credential._tag === "None"
    ? targets.hasAny(AnonymousKind, target)
    : key !== undefined && targets.hasAny(KeyedKinds, target)

/** One request in the lane, from the versions read for it (steps 2 to 5 of the module's comment). */
interface Attempt {
  readonly deps: LaneDeps
  readonly hits: CacheHits
  readonly targets: Targets
  readonly request: FrontDoorRequest
  readonly response: ServerResponse
  readonly target: string
  readonly key: string | undefined
  readonly started: number
  readonly give: () => void
}

/** The cache entry the request leads to now, with its caller; undefined when the router must answer. */
const entryFor = (a: Attempt, versions: CacheVersions) => {
  const who = callerOf(a.deps, a.request, a.key, versions)
  const learned = who === undefined ? undefined : a.targets.get(callerKind(who.caller), a.target)
  const stamp = learned === undefined ? undefined : versionStamp(versions, learned.topics)
  if (who === undefined || learned === undefined || stamp === undefined) return undefined
  const cached = a.hits.get(learned.projection, stamp, learned.key)
  if (cached === undefined || cached.body._tag !== "Uint8Array") return undefined
  return { ...who, learned, cached }
}

const attempt = (a: Attempt, versions: CacheVersions | undefined): void => {
  if (versions !== undefined) a.request.handoff = { versions }
  const found = versions === undefined ? undefined : entryFor(a, versions)
  if (found === undefined) {
    a.give()
    return
  }
  const { learned, cached, caller, address } = found
  a.deps.draw(caller, a.key === undefined ? undefined : address, (draw) => {
    if (draw?._tag === "Admitted") {
      const status = answer(a.request, a.response, learned, cached, draw.headers)
      a.deps.log?.line("GET", a.target, status, a.started, true)
      return
    }
    if (draw?._tag === "HandOver") a.request.handoff = { ...a.request.handoff, drawn: draw.drawn }
    a.give()
  })
}

/** The lane's functions over its dependencies (see the module's comment for the steps). */
export const makeLane = (deps: LaneDeps): HitLane["Service"] => {
  const targets = makeTargets()
  const hits = deps.hits
  const serve = (request: FrontDoorRequest, response: ServerResponse, passOn: () => void): void => {
    const target = request.url
    if (hits === undefined || request.method !== "GET" || target === undefined) {
      passOn()
      return
    }
    const handOver = () => {
      learnFrom(targets, request, response)
      passOn()
    }
    const credential = credentialOf(request.headers.authorization)
    const key = credential._tag === "ApiKey" && looksLikeApiKey(credential.key) ? credential.key : undefined
    if (!mayKnow(targets, target, credential, key)) {
      handOver()
      return
    }
    const a: Attempt = {
      deps,
      hits,
      targets,
      request,
      response,
      target,
      key,
      started: performance.now(),
      give: handOver
    }
    hits.versions((versions) => attempt(a, versions))
  }
  return HitLane.of({ serve })
}
