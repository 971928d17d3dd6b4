/**
 * The Node side of the server's entrance. The gate (Connections.ts) listens
 * and admits connections; Node's HTTP server parses their requests and gives
 * each to its request listener, the front door: the one place where a
 * request meets what stands before the router. There it is counted and
 * tracked for the drain (Drain.ts), refused with 413 when it declares a body
 * over its route's limit (BodyLimits.ts), offered to the lane of cache hits
 * (HitLane.ts), and handed to the router when the lane hands it over.
 * Requests Node refuses itself get the API's JSON answers (RawAnswers.ts).
 */
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse
} from "node:http"
import type { ListenOptions, Server as NetServer, Socket } from "node:net"
import type { Duplex } from "node:stream"
import {
  type BodyLimits,
  bodyLimitsOf,
  declaredTooLarge,
  type PathBodyLimit,
  refuseBody
} from "./BodyLimits.ts"
import { DefaultConnectionLimits } from "./ConnectionDefaults.ts"
import { Connections, makeGate, trackRequest } from "./Connections.ts"
import { continueWhenRead } from "./Continue.ts"
import { FrontDoorRequest } from "./Handoff.ts"
import { onClientError, refuseConnection } from "./RawAnswers.ts"

export { DefaultConnectionLimits }

/**
 * A lane in front of the router (HitLane.ts): it answers a request itself,
 * or calls `handOver` (at once or later) for the router to answer it, having
 * put in the request's `handoff` what the router need not learn again.
 */
export type Lane = (request: FrontDoorRequest, response: ServerResponse, handOver: () => void) => void

/** The router's handlers of Node's requests and upgrade requests (ServerLayer.ts). */
export interface Router {
  readonly request: (request: IncomingMessage, response: ServerResponse) => void
  readonly upgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void
}

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

/**
 * How often Node looks for requests past their timeouts: a quarter of the
 * shorter one, so one is closed at most a quarter late (Node's default
 * interval, 30 s, would more than double a 20 s bound).
 */
const checkingIntervalOf = (headersMs: number, requestMs: number): number =>
  Math.max(50, Math.min(5_000, Math.floor(Math.min(headersMs, requestMs) / 4)))

const NotServingDetail = "the server is not serving requests at the moment: retry in a moment"

/** The answer to a request that comes while no router is in place (before it serves, or after it stopped). */
const notServing = (response: ServerResponse): void => {
  const body = JSON.stringify({ detail: NotServingDetail })
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "retry-after": "1",
    connection: "close"
  })
  response.end(body)
}

/**
 * A server: the gate that listens, Node's HTTP server behind it, and its
 * front door, with the lane and the router it hands requests to (both set
 * while the server serves; see ServerLayer.ts and HttpServerLive.ts).
 */
export class NodeServer {
  /** The lane of cache hits in front of the router; undefined: none. */
  lane: Lane | undefined = undefined
  /** The router; undefined until the server serves, and once it has stopped. */
  router: Router | undefined = undefined
  /** Requests started on the server so far. */
  requestsStarted = 0
  readonly connections = new Connections()
  /** Node's HTTP server: it parses the requests of the connections the gate gives it, and never listens itself. */
  readonly http: Server<typeof FrontDoorRequest>
  /** What listens: it admits or refuses each connection, and gives the admitted ones to `http`. */
  readonly gate: NetServer
  private readonly bodyLimits: BodyLimits

  constructor(limits: ConnectionLimits = {}) {
    const requestTimeout = limits.requestTimeoutMs ?? DefaultConnectionLimits.requestTimeoutMs
    // Node refuses a headers timeout longer than the request's: a shorter request timeout bounds both.
    const headersTimeout = Math.min(
      limits.headersTimeoutMs ?? DefaultConnectionLimits.headersTimeoutMs,
      requestTimeout
    )
    this.bodyLimits = bodyLimitsOf(limits.bodyLimits ?? [])
    this.http = createNodeServer(
      {
        IncomingMessage: FrontDoorRequest,
        headersTimeout,
        requestTimeout,
        connectionsCheckingInterval: checkingIntervalOf(headersTimeout, requestTimeout)
      },
      (request, response) => this.enter(request, response, false)
    )
    // With a listener, Node leaves the 100 to the application: sent when the router reads the body.
    this.http.on("checkContinue", (request, response) => this.enter(request, response, true))
    this.http.on("upgrade", (request, socket, head) => this.upgrade(request, socket, head))
    this.http.on("clientError", onClientError)
    const caps = {
      maxConnectionsPerAddress:
        limits.maxConnectionsPerAddress ?? DefaultConnectionLimits.maxConnectionsPerAddress,
      maxConnections: limits.maxConnections ?? DefaultConnectionLimits.maxConnections,
      onCapped: limits.onCapped
    }
    this.gate = makeGate(this.connections, caps, (socket: Socket) => this.http.emit("connection", socket))
  }

  /**
   * The front door: every request (and every one expecting `100 Continue`,
   * which goes past the lane to the router) comes through here, in this order.
   */
  private enter(request: FrontDoorRequest, response: ServerResponse, expectsContinue: boolean): void {
    this.requestsStarted++
    trackRequest(this.connections, request, response)
    const tooLarge = declaredTooLarge(request, this.bodyLimits)
    if (tooLarge !== undefined) refuseBody(request, response, tooLarge)
    else if (expectsContinue) {
      continueWhenRead(request, response)
      this.toRouter(request, response)
    } else if (this.lane === undefined) this.toRouter(request, response)
    else this.lane(request, response, () => this.toRouter(request, response))
  }

  private toRouter(request: FrontDoorRequest, response: ServerResponse): void {
    if (this.router === undefined) notServing(response)
    else this.router.request(request, response)
  }

  /** An upgrade request goes to the router's upgrade handler, as it comes: the app takes no upgrade itself. */
  private upgrade(request: FrontDoorRequest, socket: Duplex, head: Buffer): void {
    if (this.router === undefined) refuseConnection(socket as Socket, 503, NotServingDetail)
    else this.router.upgrade(request, socket, head)
  }

  /** Starts listening (the gate); fails as `listen` does, on an address in use for one. */
  listen(options: ListenOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      this.gate.once("error", reject)
      this.gate.listen(options, () => {
        this.gate.off("error", reject)
        // Node's HTTP server starts checking its requests' timeouts on its `listening` event;
        // it never listens itself, so it is told when the gate does.
        this.http.emit("listening")
        resolve()
      })
    })
  }

  /**
   * Stops listening, closes the idle connections at once and stops the
   * timeout checks (as Node's own `close` does), and resolves once every
   * connection has ended.
   */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.http.close()
      if (!this.gate.listening) return resolve()
      this.gate.close(() => resolve())
    })
  }
}

/**
 * A server with the API's answers to requests Node refuses itself, and the
 * bounds of `limits` (DefaultConnectionLimits for what it leaves out).
 */
export const createServer = (limits: ConnectionLimits = {}): NodeServer => new NodeServer(limits)
