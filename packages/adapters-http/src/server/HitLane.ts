/**
 * The lane of cache hits: a GET whose complete answer the response cache
 * holds (cache/Answers.ts) is answered in front of the router, as plain Node
 * code. It reads the versions (a query sent after the request began, shared),
 * asks the one admission step (admission/Admission.ts) for the caller and its
 * draw, and writes the entry's answer with the draw's rate-limit headers (a
 * 304 when If-None-Match names it). Anything else, a miss or a refusal
 * included, is handed to the router with what was read and decided
 * (`request.handoff`), so nothing is read or counted twice. Its answers are
 * logged, counted and traced like the router's (LaneObserver.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { performance } from "node:perf_hooks"
import { ProjectionClasses } from "@ratings/domain/access/Projection"
import { type CallerKind, callerKind, KeyTiers } from "@ratings/domain/model/Caller"
import { Context, Effect, Layer } from "effect"
import type { AccessLog } from "./AccessLog.ts"
import { Admission, type Decision } from "./admission/Admission.ts"
import { type Credential, requestCredential } from "./admission/Credential.ts"
import * as Step from "./admission/Step.ts"
import { looksLikeApiKey } from "./ApiKeyCrypto.ts"
import { matchesIfNoneMatch } from "./Caching.ts"
import type { FrontDoorRequest } from "./front/Handoff.ts"
import { type CacheHits, type CacheVersions, type LaneAnswer, ResponseCache } from "./cache/ResponseCache.ts"
import { type LaneObserver, makeLaneObserver } from "./LaneObserver.ts"
import { RequestMetrics } from "./Metrics.ts"

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
  /** The lane over the server's response cache and admission; `log` gets its lines, `metrics` its counts. */
  static readonly layer = (log: AccessLog | undefined, metrics = false) =>
    Layer.effect(
      HitLane,
      Effect.gen(function* () {
        const cache = yield* ResponseCache
        const admission = yield* Admission
        // What an admission that must wait runs with (the server's services and logger).
        const context = yield* Effect.context<never>()
        const observe = makeLaneObserver(context, metrics ? yield* RequestMetrics.make : undefined)
        return makeLane({ hits: cache.hits, admission, context, log, observe })
      })
    )
}

interface LaneDeps {
  readonly hits: CacheHits | undefined
  readonly admission: Admission["Service"]
  readonly context: Context.Context<never>
  readonly log: AccessLog | undefined
  readonly observe: LaneObserver | undefined
}

/** The answer from the cached entry: 200 with its body, or 304 when If-None-Match names it. */
const answer = (
  request: IncomingMessage,
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

/** One request in the lane, from the versions read for it. */
interface Attempt {
  readonly deps: LaneDeps
  readonly hits: CacheHits
  readonly request: FrontDoorRequest
  readonly response: ServerResponse
  readonly target: string
  readonly started: number
  readonly give: () => void
}

/** Answers the entry when admission admitted the request and its draw; else hands the decision over. */
const conclude = (a: Attempt, versions: CacheVersions, decision: Decision): void => {
  if (decision._tag === "Admitted" && decision.draw?._tag === "Allowed") {
    const found = a.hits.answerFor(callerKind(decision.caller), a.target, versions)
    if (found !== undefined) {
      const status = answer(a.request, a.response, found, decision.draw.headers)
      a.deps.log?.line("GET", a.target, status, a.started, true)
      a.deps.observe?.(a.request, found.route, status, a.started)
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
    forwardedFor: request.headers["x-forwarded-for"] as string | undefined,
    cookie: request.headers.cookie,
    target: request.url
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
  const hits = deps.hits
  const serve = (request: FrontDoorRequest, response: ServerResponse, passOn: () => void): void => {
    const target = request.url
    if (hits === undefined || request.method !== "GET" || target === undefined) {
      passOn()
      return
    }
    const handOver = passOn
    const credential = requestCredential(request.headers.authorization, request.headers.cookie, target)
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
      started: performance.now(),
      give: handOver
    }
    hits.versions((versions) => attempt(a, versions))
  }
  return HitLane.of({ serve })
}
