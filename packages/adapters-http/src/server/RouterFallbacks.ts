/**
 * What the router itself answers, in the API's own JSON shapes: a path no
 * route matches, or one with a raw `;` (which the router would treat like
 * `?`, answering a shorter path's route), is a 404 `{"detail": "not found"}`;
 * a body of a media type a route does not take, or in a charset other than
 * UTF-8, is a 415 naming what to send; a body over 1 MiB is a 413; a path the
 * API serves asked with another method is a 405 with `Allow`, as is a HEAD of
 * an export. The 404 is documented on every operation, 415 and 413 on those
 * that take a body (Api.ts, `documentRouterResponses`). A person's browser
 * (a request preferring HTML) asking for a path outside /api and /mcp gets
 * the page an app mounted beside the API gave (FallbackPages), if it gave one.
 */
import { ByteSize, Context, Effect, Layer } from "effect"
import { HttpApi } from "effect/http-api"
import {
  HttpIncomingMessage,
  HttpMiddleware,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { ApiPrefix, RatingsApi } from "../api/Api.ts"

/** Path segments up to this many characters reach the routes (the router's default is 100). */
export const MaxPathParamLength = 1024

const notFound = HttpServerResponse.jsonUnsafe({ detail: "not found" }, { status: 404 })

/** An HTML page for a path nothing serves (it must not fail: it is the last answer). */
export type NotFoundPage = (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse>

/**
 * Where an app mounted beside the API (the explorer) leaves its not-found
 * page for people; `serve` gives one to the API's routes and the app's alike.
 */
export class FallbackPages extends Context.Service<
  FallbackPages,
  { readonly setNotFound: (page: NotFoundPage) => void; readonly notFound: () => NotFoundPage | undefined }
>()("@ratings/adapters-http/FallbackPages") {
  /** A fresh place (one per server, so two servers never share their pages). */
  static readonly make = (): Layer.Layer<FallbackPages> =>
    Layer.sync(FallbackPages, () => {
      let page: NotFoundPage | undefined
      return FallbackPages.of({
        setNotFound: (next) => {
          page = next
        },
        notFound: () => page
      })
    })
}

/** Whether an Accept header names text/html before application/json, or without it (q=0 is a refusal). */
export const prefersHtml = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  const types = accept
    .toLowerCase()
    .split(",")
    .map((entry) => entry.split(";").map((part) => part.trim()))
    .filter(([, ...params]) => !params.some((p) => /^q=0(\.0*)?$/u.test(p)))
    .map(([type]) => type)
  const html = types.indexOf("text/html")
  const json = types.indexOf("application/json")
  return html !== -1 && (json === -1 || html < json)
}

/** Paths whose answers are for programs: their 404 is always the API's JSON. */
const isProgramPath = (path: string): boolean => /^\/(api|mcp)(\/|$)/u.test(path)

/** The 404 of a path nothing serves: the app's page to a browser, else the API's JSON. */
const notFoundFor = (
  pages: FallbackPages["Service"] | undefined,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const page = pages?.notFound()
  return page !== undefined && !isProgramPath(path) && prefersHtml(request.headers.accept)
    ? page(request)
    : Effect.succeed(notFound)
}

const isRouteNotFound = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

const isBodyTooLarge = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) &&
  error.reason._tag === "RequestParseError" &&
  error.reason.reason === "BodyTooLarge"

const isJson = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.body._tag === "Uint8Array" && response.body.contentType.startsWith("application/json")

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * The largest request body read: the bodies the API takes (an alert rule, an
 * incident report) are a few kilobytes; anything past 1 MiB is refused with a
 * JSON 413 before it is buffered whole.
 */
export const MaxRequestBodyBytes = 1_048_576

/** What a 413 of the API says (the front door answers the same to a body declared too large: front/BodyLimits.ts). */
export const BodyTooLargeDetail = `request body too large: at most ${MaxRequestBodyBytes} bytes (1 MiB)`

const tooLarge = HttpServerResponse.jsonUnsafe({ detail: BodyTooLargeDetail }, { status: 413 })

/** Every route of the API as its method and a matcher of its path (`:param` is one segment). */
const ApiRoutes: ReadonlyArray<{ readonly method: string; readonly path: RegExp }> = (() => {
  const routes: Array<{ method: string; path: RegExp }> = []
  HttpApi.reflect(RatingsApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const pattern = endpoint.path
        .split("/")
        .map((segment) =>
          segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")
        )
        .join("/")
      routes.push({ method: endpoint.method, path: new RegExp(`^${pattern}/?$`, "u") })
    }
  })
  return routes
})()

const MethodOrder = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

/**
 * The labels of UTF-8 (WHATWG Encoding), lower-case: the one charset request
 * bodies (of the API and /mcp) are read in, so a body in another would be read
 * as something its sender did not write.
 */
const Utf8Labels: ReadonlySet<string> = new Set(["utf-8", "utf8"])

/**
 * The charset a Content-Type declares when it is not UTF-8 (any case, quoted
 * or not; the first such when several are given), or undefined when it
 * declares none or UTF-8.
 */
export const foreignCharset = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined) return undefined
  for (const parameter of contentType.split(";").slice(1)) {
    const eq = parameter.indexOf("=")
    if (eq === -1 || parameter.slice(0, eq).trim().toLowerCase() !== "charset") continue
    const value = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/su, "$1")
      .trim()
    if (!Utf8Labels.has(value.toLowerCase())) return value
  }
  return undefined
}

/** Methods whose requests carry no body to read (CORS preflights included). */
const BodilessMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

const foreignCharsetRefused = (charset: string) =>
  HttpServerResponse.jsonUnsafe(
    {
      detail:
        `unsupported charset ${JSON.stringify(charset)}: send the body as application/json in UTF-8 ` +
        "(charset=utf-8, or no charset)"
    },
    { status: 415 }
  )

/**
 * GET routes a HEAD must not run: the router would run GET's handler for a
 * HEAD and drop the body, and an export is recorded and counted against the
 * bulk export quota (5 a day) when it is made, so a HEAD (a link checker, a
 * proxy probing) would spend the quota on a file nobody received.
 */
export const GetOnlyPaths: ReadonlySet<string> = new Set([
  `${ApiPrefix}/export.csv`,
  `${ApiPrefix}/export.json`
])

/** The methods the API answers on a path, HEAD beside GET (the router answers HEAD with GET's headers). */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const methods = new Set<string>()
  for (const route of ApiRoutes) if (route.path.test(path)) methods.add(route.method)
  if (methods.has("GET") && !GetOnlyPaths.has(path)) methods.add("HEAD")
  return MethodOrder.filter((m) => methods.has(m))
}

/**
 * A path the API serves, asked with a method it does not take: 405 with the
 * methods it does take in `Allow` (RFC 9110 15.5.6) and the JSON body of every
 * error, instead of a 404 that would say the path does not exist.
 */
const methodNotAllowed = (method: string, allowed: ReadonlyArray<string>) =>
  HttpServerResponse.jsonUnsafe(
    { detail: `method ${method} not allowed here; allowed: ${allowed.join(", ")}` },
    { status: 405, headers: { allow: allowed.join(", ") } }
  )

const fallbacks = (pages: FallbackPages["Service"] | undefined) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = pathOf(request.url)
      if (path.includes(";")) return yield* notFoundFor(pages, request, path)
      if (request.method === "HEAD" && GetOnlyPaths.has(path)) return methodNotAllowed("HEAD", ["GET"])
      if (!BodilessMethods.has(request.method)) {
        const charset = foreignCharset(request.headers["content-type"])
        if (charset !== undefined) return foreignCharsetRefused(charset)
      }
      const response = yield* app.pipe(
        Effect.catchIf(isRouteNotFound, () => {
          const allowed = allowedMethods(path)
          return allowed.length > 0 && !allowed.includes(request.method)
            ? Effect.succeed(methodNotAllowed(request.method, allowed))
            : notFoundFor(pages, request, path)
        }),
        // The body reader dies (not fails) on the limit; the request is the client's fault, so answer it.
        Effect.catchDefect((defect) =>
          isBodyTooLarge(defect) ? Effect.succeed(tooLarge) : Effect.die(defect)
        ),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MaxRequestBodyBytes))
      )
      // A 413 that already says why in JSON (the /mcp endpoint's own bound) is kept.
      if (response.status === 413 && !isJson(response)) return tooLarge
      if (response.status !== 415) return response
      const sent = request.headers["content-type"] ?? "none"
      return HttpServerResponse.jsonUnsafe(
        { detail: `unsupported content-type ${JSON.stringify(sent)}: send the body as application/json` },
        { status: 415 }
      )
    })
  )

export const RouterFallbacks = HttpRouter.middleware(
  Effect.map(Effect.serviceOption(FallbackPages), (pages) =>
    fallbacks(pages._tag === "Some" ? pages.value : undefined)
  ),
  { global: true }
)
