/**
 * The docs page (/docs, Effect's HttpApiScalar: Scalar's API reference) and
 * the viewer's script, served as its own cacheable asset (`DocsScriptPath`)
 * instead of inline in every page. The page is the viewer's script tag and
 * the inline call that renders the OpenAPI document; its policy allows this
 * origin's scripts and that call by its hash, and no other origin: the viewer
 * is told not to load its default fonts, and opens with the bearer scheme
 * selected so "Try it" sends a pasted key (`DocsScalarConfig`). The page is
 * rendered once from the branded document, the same for every request, so it
 * is adjusted and its hashes taken once, from that rendering.
 */
import { Effect, Layer } from "effect"
import { Headers, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiScalar } from "effect/http-api"
import { BearerSchemeName } from "../api/Authentication.ts"
import { entityTag, matchesIfNoneMatch } from "./Caching.ts"
import { hashSource, pagePolicy } from "./SecurityHeaders.ts"

/** Where the viewer's script is served, the same path whatever the version (its ETag changes). */
export const DocsScriptPath = "/docs/scalar.js"

/** How the viewer's script is cached: a day, then revalidated by its ETag. */
export const DocsScriptCacheControl = "public, max-age=86400"

/**
 * Run by the viewer before each "Try it" request: with the bearer scheme
 * selected and no key pasted, the viewer sends `Authorization: Bearer` with
 * no token, which the API answers 401 (a header sent must work); this leaves
 * such a header out, so the call is anonymous, as it is without the scheme.
 */
export const DropEmptyBearer =
  '({ request }) => { if (/^bearer\\s*$/i.test(request.headers.get("authorization") ?? "")) ' +
  'request.headers.delete("authorization"); return { request } }'

/**
 * The viewer's configuration: no default fonts (they would come from Scalar's
 * servers), and the bearer scheme selected, so a key pasted in "Try it" is
 * sent (and shown in the curl snippet) as `Authorization: Bearer <key>`.
 * Effect's ScalarConfig writes only `customFetch` as code, and the bundled
 * viewer reads request hooks as `onBeforeRequest`: the page renames it
 * (`docsPage`), so `DropEmptyBearer` runs before each request.
 */
export const DocsScalarConfig: HttpApiScalar.ScalarConfig = {
  withDefaultFonts: false,
  authentication: { preferredSecurityScheme: BearerSchemeName },
  customFetch: DropEmptyBearer
}

/**
 * The bundle's probe of `new Function`, and the answer it gets under the
 * policy: no. The bundle falls back when it may not compile code, but the
 * browser reports the probe itself as a violation, so the page gives the
 * bundle the answer instead of letting it try.
 */
export const NoEvalProbe = { probe: 'try{return new Function(""),!0}catch(e){return!1}', answer: "return!1" }

const InlineScript = /<script>([\s\S]*?)<\/script>/g

/**
 * The policy for a rendering of the page: this origin's scripts (the viewer)
 * and its inline scripts by hash (no other script, and no eval); inline
 * styles (Scalar writes its style sheets at run time, so no hash can name
 * them); connections to this origin (the viewer's "Test Request" calls the
 * API). No font, image, frame, worker or anything of another origin.
 */
export const docsPolicyOf = (html: string): string =>
  pagePolicy({
    "script-src": ["'self'", ...[...html.matchAll(InlineScript)].map((m) => hashSource(m[1]!))],
    "style-src": ["'unsafe-inline'"],
    "connect-src": ["'self'"]
  })

const decoder = new TextDecoder()

/** The viewer's script as Effect's HttpApiScalar inlines it, with the probe answered. */
const loadViewerScript = Effect.promise(async () => {
  const bundled = new URL("./internal/httpApiScalar.js", import.meta.resolve("effect/http-api"))
  const { javascript } = (await import(bundled.href)) as { readonly javascript: string }
  return javascript
})

/**
 * The page as served: the rendering with the inline viewer (`viewer`, its
 * text as inlined) swapped for a script tag naming `DocsScriptPath`, the
 * probe answered, the request hook named as the viewer reads it, and the
 * policy of what remains.
 */
export const docsPage = (response: HttpServerResponse.HttpServerResponse, viewer: string) => {
  if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
  const html = decoder
    .decode(response.body.body)
    .replace(`<script>${viewer}</script>`, () => `<script src="${DocsScriptPath}"></script>`)
    .replace(NoEvalProbe.probe, NoEvalProbe.answer)
    .replace(`customFetch: ${DropEmptyBearer}`, () => `onBeforeRequest: ${DropEmptyBearer}`)
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

/** The viewer's script as an asset: its text with the probe answered, its ETag, a 304 on a match. */
const viewerRoute = (viewer: string) => {
  const script = viewer.replace(NoEvalProbe.probe, NoEvalProbe.answer)
  const etag = entityTag(script)
  const headers = { etag, "cache-control": DocsScriptCacheControl }
  return HttpRouter.add(
    "GET",
    DocsScriptPath,
    Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      matchesIfNoneMatch(request.headers["if-none-match"], etag)
        ? HttpServerResponse.empty({ status: 304, headers })
        : HttpServerResponse.text(script, { contentType: "text/javascript; charset=utf-8", headers })
    )
  )
}

/** The renderings seen (one per branded document) and the page served for each, made once. */
const served = new WeakMap<HttpServerResponse.HttpServerResponse, HttpServerResponse.HttpServerResponse>()

const servedFor = (response: HttpServerResponse.HttpServerResponse, viewer: string) => {
  let page = served.get(response)
  if (page === undefined) {
    page = docsPage(response, viewer)
    served.set(response, page)
  }
  return page
}

/**
 * The docs page under `path` for `api` (HttpApiScalar.layer with
 * `DocsScalarConfig`), served with its policy, and the viewer's script at
 * `DocsScriptPath`.
 */
export const docsRoutes = (
  layer: (config: HttpApiScalar.ScalarConfig) => Layer.Layer<never, never, HttpRouter.HttpRouter>
) =>
  Layer.unwrap(
    Effect.map(loadViewerScript, (viewer) =>
      Layer.merge(
        layer(DocsScalarConfig).pipe(
          Layer.provide(HttpRouter.middleware((app) => Effect.map(app, (r) => servedFor(r, viewer))).layer)
        ),
        viewerRoute(viewer)
      )
    )
  )
