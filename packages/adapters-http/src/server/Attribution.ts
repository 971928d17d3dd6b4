/**
 * Attribution (spec part 1 rule 2): Free and anonymous use names the service
 * as the data source and links to its website. Every response to an
 * anonymous or Free caller says so in headers, so that JSON bodies keep the
 * contract's shapes:
 *
 * - `Link: <website>; rel="via"; title="<name>", <terms>; rel="terms-of-service"`:
 *   `via` is the registered relation for "the source of the information"
 *   (RFC 4287), `terms-of-service` (RFC 6903) points at the terms whose
 *   automated-access clause governs AI assistants and agents;
 * - `X-Attribution`: the attribution text, ready to display.
 *
 * Pro, Enterprise and admin callers get neither.
 */
import { Attribution, ServiceName, ServiceWebsite, TermsUrl } from "@ratings/domain/model/ServiceInfo"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import { Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"

export const AttributionLink = `<${ServiceWebsite}>; rel="via"; title="${ServiceName}", <${TermsUrl}>; rel="terms-of-service"`

export const AttributionHeader = "x-attribution"

/** Spec part 1 rule 2: Free and anonymous use requires attribution. */
export const requiresAttribution = (caller: Caller): boolean => {
  const kind = callerKind(caller)
  return kind === "anonymous" || kind === "free"
}

/** Adds the attribution to a response, keeping any Link it already has. */
export const withAttribution = (response: HttpServerResponse.HttpServerResponse) => {
  const link = response.headers.link
  return HttpServerResponse.setHeaders(response, {
    link: link === undefined || link === "" ? AttributionLink : `${link}, ${AttributionLink}`,
    [AttributionHeader]: Attribution
  })
}

/** For an anonymous or Free caller, attributes whatever response the request ends with. */
export const attribute = (caller: Caller): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> =>
  requiresAttribution(caller)
    ? HttpEffect.appendPreResponseHandler((_, response) => Effect.succeed(withAttribution(response)))
    : Effect.void
