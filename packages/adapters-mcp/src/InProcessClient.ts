/**
 * An HttpClient whose requests are answered by the server's own router in
 * this process, for the MCP tools behind /mcp: a request goes through the
 * very routes, middleware and handlers a request from the network goes
 * through, and never leaves the process. It is made on behalf of the MCP
 * caller: it carries the caller's own Authorization, X-Forwarded-For and
 * client address, exactly as the caller's POST to /mcp arrived, so
 * authentication establishes the same caller (tier, key, or the anonymous
 * address under the TRUST_PROXY rule) and the same rate limit is drawn.
 * Nothing is added that the caller did not send.
 */
import { Context, Effect, type Option, type Scope } from "effect"
import {
  Headers,
  HttpClient,
  HttpClientError,
  type HttpClientRequest,
  HttpClientResponse,
  HttpEffect,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"

/** Who a request is made for: what the caller's own request carried. */
export interface OnBehalfOf {
  readonly remoteAddress: Option.Option<string>
  readonly authorization: string | undefined
  readonly forwardedFor: string | undefined
}

/** The caller of a request to this server, as its request arrived. */
export const onBehalfOf = (request: HttpServerRequest.HttpServerRequest): OnBehalfOf => ({
  remoteAddress: request.remoteAddress,
  authorization: request.headers.authorization,
  forwardedFor: request.headers["x-forwarded-for"]
})

/** The origin of in-process requests: never contacted, it only makes URLs absolute. */
export const InProcessBaseUrl = "http://in-process.invalid"

type App = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  unknown,
  HttpServerRequest.HttpServerRequest | Scope.Scope
>

const withCaller = (request: HttpClientRequest.HttpClientRequest, caller: OnBehalfOf) => {
  const headers: Record<string, string> = { ...request.headers }
  delete headers.authorization
  delete headers["x-forwarded-for"]
  if (caller.authorization !== undefined) headers.authorization = caller.authorization
  if (caller.forwardedFor !== undefined) headers["x-forwarded-for"] = caller.forwardedFor
  return HttpServerRequest.fromClientRequest(request).modify({
    headers: Headers.fromInput(headers),
    remoteAddress: caller.remoteAddress
  })
}

/**
 * A client answered by `app` (the router's handler, taken when the first
 * request is made, once every route is registered), run with `context` (the
 * server's services) and a request carrying `caller`.
 */
export const inProcessClient = (app: () => App, context: Context.Context<never>, caller: OnBehalfOf) =>
  HttpClient.make((request) =>
    Effect.gen(function* () {
      const served = withCaller(request, caller)
      let answer: globalThis.Response | undefined
      // The answer is read whole while the request's scope is open (a streamed body ends with it).
      const handled = HttpEffect.toHandled(app(), (_request, response) =>
        Effect.promise(async () => {
          const web = HttpServerResponse.toWeb(response, { withoutBody: request.method === "HEAD" })
          const body = await web.arrayBuffer()
          answer = new globalThis.Response(body.byteLength === 0 ? null : body, {
            status: web.status,
            headers: web.headers
          })
        })
      )
      yield* Effect.provideContext(handled, Context.add(context, HttpServerRequest.HttpServerRequest, served))
      if (answer === undefined)
        return yield* new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, description: "the router did not answer" })
        })
      return HttpClientResponse.fromWeb(request, answer)
    })
  )
