/**
 * The Node HTTP server the API runs on. Requests Node refuses before any
 * route sees them (headers over its 16 KiB limit, a malformed request line, a
 * request not received in time) get the API's JSON error body instead of
 * Node's empty answer: `{"detail": "..."}` with 431, 400 or 408, never
 * stored and never sniffed, like every error of the router (SecurityHeaders.ts).
 *
 * As Node does by default, an answer is written only when no response of the
 * connection is being written (never after a response began, such as an
 * export cut mid-stream), and the socket is closed either way.
 *
 * What a client may hold of the server is bounded (ConnectionLimits): the
 * time to send a request's headers and the whole request (a response's own
 * time is not bounded: a long export streams on), the connections open at
 * once from one socket address and in all (a connection past a cap is
 * answered 429 or 503 and closed, before any request of it is read), and a
 * body declared larger than its route takes (the API's MaxRequestBodyBytes, or
 * a path's own limit in `bodyLimits`) is a 413 at once, before the lane of
 * cache hits and the router, without reading the body.
 *
 * `drain` stops a server gracefully: no new connections, every request in
 * flight (and its streamed body) may finish within a grace period, and each
 * connection closes once its response is sent instead of staying open for
 * keep-alive; what is still open when the grace runs out is closed.
 */
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse
} from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import type { Duplex } from "node:stream"
import { FrontDoorRequest } from "./front/Handoff.ts"
import { BodyTooLargeDetail, MaxRequestBodyBytes } from "./RouterFallbacks.ts"

const answerOf = (code: string | undefined): readonly [number, string, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [
        431,
        "Request Header Fields Too Large",
        "request headers too large: the request line and headers must stay under 16 KiB"
      ]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "request not received in time"]
    default:
      return [400, "Bad Request", "malformed HTTP request"]
  }
}

/**
 * An answer written on the socket itself, before or instead of Node's HTTP
 * machinery: the API's JSON body, never stored or sniffed, and the
 * connection closed after it.
 */
const rawAnswer = (status: number, reason: string, detail: string, extra = ""): string => {
  const body = JSON.stringify({ detail })
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n` +
    `X-Content-Type-Options: nosniff\r\n${extra}Connection: close\r\n\r\n${body}`
  )
}

/** The response a connection is writing, if any (Node's own field, which its default answer reads too). */
type HttpSocket = Duplex & { readonly _httpMessage?: ServerResponse | null }

export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const net = socket as HttpSocket
  const writing = net._httpMessage
  if (error.code !== "ECONNRESET" && net.writable && (writing == null || !writing.headersSent)) {
    net.end(rawAnswer(...answerOf(error.code)))
  }
  net.destroy()
}

/**
 * A lane in front of the application (HitLane.ts): it answers a request
 * itself, or calls `handOver` (at once or later) for the application's
 * handler to answer it.
 */
export type Lane = (request: FrontDoorRequest, response: ServerResponse, handOver: () => void) => void

/**
 * What a client may hold of the server. Node's own defaults let a request's
 * headers take a minute and its body five, with no bound on connections.
 */
export interface ConnectionLimits {
  /** How long a client has to send a request's headers (Node's `headersTimeout`); at most `requestTimeoutMs`. */
  readonly headersTimeoutMs?: number | undefined
  /**
   * How long a client has to send a whole request, headers and body (Node's
   * `requestTimeout`); past it, 408 and the connection is closed. A response
   * is not bounded by it: an export streams for as long as it takes.
   */
  readonly requestTimeoutMs?: number | undefined
  /**
   * Connections open at once from one socket address (behind a proxy, all are
   * the proxy's); a new one past it is answered 429 and closed. 0: no cap.
   */
  readonly maxConnectionsPerAddress?: number | undefined
  /** Connections open at once in all; a new one past it is answered 503 and closed. 0: no cap. */
  readonly maxConnections?: number | undefined
  /** Told, in a line for the log, when an address (or the server) reaches its cap; not again until it has fallen to half. */
  readonly onCapped?: ((line: string) => void) | undefined
  /** The paths whose routes take another body size than the API's (an endpoint mounted beside it). */
  readonly bodyLimits?: ReadonlyArray<PathBodyLimit> | undefined
}

/** A path (without query) whose route reads at most `maxBytes` of body instead of MaxRequestBodyBytes. */
export interface PathBodyLimit {
  readonly path: string
  readonly maxBytes: number
}

/** The bounds unless configured: tens of seconds to send a request, 256 connections per address, no total cap. */
export const DefaultConnectionLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  maxConnectionsPerAddress: 256,
  maxConnections: 0
} as const

/**
 * How often Node looks for requests past their timeouts: a quarter of the
 * shorter one, so one is closed at most a quarter late (Node's default
 * interval, 30 s, would more than double a 20 s bound).
 */
const checkingIntervalOf = (headersMs: number, requestMs: number): number =>
  Math.max(50, Math.min(5_000, Math.floor(Math.min(headersMs, requestMs) / 4)))

/** What a server's drain needs: its open connections, and how many requests each has in flight. */
interface Tracking {
  readonly sockets: Map<Socket, { inFlight: number; served: number }>
  /** Open connections per remote address, while the per-address cap is on. */
  readonly perAddress: Map<string, number>
  /** The addresses (and "*", the server) that reached their cap and were logged, until they fall to half. */
  readonly capped: Set<string>
  draining: boolean
  lane: Lane | undefined
  /** Requests started on the server so far. */
  requests: number
}

const tracking = new WeakMap<Server, Tracking>()

/** Counts a request in flight on its connection until its response closes. */
const trackRequest = (t: Tracking, request: IncomingMessage, response: ServerResponse): void => {
  const state = t.sockets.get(request.socket as Socket)
  if (state !== undefined) {
    state.inFlight++
    // `close` follows `finish` (the last byte handed to the OS) or a lost connection.
    response.once("close", () => {
      state.inFlight--
      state.served++
    })
  }
  // Before anyone answers, so a response during a drain is written with `Connection: close`.
  if (t.draining) response.shouldKeepAlive = false
}

/** How long a closed connection's client has to read the answer before the socket is destroyed. */
const CloseGraceMs = 500

/**
 * Closes a socket whose client may still be sending: our side ends at once,
 * and the socket is destroyed when the client ends too or after CloseGraceMs.
 * Destroying it at once, with the client's bytes still arriving, would reset
 * the connection and could lose the answer before the client reads it.
 */
const closeGently = (socket: Socket): void => {
  if (socket.destroyed) return
  socket.end()
  const timer = setTimeout(() => socket.destroy(), CloseGraceMs)
  socket.once("close", () => clearTimeout(timer))
}

/** Node's own fields its `finish` listener reads to decide whether to read the rest of a body and to close. */
type Internals = { _consuming: boolean; _last: boolean }

const pathOf = (url: string): string => {
  // An absolute-form target (`POST http://host/path`) names the same route as its path.
  const path = url.startsWith("/") ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "")
  const end = path.search(/[?#]/)
  return end === -1 ? path : path.slice(0, end)
}

/** The body limits of a server, looked up per request: the smallest, and each path's own with its 413. */
interface BodyLimits {
  readonly smallest: number
  readonly byPath: ReadonlyMap<string, { readonly maxBytes: number; readonly detail: string }>
}

const bodyLimitsOf = (paths: ReadonlyArray<PathBodyLimit>): BodyLimits => ({
  smallest: Math.min(MaxRequestBodyBytes, ...paths.map((p) => p.maxBytes)),
  byPath: new Map(
    paths.map((p) => [
      p.path,
      { maxBytes: p.maxBytes, detail: `request body too large: ${p.path} takes at most ${p.maxBytes} bytes` }
    ])
  )
})

/** The 413 of a request whose declared Content-Length is over its route's limit; undefined for the others. */
const declaredTooLarge = (request: IncomingMessage, limits: BodyLimits): string | undefined => {
  const declared = request.headers["content-length"]
  // Node has checked it is a number; under the smallest limit (most requests), no path to look at.
  if (declared === undefined || !(Number(declared) > limits.smallest)) return undefined
  const own = limits.byPath.size === 0 ? undefined : limits.byPath.get(pathOf(request.url ?? "/"))
  if (own !== undefined) return Number(declared) > own.maxBytes ? own.detail : undefined
  return Number(declared) > MaxRequestBodyBytes ? BodyTooLargeDetail : undefined
}

/**
 * Answers 413 and closes the connection without reading the body: a client
 * declaring more than the route takes gets its answer at once instead of the
 * server waiting for (or reading) bytes it would refuse anyway.
 */
const refuseBody = (request: IncomingMessage, response: ServerResponse, detail: string): void => {
  const body = JSON.stringify({ detail })
  // Before Node's own `finish` listener, which would read the rest of the body, then destroy the socket at once.
  response.prependListener("finish", () => {
    if (request.complete || request.destroyed) return
    ;(request as unknown as Internals)._consuming = true
    ;(response as unknown as Internals)._last = false
    closeGently(request.socket as Socket)
  })
  response.writeHead(413, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "access-control-allow-origin": "*",
    connection: "close"
  })
  response.end(body)
}

/** Answers a connection past a cap before any request of it is read, and closes it. */
const refuseConnection = (socket: Socket, status: 429 | 503, detail: string): void => {
  socket.on("error", () => {})
  socket.write(
    rawAnswer(
      status,
      status === 429 ? "Too Many Requests" : "Service Unavailable",
      detail,
      "Retry-After: 1\r\nAccess-Control-Allow-Origin: *\r\n"
    )
  )
  // What the client sends meanwhile is discarded, so that it ends cleanly.
  socket.resume()
  closeGently(socket)
}

/**
 * Admits a new connection, or answers it and closes it when its address
 * (or the server) has its cap of connections open: O(1), counted per
 * connection, nothing per request.
 */
const admit = (t: Tracking, limits: ConnectionLimits, socket: Socket): boolean => {
  const total = limits.maxConnections ?? 0
  const cap = limits.maxConnectionsPerAddress ?? 0
  const address = socket.remoteAddress
  if (total > 0 && t.sockets.size >= total) {
    if (!t.capped.has("*")) {
      t.capped.add("*")
      limits.onCapped?.(
        `connections: the server has ${total} connections open, its cap; new ones are answered 503 until it falls to half`
      )
    }
    refuseConnection(socket, 503, `the server has too many open connections: retry in a moment`)
    return false
  }
  const open = cap > 0 && address !== undefined ? (t.perAddress.get(address) ?? 0) : -1
  if (open >= cap && open !== -1) {
    if (!t.capped.has(address!)) {
      t.capped.add(address!)
      limits.onCapped?.(
        `connections: ${address} has ${cap} connections open, the cap per address; its new ones are answered 429 until it falls to half`
      )
    }
    refuseConnection(
      socket,
      429,
      `too many open connections from this address: at most ${cap} at once; close one and retry`
    )
    return false
  }
  const state = { inFlight: 0, served: 0 }
  t.sockets.set(socket, state)
  if (open !== -1) t.perAddress.set(address!, open + 1)
  socket.once("close", () => {
    t.sockets.delete(socket)
    if (t.capped.size > 0 && t.capped.has("*") && t.sockets.size <= total / 2) t.capped.delete("*")
    if (open === -1) return
    const left = (t.perAddress.get(address!) ?? 1) - 1
    if (left === 0) t.perAddress.delete(address!)
    else t.perAddress.set(address!, left)
    if (t.capped.size > 0 && left <= cap / 2) t.capped.delete(address!)
  })
  return true
}

/**
 * Tracks a server's connections and requests in flight, for `drain`, and
 * puts the lane (once installed) in front of the `request` listeners: every
 * connection is admitted or refused by the limits, every request is tracked
 * and refused with 413 when it declares a body over its route's limit, then
 * offered to the lane, and reaches the listeners (the application) only when
 * the lane hands it over. A request that expects `100 Continue` is tracked
 * and checked too, and goes to the application (which sends the 100 when it
 * reads the body).
 */
const track = (server: Server, limits: ConnectionLimits): void => {
  const t: Tracking = {
    sockets: new Map(),
    perAddress: new Map(),
    capped: new Set(),
    draining: false,
    lane: undefined,
    requests: 0
  }
  tracking.set(server, t)
  const bodyLimits = bodyLimitsOf(limits.bodyLimits ?? [])
  const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
  server.emit = ((event: string, ...args: Array<unknown>): boolean => {
    if (event === "connection") return admit(t, limits, args[0] as Socket) && emit(event, ...args)
    if (event !== "request" && event !== "checkContinue") return emit(event, ...args)
    const request = args[0] as IncomingMessage
    const response = args[1] as ServerResponse
    t.requests++
    trackRequest(t, request, response)
    const tooLarge = declaredTooLarge(request, bodyLimits)
    if (tooLarge !== undefined) {
      refuseBody(request, response, tooLarge)
      return true
    }
    if (t.lane === undefined || event === "checkContinue") return emit(event, request, response)
    t.lane(request as FrontDoorRequest, response, () => emit(event, request, response))
    return true
  }) as Server["emit"]
}

/** Puts `lane` in front of the server's application (undefined: removes it). */
export const installLane = (server: Server, lane: Lane | undefined): void => {
  const t = tracking.get(server)
  if (t === undefined) throw new Error("installLane: a server made by createServer is needed")
  t.lane = lane
}

/** How many requests have started on a server made by `createServer`. */
export const requestsStarted = (server: Server): number => tracking.get(server)?.requests ?? 0

/**
 * `http.createServer` with the API's answers to requests Node refuses itself,
 * and the bounds of `limits` (DefaultConnectionLimits for what it leaves out).
 */
export const createServer = (limits: ConnectionLimits = {}): Server => {
  const requestTimeout = limits.requestTimeoutMs ?? DefaultConnectionLimits.requestTimeoutMs
  // Node refuses a headers timeout longer than the request's: a shorter request timeout bounds both.
  const headersTimeout = Math.min(
    limits.headersTimeoutMs ?? DefaultConnectionLimits.headersTimeoutMs,
    requestTimeout
  )
  const server = createNodeServer({
    IncomingMessage: FrontDoorRequest,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: checkingIntervalOf(headersTimeout, requestTimeout)
  })
  server.on("clientError", onClientError)
  track(server, {
    ...limits,
    maxConnectionsPerAddress:
      limits.maxConnectionsPerAddress ?? DefaultConnectionLimits.maxConnectionsPerAddress,
    maxConnections: limits.maxConnections ?? DefaultConnectionLimits.maxConnections
  })
  return server
}

/** How often a drain closes the connections that have become idle. */
const SweepIntervalMs = 50
/** How long a drain waits for the first request of a connection accepted before it began. */
export const FirstRequestWaitMs = 1_000

/**
 * Stops accepting connections and waits, at most `graceMs`, for every open
 * connection to finish its responses; `onCut` runs just before the ones
 * still open then are closed. Resolves with how many were cut (0: none).
 *
 * A connection is closed as soon as it is idle: its responses all sent
 * (not merely written: Node's own `closeIdleConnections` would cut a large
 * body still flushing), or no request on it yet `FirstRequestWaitMs` after
 * the drain began. Node's `server.close` is not used for that reason: it
 * calls `closeIdleConnections` first. Requests that arrive during the drain
 * are served, with `Connection: close`.
 */
export const drain = (server: Server, graceMs: number, onCut: () => void): Promise<number> =>
  new Promise((resolve) => {
    const t = tracking.get(server)
    if (t === undefined || !server.listening) return resolve(0)
    t.draining = true
    const began = Date.now()
    let done = false
    const finish = (cut: number) => {
      if (done) return
      done = true
      clearInterval(sweep)
      clearTimeout(timer)
      resolve(cut)
    }
    const closeIdle = () => {
      const waited = Date.now() - began >= FirstRequestWaitMs
      for (const [socket, state] of t.sockets)
        if (state.inFlight === 0 && (state.served > 0 || waited)) socket.destroy()
    }
    const sweep = setInterval(closeIdle, SweepIntervalMs)
    const timer = setTimeout(() => {
      const open = t.sockets.size
      onCut()
      for (const socket of t.sockets.keys()) socket.destroy()
      finish(open)
    }, graceMs)
    // net.Server's close: stop listening; the callback runs once every connection has ended.
    NetServer.prototype.close.call(server, () => finish(0))
    closeIdle()
  })
