/**
 * Complete answers. A cache entry holds the answer the router gives for it:
 * the body and its ETag (computed once), and per kind of caller the headers
 * the router sent with it (all but the per-request ones: the rate-limit
 * state). The router records them as it answers (`recordAnswers`, its
 * outermost global middleware, when the request was served an entry); the
 * lane of cache hits then serves the entry a request target leads to.
 */
import type { ProjectionClass } from "@ratings/domain/access/Projection"
import type { CallerKind } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Context, Effect } from "effect"
import { HttpEffect, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { encodedResponse } from "./Encoding.ts"

/** The headers of a complete answer, but the per-request ones. */
export type Head = Readonly<Record<string, string>>

export interface CachedAnswer {
  /** What the handler returns on a hit: the body, its content type and ETag. */
  readonly response: HttpServerResponse.HttpServerResponse
  readonly body: Uint8Array
  readonly etag: string
  /** Per kind of caller, the head the router sent with the whole answer (200). */
  readonly heads: Partial<Record<CallerKind, Head>>
}

export const cachedAnswer = (body: Uint8Array, contentType?: string): CachedAnswer => {
  const response = encodedResponse(body, contentType)
  return { response, body, etag: response.headers.etag ?? "", heads: {} }
}

/** Which entry a request was served, and for whom: noted by the cache, read when the answer is sent. */
export interface Served {
  readonly kind: CallerKind
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly projection: ProjectionClass
  readonly key: string
  readonly answer: CachedAnswer
  /** The matched route's template, for the request metrics of lane answers. */
  readonly route: string | undefined
}

/** The request's slot for `Served`: provided per request by `recordAnswers`. */
export class AnswerSlot extends Context.Service<AnswerSlot, { served: Served | undefined }>()(
  "@ratings/adapters-http/AnswerSlot"
) {}

/** A middleware that records complete answers (`recordAnswers`). */
export type Recorder = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>

/** The headers that belong to one request only: never part of a recorded head. */
const PerRequest = /^ratelimit-|^retry-after$|^connection$|^date$/

const headOf = (headers: Readonly<Record<string, string | ReadonlyArray<string>>>): Head => {
  const head: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    if (typeof value === "string" && !PerRequest.test(name)) head[name] = value
  return head
}

/**
 * The router's outermost global middleware: gives each request a slot, and
 * once the answer is final (its pre-response handler is appended after every
 * other middleware's, so it runs last) records it as the complete answer of
 * the entry served, when it is that entry's whole answer (a GET, 200, its ETag).
 */
export const recordAnswers =
  (record: (target: string, served: Served, head: Head) => void): Recorder =>
  (app) =>
    Effect.suspend(() => {
      const slot: { served: Served | undefined } = { served: undefined }
      const recordFinal = HttpEffect.appendPreResponseHandler((request, response) => {
        const served = slot.served
        if (served !== undefined && request.method === "GET" && response.status === 200)
          if (response.headers.etag === served.answer.etag)
            record(request.url, served, headOf(response.headers))
        return Effect.succeed(response)
      })
      return Effect.ensuring(Effect.provideService(app, AnswerSlot, slot), recordFinal)
    })

/** The most request targets remembered (per caller kind); past it the target learned longest ago is forgotten. */
export const MaxLaneTargets = 20_000

/** What a request target leads to for a kind of caller: the entry (its topics, projection class, key) and route. */
export interface Learned {
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly projection: ProjectionClass
  readonly key: string
  readonly route: string | undefined
}

/**
 * The request targets' entries, per kind of caller, at most `MaxLaneTargets`
 * (insertion order: the target learned longest ago is forgotten first). One
 * lookup of the target answers for every kind.
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

export type Targets = ReturnType<typeof makeTargets>
