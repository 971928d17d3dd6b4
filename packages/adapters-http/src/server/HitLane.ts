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
 * 3. admission (admission/Admission.ts), the router's own: the caller and
 *    its request-rate draw, at once on the memory store with a key held
 *    under the current keys' version (a revoked key is never taken), through
 *    the effect otherwise (an unknown key is looked up);
 * 4. admitted and the draw allowed, the entry under the current version of
 *    its type is answered with the draw's headers (a 304 when If-None-Match
 *    matches; without limit headers when the shared store is unreachable and
 *    the rate fails open). Otherwise (a refusal, a 429, a 503, no entry) the
 *    decision is handed over with the request and the router enacts it as
 *    made: nothing is decided or counted twice.
 *
 * Off when the server has no versioned response cache, and (ServeCommand)
 * with metrics or tracing on, whose per-request records the handlers make.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { performance } from "node:perf_hooks"
import { type ProjectionClass, ProjectionClasses } from "@ratings/domain/access/Projection"
import { type Caller, type CallerKind, callerKind, KeyTiers } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Context, Effect, Layer } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { AccessLog } from "./AccessLog.ts"
import { Admission, type Decision } from "./admission/Admission.ts"
import { type Credential, credentialOf } from "./admission/Credential.ts"
import * as Step from "./admission/Step.ts"
import { looksLikeApiKey } from "./ApiKeyCrypto.ts"
import { matchesIfNoneMatch } from "./Caching.ts"
import type { FrontDoorRequest } from "./front/Handoff.ts"
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
  /** The lane over the server's response cache and admission; `log` gets its requests' lines. */
  static readonly layer = (log: AccessLog | undefined) =>
    Layer.effect(
      HitLane,
      Effect.gen(function* () {
        const cache = yield* ResponseCache
        const admission = yield* Admission
        // What an admission that must wait runs with (the server's services and logger).
        const context = yield* Effect.context<never>()
        return makeLane({ hits: cache.hits, admission, context, log })
      })
    )
}

interface LaneDeps {
  readonly hits: CacheHits | undefined
  readonly admission: Admission["Service"]
  readonly context: Context.Context<never>
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

/** One request in the lane, from the versions read for it (steps 2 to 4 of the module's comment). */
interface Attempt {
  readonly deps: LaneDeps
  readonly hits: CacheHits
  readonly targets: Targets
  readonly request: FrontDoorRequest
  readonly response: ServerResponse
  readonly target: string
  readonly started: number
  readonly give: () => void
}

/** The cache entry the request leads to now for the caller; undefined when the router must answer. */
const entryFor = (a: Attempt, caller: Caller, versions: CacheVersions) => {
  const learned = a.targets.get(callerKind(caller), a.target)
  const stamp = learned === undefined ? undefined : versionStamp(versions, learned.topics)
  if (learned === undefined || stamp === undefined) return undefined
  const cached = a.hits.get(learned.projection, stamp, learned.key)
  if (cached === undefined || cached.body._tag !== "Uint8Array") return undefined
  return { learned, cached }
}

/** Answers the entry when admission admitted the request and its draw; else hands the decision over. */
const conclude = (a: Attempt, versions: CacheVersions, decision: Decision): void => {
  if (decision._tag === "Admitted" && decision.draw?._tag === "Allowed") {
    const found = entryFor(a, decision.caller, versions)
    if (found !== undefined) {
      const status = answer(a.request, a.response, found.learned, found.cached, decision.draw.headers)
      a.deps.log?.line("GET", a.target, status, a.started, true)
      return
    }
  }
  a.request.handoff = { versions, admission: decision }
  a.give()
}

const attempt = (a: Attempt, versions: CacheVersions | undefined): void => {
  if (versions === undefined) {
    a.give()
    return
  }
  const request = a.request
  const facts = {
    authorization: request.headers.authorization,
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: request.headers["x-forwarded-for"] as string | undefined
  }
  Step.run(
    a.deps.admission.admit(facts, versions),
    a.deps.context,
    (decision) => conclude(a, versions, decision),
    () => {
      // A defect: the router admits the request itself.
      request.handoff = { versions }
      a.give()
    }
  )
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
      started: performance.now(),
      give: handOver
    }
    hits.versions((versions) => attempt(a, versions))
  }
  return HitLane.of({ serve })
}
