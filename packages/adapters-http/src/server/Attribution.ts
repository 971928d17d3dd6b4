/**
 * Attribution (spec part 1 rule 2): Free and anonymous use names the service
 * as the data source and links to its website. Every response to an
 * anonymous or Free caller says so in headers, so that JSON bodies keep the
 * contract's shapes: `Link` (`attributionLinkOf`) and `X-Attribution`, the
 * text to display. Pro, Enterprise and admin callers get neither. The values
 * are the operator's (the domain's `Branding`, configured at start), worked
 * out once when the server is built; nothing here holds a value of its own.
 */
import { type Branding, DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import { Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * A header parameter's value as an RFC 9110 quoted-string: `"` and `\` become
 * quoted pairs. The configuration admits only printable ASCII in a branding
 * (apps/server BrandingConfig.ts); the title is quoted all the same.
 */
export const quotedString = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`

/**
 * The Link header's attribution entries of a branding: its website as `via`,
 * the registered relation for "the source of the information" (RFC 4287), and
 * its terms as `terms-of-service` (RFC 6903), whose automated-access clause
 * governs AI assistants and agents.
 */
export const attributionLinkOf = (branding: Branding): string =>
  `<${branding.siteUrl}>; rel="via"; title=${quotedString(branding.serviceName)}, ` +
  `<${branding.termsUrl}>; rel="terms-of-service"`

export const AttributionHeader = "x-attribution"

/** The attribution headers of a branding, worked out once. */
export interface AttributionHeaders {
  readonly link: string
  readonly text: string
}

export const attributionHeadersOf = (branding: Branding): AttributionHeaders => ({
  link: attributionLinkOf(branding),
  text: branding.attribution
})

const DefaultHeaders = attributionHeadersOf(DefaultBranding)

/** Spec part 1 rule 2: Free and anonymous use requires attribution. */
export const requiresAttribution = (caller: Caller): boolean => {
  const kind = callerKind(caller)
  return kind === "anonymous" || kind === "free"
}

/** Adds the attribution to a response, keeping any Link it already has. */
export const withAttribution = (
  response: HttpServerResponse.HttpServerResponse,
  headers: AttributionHeaders = DefaultHeaders
) => {
  const link = response.headers.link
  return HttpServerResponse.setHeaders(response, {
    link: link === undefined || link === "" ? headers.link : `${link}, ${headers.link}`,
    [AttributionHeader]: headers.text
  })
}

/** For an anonymous or Free caller, attributes whatever response the request ends with. */
export const attribute = (
  caller: Caller,
  headers: AttributionHeaders = DefaultHeaders
): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> =>
  requiresAttribution(caller)
    ? HttpEffect.appendPreResponseHandler((_, response) => Effect.succeed(withAttribution(response, headers)))
    : Effect.void
