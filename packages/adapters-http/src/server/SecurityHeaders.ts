/**
 * Headers every answer of the server carries, applied in one place (a global
 * router middleware) instead of by each handler: `Cache-Control: no-store` on
 * every answer that is not a success or a 304 (`mustNotStore`);
 * `X-Content-Type-Options: nosniff` on every answer, so a browser takes its
 * Content-Type as given; and on an HTML page `X-Frame-Options: DENY` and a
 * Content-Security-Policy, its own (`pagePolicy`) or else `DefaultPagePolicy`,
 * which allows nothing to load. Requests the front door answers itself (front/)
 * and the lane of cache hits (HitLane.ts) carry the same headers.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpRouter, HttpServerResponse } from "effect/http"
import { NoStore } from "./Caching.ts"

export const NoSniff = "nosniff"
export const FrameDeny = "DENY"

/** What every page's policy says beside what it loads: no framing, no <base>, no form posts. */
const PageRestrictions = "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** The policy of an HTML page that sets none of its own: nothing may load or run. */
export const DefaultPagePolicy = `default-src 'none'; ${PageRestrictions}`

/** The sources a page may use, per fetch directive (`script-src`, `style-src`, ...); everything else none. */
export type PageSources = { readonly [directive: string]: ReadonlyArray<string> }

/** A page's Content-Security-Policy: `default-src 'none'`, its sources, and the restrictions of every page. */
export const pagePolicy = (sources: PageSources): string =>
  [
    "default-src 'none'",
    ...Object.entries(sources).map(([directive, allowed]) => `${directive} ${allowed.join(" ")}`),
    PageRestrictions
  ].join("; ")

/** The CSP source of an inline script's or style sheet's text: its SHA-256 as `'sha256-...'`. */
export const hashSource = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const isHtml = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.headers["content-type"]?.startsWith("text/html") === true

/**
 * Whether an answer must not be stored: anything but a success or a 304. An
 * error is about one request at one moment (a 404 is otherwise heuristically
 * cacheable, a 401 or 429 depends on the caller and the clock). A 304
 * confirms a stored 200, and a cache updates the stored response with its
 * headers (RFC 9111 4.3.4), so a no-store there would make that copy uncacheable.
 */
export const mustNotStore = (status: number): boolean => (status < 200 || status >= 300) && status !== 304

/** The response with the headers above. */
export const secureResponse = (
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = { "x-content-type-options": NoSniff }
  if (mustNotStore(response.status)) headers["cache-control"] = NoStore
  if (isHtml(response)) {
    headers["x-frame-options"] = FrameDeny
    if (response.headers["content-security-policy"] === undefined)
      headers["content-security-policy"] = DefaultPagePolicy
  }
  return HttpServerResponse.setHeaders(response, headers)
}

const secure = (
  _request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
) => Effect.succeed(secureResponse(response))

/**
 * Registered once the routes have run (whether they answered or failed), so
 * it comes after every pre-response handler they registered (the caching
 * rules, CORS, a handler's own no-store) and has the last word on the answer.
 */
const applyLast = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.ensuring(app, HttpEffect.appendPreResponseHandler(secure))

/**
 * The router-wide middleware. Provide it to the routes (`Layer.provide`) so
 * that it is registered before the other global middleware (CORS) and also
 * sees what those answer themselves (a preflight).
 */
export const SecurityHeaders = HttpRouter.middleware(applyLast, { global: true })
