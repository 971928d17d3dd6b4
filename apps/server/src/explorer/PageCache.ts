/**
 * Explorer pages answered from the server's ResponseCache like the API's
 * reads: a page is a cacheable read whose answer is HTML (Cacheable's `page`
 * encoding), keyed by the route, its normalised state and the kind of caller
 * (the nav says who is signed in), stamped with the versions of every topic
 * it shows and dropped on their changes. Without a cache, or for an admin,
 * it is rendered each time. A matching If-None-Match is a 304.
 */
import { matchesIfNoneMatch } from "@ratings/adapters-http/server/Caching"
import {
  type CacheVersions,
  RequestVersions,
  ResponseCache,
  type SnapshotSource
} from "@ratings/adapters-http/server/cache/ResponseCache"
import { entityTag } from "@ratings/adapters-http/server/Caching"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import { Effect, Option } from "effect"
import { Headers, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HtmlContentType, PageHeaders, pageResponse } from "./Html.ts"

/** A page as a cacheable read. */
export interface PageRead<A, E, S> {
  readonly caller: Caller
  /** The route and its normalised state (the caller's kind is added). */
  readonly key: string
  readonly type: ChangeTopic
  readonly also?: ReadonlyArray<ChangeTopic> | undefined
  readonly compute: () => Effect.Effect<A, E>
  readonly render: (value: A) => Uint8Array
  readonly snapshot?: SnapshotSource<S, E> | undefined
  /** When the page changes with the clock alone (the quantum stale flag): the instant (epoch ms) it may. */
  readonly expiresAt?: (() => number | undefined) | undefined
}

/** The server's response cache, if it has one (read when the routes are built). */
export const optionalCache = Effect.map(Effect.serviceOption(ResponseCache), Option.getOrUndefined)

/** The answer with the page headers, or its 304 when the request names its ETag. */
const conditional = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const page = HttpServerResponse.setHeaders(response, PageHeaders)
  const etag = page.headers.etag
  if (etag === undefined || !matchesIfNoneMatch(request.headers["if-none-match"], etag)) return page
  return HttpServerResponse.empty({
    status: 304,
    headers: Headers.removeMany(page.headers, ["content-type", "content-length"])
  })
}

const rendered = (body: Uint8Array) => pageResponse(body, 200, { etag: entityTag(body) })

/** The page's answer: from the cache when it holds it, else rendered (and stored for the next caller of its kind). */
export const respondPage = <A, E, S>(
  cache: ResponseCache["Service"] | undefined,
  request: HttpServerRequest.HttpServerRequest,
  read: PageRead<A, E, S>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E> => {
  if (cache === undefined)
    return Effect.map(read.compute(), (value) => conditional(request, rendered(read.render(value))))
  const answer = cache.respond({
    caller: read.caller,
    key: `explorer|${callerKind(read.caller)}|${read.key}`,
    type: read.type,
    also: read.also,
    compute: read.compute,
    entityOf: () => undefined,
    snapshot: read.snapshot,
    expiresAt: read.expiresAt,
    page: { contentType: HtmlContentType, render: read.render }
  })
  return Effect.map(answer, (value) =>
    conditional(
      request,
      HttpServerResponse.isHttpServerResponse(value) ? value : rendered(read.render(value as A))
    )
  )
}

/** The effect with the versions admission read for the request, for the cache's stamp. */
export const withVersions = <A, E, R>(effect: Effect.Effect<A, E, R>, versions: CacheVersions | undefined) =>
  versions === undefined ? effect : Effect.provideService(effect, RequestVersions, versions)
