/**
 * What every explorer page handler is given and how its failures become
 * pages: the request, its caller and the viewer the nav shows, the parsed
 * URL, the branding and the response cache. A read the caller may not make,
 * or an unknown or hidden entity, is the same HTML 404 (nothing tells them
 * apart); a bad query a 400 naming it; a store that cannot be reached a 503.
 */
import type { Admission } from "@ratings/adapters-http/server/admission/Admission"
import type { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import type { RequestRateLimiter } from "@ratings/adapters-http/server/limits/RateLimit"
import type { TierProjection } from "@ratings/domain/access/Projection"
import type { IncidentService } from "@ratings/domain/services/IncidentService"
import type { QuantumService } from "@ratings/domain/services/QuantumService"
import type { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import type { Branding } from "@ratings/domain/model/ServiceInfo"
import { Effect, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { messageBody } from "./Components.ts"
import { bytesOf, pageResponse } from "./Html.ts"
import { Layout, type Viewer } from "./Layout.ts"
import { withVersions } from "./PageCache.ts"
import { droppedKeyCookie, enter, overHttps } from "./Session.ts"

/** A query the page cannot answer: a 400 with what is wrong. */
export class BadQuery extends Schema.TaggedError<BadQuery>()("BadQuery", { message: Schema.String }) {}

export interface PageContext {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly caller: Caller
  readonly viewer: Viewer
  readonly url: URL
  readonly branding: Branding
  readonly services: ExplorerServices
  readonly cache: ResponseCache["Service"] | undefined
}

/** The services the pages read through: the API handlers' own. */
export interface ExplorerServices {
  readonly admission: Admission["Service"]
  readonly limiter: RequestRateLimiter["Service"]
  readonly reader: RatingsReader["Service"]
  readonly projection: TierProjection
  readonly incidents: IncidentService["Service"]
  readonly quantum: QuantumService["Service"]
}

/** The explorer's settings: its branding, services, cache and the proxies trusted in front of it. */
export interface ExplorerSettings {
  readonly branding: Branding
  readonly services: ExplorerServices
  readonly cache: ResponseCache["Service"] | undefined
  readonly trustedHops: number
}

/** A page that only says something, with a status (never cached, never stored by browsers). */
export const messagePage = (
  settings: ExplorerSettings,
  viewer: Viewer,
  status: number,
  heading: string,
  message: string,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  pageResponse(
    bytesOf(
      Layout({
        branding: settings.branding,
        viewer,
        title: heading,
        section: "",
        children: messageBody(heading, message)
      })
    ),
    status,
    { ...headers, "cache-control": "no-store" }
  )

export const NotFoundMessage =
  "There is no page here: the address may be mistyped, or what it named is not public."

/** A failure as its page. */
const failurePage = (settings: ExplorerSettings, viewer: Viewer, error: { readonly _tag: string }) => {
  switch (error._tag) {
    case "NotFound":
    case "MissingKey":
    case "InsufficientTier":
      return messagePage(settings, viewer, 404, "Not found", NotFoundMessage)
    case "BadQuery":
    case "InvalidIncidentFeedQuery":
      return messagePage(
        settings,
        viewer,
        400,
        "Bad request",
        (error as unknown as { message: string }).message
      )
    default:
      return messagePage(
        settings,
        viewer,
        503,
        "Service unavailable",
        "The data could not be read: try again shortly."
      )
  }
}

/** A GET page's handler: the request admitted (or turned away with its page), then the page or its failure's page. */
export const explorerPage =
  <E extends { readonly _tag: string }>(
    settings: ExplorerSettings,
    handler: (context: PageContext) => Effect.Effect<HttpServerResponse.HttpServerResponse, E>
  ) =>
  (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const entry = yield* enter(settings.services, request)
      if (entry._tag === "TurnedAway") {
        const headers: Record<string, string> = entry.dropCookie
          ? { "set-cookie": droppedKeyCookie(overHttps(request, settings.trustedHops)) }
          : {}
        const heading =
          entry.status === 401 ? "Signed out" : entry.status === 429 ? "Too many requests" : "Unavailable"
        return messagePage(settings, { kind: "anonymous" }, entry.status, heading, entry.message, headers)
      }
      const viewer: Viewer = { kind: callerKind(entry.caller) }
      const context: PageContext = {
        request,
        caller: entry.caller,
        viewer,
        url: new URL(request.url, "http://explorer.invalid"),
        branding: settings.branding,
        services: settings.services,
        cache: settings.cache
      }
      return yield* withVersions(handler(context), entry.versions).pipe(
        Effect.catch((error: E) => Effect.succeed(failurePage(settings, viewer, error)))
      )
    })

/** The 404 page of a path the explorer does not serve, for the caller admission establishes there. */
export const notFoundPage =
  (settings: ExplorerSettings) =>
  (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
    explorerPage(settings, () => Effect.fail({ _tag: "NotFound" as const }))(request).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, request)
    )

/** A redirect after a form (303: the browser GETs the location). */
export const seeOther = (location: string, headers: Readonly<Record<string, string>> = {}) =>
  HttpServerResponse.empty({ status: 303, headers: { location, "cache-control": "no-store", ...headers } })
