/**
 * The Content-Security-Policy of the docs page (/docs, Effect's
 * HttpApiScalar: Scalar's API reference). The page is two inline scripts,
 * Scalar's bundle and the call that renders the OpenAPI document; the policy
 * allows those two by their hashes, and what the running viewer uses, and
 * nothing else (`docsPolicyOf`). The page is rendered once from the branded
 * OpenAPI document, the same for every request (nothing of a request is in
 * it), so it is adjusted and its hashes are taken once, from that rendering.
 */
import { Effect } from "effect"
import { Headers, HttpRouter, HttpServerResponse } from "effect/http"
import { hashSource, pagePolicy } from "./SecurityHeaders.ts"

/** Where the page's fonts come from (Scalar's `withDefaultFonts`). */
export const ScalarFontOrigin = "https://fonts.scalar.com"

/**
 * The bundle's probe of `new Function`, and the answer it gets under the
 * policy: no. The bundle falls back when it may not compile code, but the
 * browser reports the probe itself as a violation, so the page gives the
 * bundle the answer instead of letting it try.
 */
export const NoEvalProbe = { probe: 'try{return new Function(""),!0}catch(e){return!1}', answer: "return!1" }

const InlineScript = /<script>([\s\S]*?)<\/script>/g

/**
 * The policy for a rendering of the page: its inline scripts by hash (no
 * other script, and no eval); inline styles (Scalar writes its style sheets at
 * run time, so no hash can name them); Scalar's default fonts; connections to
 * this origin (the viewer's "Test Request" calls the API). No image, frame,
 * worker or other script.
 */
export const docsPolicyOf = (html: string): string =>
  pagePolicy({
    "script-src": [...html.matchAll(InlineScript)].map((m) => hashSource(m[1]!)),
    "style-src": ["'unsafe-inline'"],
    "font-src": [ScalarFontOrigin],
    "connect-src": ["'self'"]
  })

const decoder = new TextDecoder()

/** The page as served: the rendering with the probe answered, and its policy. */
export const docsPage = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
  const html = decoder.decode(response.body.body).replace(NoEvalProbe.probe, NoEvalProbe.answer)
  return HttpServerResponse.text(html, {
    status: response.status,
    contentType: response.body.contentType,
    headers: Headers.set(
      Headers.removeMany(response.headers, ["content-type", "content-length"]),
      "content-security-policy",
      docsPolicyOf(html)
    )
  })
}

/** The renderings seen (one per branded document) and the page served for each, made once. */
const served = new WeakMap<HttpServerResponse.HttpServerResponse, HttpServerResponse.HttpServerResponse>()

const servedFor = (response: HttpServerResponse.HttpServerResponse) => {
  let page = served.get(response)
  if (page === undefined) {
    page = docsPage(response)
    served.set(response, page)
  }
  return page
}

/** The route middleware that serves the docs page with its policy (provide it to the docs route). */
export const DocsPagePolicy = HttpRouter.middleware((app) => Effect.map(app, servedFor))
