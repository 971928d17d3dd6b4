/**
 * What the router itself answers, in the API's own shapes (found by the
 * OpenAPI fuzzer): a path no route matches — an unknown path, a segment longer
 * than the router's limit, percent-encoding that is not UTF-8 — is a JSON 404
 * `{"detail": "not found"}` instead of an empty one; a raw `;` in the path
 * (which the router would otherwise treat like `?`, answering a shorter path's
 * route) is the same 404; and a request body of a media type a route does not
 * take is a JSON 415 that names the type and what to send, instead of
 * text/plain. Both statuses are documented on every operation (Api.ts,
 * `documentRouterResponses`).
 */
import { Effect } from "effect"
import {
  HttpMiddleware,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"

/** Path segments up to this many characters reach the routes (the router's default is 100). */
export const MaxPathParamLength = 1024

const notFound = HttpServerResponse.jsonUnsafe({ detail: "not found" }, { status: 404 })

const isRouteNotFound = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

const fallbacks = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (pathOf(request.url).includes(";")) return notFound
    const response = yield* Effect.catchIf(app, isRouteNotFound, () => Effect.succeed(notFound))
    if (response.status !== 415) return response
    const sent = request.headers["content-type"] ?? "none"
    return HttpServerResponse.jsonUnsafe(
      { detail: `unsupported content-type ${JSON.stringify(sent)}: send the body as application/json` },
      { status: 415 }
    )
  })
)

export const RouterFallbacks = HttpRouter.middleware(fallbacks, { global: true })
