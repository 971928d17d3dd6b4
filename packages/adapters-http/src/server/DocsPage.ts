/**
 * The Content-Security-Policy of the docs page (/docs, Effect's
 * HttpApiScalar: Scalar's API reference). The page is two inline scripts,
 * Scalar's bundle and the call that renders the OpenAPI document, and what
 * the running viewer uses:
 *
 * - scripts: those two only, by their hashes (no other script, inline or
 *   not, and no eval);
 * - styles: inline (Scalar writes its style sheets and style attributes at
 *   run time, so no hash can name them);
 * - fonts: Scalar's default fonts, from fonts.scalar.com;
 * - connections: this origin (the viewer's "Test Request" calls the API);
 * - nothing else (it loads no image, frame, worker or other script).
 *
 * The bundle probes whether it may compile code (`new Function("")`, its
 * schema library's fast path) and falls back when it may not; under this
 * policy it may not, and the probe itself is reported by the browser as a
 * violation, so the page tells the bundle the answer instead of letting it
 * try (`NoEvalProbe`).
 *
 * The page is rendered once from the branded OpenAPI document, the same for
 * every request (nothing of a request is in it), so it is adjusted and its
 * hashes are taken once, from that rendering.
 */
import { Effect } from "effect"
import { Headers, HttpRouter, HttpServerResponse } from "effect/http"
import { hashSource, pagePolicy } from "./SecurityHeaders.ts"

/** Where the page's fonts come from (Scalar's `withDefaultFonts`). */
export const ScalarFontOrigin = "https://fonts.scalar.com"

/** The bundle's probe of `new Function`, and the answer it gets under the policy: no. */
export const NoEvalProbe = { probe: 'try{return new Function(""),!0}catch(e){return!1}', answer: "return!1" }

const InlineScript = /<script>([\s\S]*?)<\/script>/g

/** The policy for a rendering of the page: its inline scripts by hash, and the sources above. */
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
