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
import { ProjectionClasses } from "@ratings/domain/access/Projection"
import { Caller, type CallerKind, callerKind, KeyTiers } from "@ratings/domain/model/Caller"
import { Context, Effect, Layer, Option } from "effect"
import type { AccessLog } from "./AccessLog.ts"
import { type LaneObserver, makeLaneObserver } from "./LaneObserver.ts"
import { RequestMetrics } from "./Metrics.ts"
import { type AuthConfig, trustedHops } from "./AuthConfig.ts"
import { hashApiKey, looksLikeApiKey } from "./ApiKeyCrypto.ts"
import { type Credential, clientAddressOf, credentialOf } from "./Authentication.ts"
import { matchesIfNoneMatch } from "./Caching.ts"
import { KeyMemo } from "./KeyMemo.ts"
import type { FrontDoorRequest } from "./front/Handoff.ts"
import { type LaneDraw, RequestRateLimiter } from "./RateLimit.ts"
import { type CacheHits, type CacheVersions, type LaneAnswer, ResponseCache } from "./cache/ResponseCache.ts"

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
  static readonly layer = (auth: AuthConfig | undefined, log: AccessLog | undefined, metrics = false) =>
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
        const observe = makeLaneObserver(context, metrics ? yield* RequestMetrics.make : undefined)
        return makeLane({ hits: cache.hits, memo, draw, hops: trustedHops(auth?.trustProxy), log, observe })
      })
    )
}

interface LaneDeps {
  readonly hits: CacheHits | undefined
  readonly memo: KeyMemo["Service"]
  readonly draw: (caller: Caller, credentialFrom: string | undefined, then: (draw: LaneDraw) => void) => void
  readonly hops: number
  readonly log: AccessLog | undefined
  readonly observe: LaneObserver | undefined
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

/** The answer from the cached entry: 200 with its body, or 304 when If-None-Match names it. */
const answer = (
  request: FrontDoorRequest,
  response: ServerResponse,
  found: LaneAnswer,
  limits: Readonly<Record<string, string>>
): number => {
  const { answer, head } = found
  const notModified = matchesIfNoneMatch(request.headers["if-none-match"], answer.etag)
  const headers: Record<string, string> = { ...head }
  if (notModified) {
    delete headers["content-type"]
    delete headers["content-length"]
  }
  response.writeHead(notModified ? 304 : 200, Object.assign(headers, limits))
  if (notModified) response.end()
  else response.end(answer.body)
  return notModified ? 304 : 200
}

/** Whether the cache knows a complete answer of the target for the kind of caller the credential may give. */
const mayKnow = (
  hits: CacheHits,
  target: string,
  credential: Credential,
  key: string | undefined
): boolean =>
  credential._tag === "None"
    ? hits.knows(AnonymousKind, target)
    : key !== undefined && hits.knows(KeyedKinds, target)

/** One request in the lane, from the versions read for it (steps 2 to 5 of the module's comment). */
interface Attempt {
  readonly deps: LaneDeps
  readonly hits: CacheHits
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
  const found = who === undefined ? undefined : a.hits.answerFor(callerKind(who.caller), a.target, versions)
  return who === undefined || found === undefined ? undefined : { ...who, found }
}

const attempt = (a: Attempt, versions: CacheVersions | undefined): void => {
  if (versions !== undefined) a.request.handoff = { versions }
  const found = versions === undefined ? undefined : entryFor(a, versions)
  if (found === undefined) {
    a.give()
    return
  }
  const { found: cached, caller, address } = found
  a.deps.draw(caller, a.key === undefined ? undefined : address, (draw) => {
    if (draw?._tag === "Admitted") {
      const status = answer(a.request, a.response, cached, draw.headers)
      a.deps.log?.line("GET", a.target, status, a.started, true)
      a.deps.observe?.(a.request, cached.route, status, a.started)
      return
    }
    if (draw?._tag === "HandOver") a.request.handoff = { ...a.request.handoff, drawn: draw.drawn }
    a.give()
  })
}

/** The lane's functions over its dependencies (see the module's comment for the steps). */
export const makeLane = (deps: LaneDeps): HitLane["Service"] => {
  const hits = deps.hits
  const serve = (request: FrontDoorRequest, response: ServerResponse, passOn: () => void): void => {
    const target = request.url
    if (hits === undefined || request.method !== "GET" || target === undefined) {
      passOn()
      return
    }
    const handOver = passOn
    const credential = credentialOf(request.headers.authorization)
    const key = credential._tag === "ApiKey" && looksLikeApiKey(credential.key) ? credential.key : undefined
    if (!mayKnow(hits, target, credential, key)) {
      handOver()
      return
    }
    const a: Attempt = {
      deps,
      hits,
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
