/**
 * The /mcp endpoint: Effect's streamable HTTP MCP transport (McpServer.layerHttp)
 * on a router of its own, served through one handler on the server's (the app
 * mounts it beside the API), which bounds what a caller can make the server
 * keep: the sessions kept (McpSessionLimits), a body of at most
 * MaxMcpBodyBytes (413), and the sessions a client address opens (its
 * MCP-session allowance; `initialize`). A body is held to the API's rule on
 * JSON numbers and each request's id is answered exactly as written
 * (JsonRpcBodies.ts). Nothing of /mcp is cached: it is POST (the lane of cache
 * hits and the response cache serve the API's GETs) and every answer is
 * `Cache-Control: no-store`.
 */
import { ByteSize, Context, Duration, Effect, Layer, Option, Stream } from "effect"
import {
  Headers,
  HttpBody,
  HttpClientRequest,
  HttpEffect,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { clientAddressOf } from "@ratings/adapters-http/server/admission/Credential"
import { type RateLimitedError, ServiceUnavailableError } from "@ratings/adapters-http/api/Errors"
import type { PathBodyLimit } from "@ratings/adapters-http/server/front/BodyLimits"
import { RequestRateLimiter } from "@ratings/adapters-http/server/limits/RateLimit"
import { checkBody, restoreIds } from "./JsonRpcBodies.ts"

/** Where the server's streamable HTTP endpoint is mounted. */
export const McpPath = "/mcp"

export const MaxMcpBodyBytes = 65_536

/** The endpoint's body limit, for the Node server's 413 before any route (front/NodeServer.ts `bodyLimits`). */
export const McpBodyLimit: PathBodyLimit = { path: McpPath, maxBytes: MaxMcpBodyBytes }

/**
 * The bounds of the endpoint's sessions; a test provides smaller ones. A
 * session (the MCP revisions before 2026-07-28 open one per `initialize`) is
 * kept in memory by the transport until its client ends it: the endpoint
 * remembers the sessions it has seen issued, at most `maxSessions`, and ends
 * (an in-process DELETE) the one idle longest when a new one would pass the
 * bound, and any idle for `idle`. A client whose session was ended gets 404
 * for it, on which MCP clients initialize again.
 */
export interface SessionLimits {
  readonly maxSessions: number
  readonly idle: Duration.Duration
}

export const McpSessionLimits = Context.Reference<SessionLimits>("@ratings/adapters-mcp/McpSessionLimits", {
  defaultValue: () => ({ maxSessions: 2_000, idle: Duration.minutes(30) })
})

const SessionHeader = "mcp-session-id"

/** The sessions seen issued, least recently used first. */
const sessionTable = (limits: SessionLimits, now: () => number) => {
  const lastUsed = new Map<string, number>()
  return {
    touch: (id: string) => {
      if (!lastUsed.has(id)) return
      lastUsed.delete(id)
      lastUsed.set(id, now())
    },
    forget: (id: string) => lastUsed.delete(id),
    /** Adds a new session; the ones to end: idle too long, or the longest idle past the bound. */
    add: (id: string): ReadonlyArray<string> => {
      const ended: Array<string> = []
      const idleSince = now() - Duration.toMillis(limits.idle)
      for (const [known, at] of lastUsed) {
        if (at > idleSince && lastUsed.size - ended.length < limits.maxSessions) break
        ended.push(known)
      }
      for (const known of ended) lastUsed.delete(known)
      lastUsed.set(id, now())
      return ended
    },
    size: () => lastUsed.size
  }
}

const tooLarge = HttpServerResponse.jsonUnsafe(
  { detail: `request body too large: /mcp takes at most ${MaxMcpBodyBytes} bytes` },
  { status: 413 }
)

/**
 * Whether a JSON-RPC body opens a session: an `initialize` request, alone or
 * in a batch (the revisions before 2026-07-28; the sessionless revision's
 * requests carry no session and open none, and are not drawn).
 */
export const opensSession = (text: string): boolean => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return false
  }
  const initialize = (message: unknown) =>
    typeof message === "object" &&
    message !== null &&
    (message as { method?: unknown }).method === "initialize"
  return Array.isArray(parsed) ? parsed.some(initialize) : initialize(parsed)
}

/** `request` with another body (same method, URL, headers and client address), for the transport to read. */
const withBody = (request: HttpServerRequest.HttpServerRequest, body: string) =>
  HttpServerRequest.fromClientRequest(
    HttpClientRequest.post(`http://in-process.invalid${McpPath}`).pipe(HttpClientRequest.bodyText(body))
  ).modify({
    url: request.url,
    headers: Headers.set(request.headers, "content-length", String(Buffer.byteLength(body))),
    remoteAddress: request.remoteAddress,
    peerAddress: request.peerAddress
  })

const isBodyTooLarge = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) &&
  error.reason._tag === "RequestParseError" &&
  error.reason.reason === "BodyTooLarge"

/** A refused draw's answer: the allowance's 429, or the 503 of a store that fails closed. */
const rateLimited = (refused: RateLimitedError | ServiceUnavailableError) =>
  HttpServerResponse.jsonUnsafe(
    { detail: refused.detail },
    {
      status: refused instanceof ServiceUnavailableError ? 503 : 429,
      headers: { "cache-control": "no-store" }
    }
  )

/**
 * A POST's body, read once here (the transport reads the same, cached, or the
 * one rewritten from it); "too large" past MaxMcpBodyBytes (a chunked body
 * declares no length to refuse it by).
 */
const postedText = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<string | "too large" | undefined> =>
  request.method === "POST"
    ? request.text.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MaxMcpBodyBytes)),
        Effect.catch((error) => Effect.succeed(isBodyTooLarge(error) ? ("too large" as const) : undefined))
      )
    : Effect.succeed(undefined)

/**
 * The transport's whole answer, in a request frame of its own: its own
 * pre-response handlers applied (one of them names a new session) and its
 * body read, so that an initialize is drawn only once it is known to have
 * opened a session.
 */
const inFull = <E, R>(answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    let whole: HttpServerResponse.HttpServerResponse | undefined
    yield* HttpEffect.toHandled(answer, (_request, response) => {
      const body = response.body
      return body._tag === "Stream"
        ? Effect.map(Stream.mkUint8Array(body.stream), (bytes) => {
            whole = HttpServerResponse.setBody(response, HttpBody.uint8Array(bytes, body.contentType))
          })
        : Effect.sync(() => {
            whole = response
          })
    })
    if (whole === undefined) return yield* Effect.die(new Error("the MCP transport gave no answer"))
    return whole
  })

/** What an initialize needs of the endpoint: the allowance, the transport, and the sessions kept. */
interface Opening<E, R> {
  readonly limiter: RequestRateLimiter["Service"]
  readonly trustedHops: number
  readonly answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  readonly end: (id: string) => Effect.Effect<void>
  readonly sessions: ReturnType<typeof sessionTable>
}

/**
 * An initialize: refused at once (the API's 429, with Retry-After and the
 * allowance's RateLimit headers) when its client address's MCP-session
 * allowance is used up, answered, and drawn only when it opened a session.
 * One the transport refuses (an Origin header, a wrong media type, malformed
 * parameters) costs nothing, so that no web page can use up its visitors'
 * allowance. The address is the socket's or, behind `trustedHops` trusted
 * proxies, the one they forwarded (as authentication establishes it). A
 * session's own requests are not drawn here: the tool calls they make count
 * as API requests of their caller.
 */
const initialize = <E, R>(opening: Opening<E, R>, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const { limiter, end, sessions } = opening
    const address = clientAddressOf(
      request.remoteAddress,
      request.headers["x-forwarded-for"],
      opening.trustedHops
    )
    const spent = yield* Effect.flip(limiter.admitMcpSession(address)).pipe(Effect.option)
    if (Option.isSome(spent)) return rateLimited(spent.value)
    const answer = yield* inFull(opening.answer)
    const issued = answer.headers[SessionHeader]
    if (issued === undefined) return answer
    const refused = yield* Effect.flip(limiter.checkMcpSession(address)).pipe(Effect.option)
    if (Option.isSome(refused)) {
      // Another initialize from the address took the last of the allowance meanwhile: this session ends unused.
      yield* end(issued)
      return rateLimited(refused.value)
    }
    yield* Effect.forEach(sessions.add(issued), end, { discard: true })
    return answer
  })

/**
 * Mounts `transport` (a layer that registers the MCP routes on the HttpRouter
 * it is given) at McpPath of the server's router, as described above.
 */
export const mountMcp = <A, E, R>(
  transport: Layer.Layer<A, E, R | HttpRouter.HttpRouter>,
  trustedHops: number
) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const server = yield* HttpRouter.HttpRouter
      const own = yield* HttpRouter.make
      const sessions = sessionTable(yield* McpSessionLimits, Date.now)
      const context = yield* Effect.context<never>()
      let app: ReturnType<HttpRouter.HttpRouter["asHttpEffect"]> | undefined
      const mcpApp = () => (app ??= own.asHttpEffect())

      /** Ends a session as its client's DELETE would. */
      const end = (id: string) =>
        HttpEffect.toHandled(mcpApp(), () => Effect.void).pipe(
          Effect.provideContext(
            Context.add(
              context,
              HttpServerRequest.HttpServerRequest,
              HttpServerRequest.fromClientRequest(
                HttpClientRequest.delete(`http://in-process.invalid${McpPath}`).pipe(
                  HttpClientRequest.setHeader(SessionHeader, id)
                )
              )
            )
          )
        )

      /** The transport's answer to the current request, as the server's handler gives it. */
      const transportAnswer = mcpApp().pipe(
        Effect.catchDefect((defect) =>
          isBodyTooLarge(defect) ? Effect.succeed(tooLarge) : Effect.die(defect)
        ),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MaxMcpBodyBytes))
      )
      const opening = {
        limiter: yield* RequestRateLimiter,
        trustedHops,
        answer: transportAnswer,
        end,
        sessions
      }

      const handle = Effect.gen(function* () {
        const received = yield* HttpServerRequest.HttpServerRequest
        const length = Number(received.headers["content-length"] ?? 0)
        if (length > MaxMcpBodyBytes) return tooLarge
        const session = received.headers[SessionHeader]
        if (session !== undefined) sessions.touch(session)
        const text = yield* postedText(received)
        if (text === "too large") return tooLarge
        const checked = text === undefined ? undefined : checkBody(text)
        if (checked?._tag === "Refused") return checked.answer
        const ids = checked?.ids
        const request = ids === undefined ? received : withBody(received, ids.body)
        const opens = session === undefined && text !== undefined && opensSession(text)
        const answer = yield* (opens ? initialize(opening, request) : transportAnswer).pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, request)
        )
        if (received.method === "DELETE" && session !== undefined && answer.status === 204)
          sessions.forget(session)
        // Every answer is no-store. The transport names a session only for an initialize (drawn and held to the
        // bound above); should it name one for another request, that one is held to the bound here, after the
        // transport's own pre-response handler has named it.
        yield* HttpEffect.appendPreResponseHandler((_request, response) => {
          const issued = opens ? undefined : response.headers[SessionHeader]
          const ending =
            issued !== undefined && issued !== session
              ? Effect.forEach(sessions.add(issued), end, { discard: true })
              : Effect.void
          return Effect.as(ending, HttpServerResponse.setHeader(response, "cache-control", "no-store"))
        })
        return ids === undefined ? answer : restoreIds(answer, ids)
      })
      for (const method of ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"] as const)
        yield* server.add(method, McpPath, handle)
      return transport.pipe(Layer.provide(Layer.succeed(HttpRouter.HttpRouter, own)))
    })
  )
