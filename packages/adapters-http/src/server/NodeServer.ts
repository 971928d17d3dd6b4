/**
 * The Node HTTP server the API runs on. Requests Node refuses before any
 * route sees them (headers over its 16 KiB limit, a malformed request line, a
 * request not received in time) get the API's JSON error body instead of
 * Node's empty answer: `{"detail": "..."}` with 431, 400 or 408, never
 * stored and never sniffed, like every error of the router (SecurityHeaders.ts).
 *
 * As Node does by default, an answer is written only on a socket nothing has
 * been written to yet (never after a response began, such as an export cut
 * mid-stream), and the socket is closed either way.
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

export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const net = socket as Duplex & { readonly bytesWritten?: number }
  if (error.code !== "ECONNRESET" && net.writable && (net.bytesWritten ?? 0) === 0) {
    const [status, reason, detail] = answerOf(error.code)
    const body = JSON.stringify({ detail })
    net.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  }
  net.destroy()
}

/**
 * A lane in front of the application (HitLane.ts): it answers a request
 * itself, or calls `handOver` (at once or later) for the application's
 * handler to answer it.
 */
export type Lane = (request: IncomingMessage, response: ServerResponse, handOver: () => void) => void

/** What a server's drain needs: its open connections, and how many requests each has in flight. */
interface Tracking {
  readonly sockets: Map<Socket, { inFlight: number; served: number }>
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

/**
 * Tracks a server's connections and requests in flight, for `drain`, and
 * puts the lane (once installed) in front of the `request` listeners: every
 * request is tracked, then offered to the lane, and reaches the listeners
 * (the application) only when the lane hands it over.
 */
const track = (server: Server): void => {
  const t: Tracking = { sockets: new Map(), draining: false, lane: undefined, requests: 0 }
  tracking.set(server, t)
  server.on("connection", (socket: Socket) => {
    t.sockets.set(socket, { inFlight: 0, served: 0 })
    socket.once("close", () => t.sockets.delete(socket))
  })
  const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
  server.emit = ((event: string, ...args: Array<unknown>): boolean => {
    if (event !== "request") return emit(event, ...args)
    const request = args[0] as IncomingMessage
    const response = args[1] as ServerResponse
    t.requests++
    trackRequest(t, request, response)
    if (t.lane === undefined) return emit(event, request, response)
    t.lane(request, response, () => emit(event, request, response))
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

/** `http.createServer` with the API's answers to requests Node refuses itself. */
export const createServer = (): Server => {
  const server = createNodeServer()
  server.on("clientError", onClientError)
  track(server)
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
