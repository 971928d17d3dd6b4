/**
 * A real webhook receiver for the transport tests: a node:http server on an
 * ephemeral loopback port that keeps every request's raw body bytes and
 * counts the TCP connections it accepted, so a test can prove that a refused
 * target was never even connected to.
 *
 * It listens on `::` (dual stack) when the host has IPv6, so `[::1]` and
 * IPv4-mapped URLs reach it as well as 127.0.0.1; otherwise on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { Socket } from "node:net"
import { Effect, type Scope } from "effect"

export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  /** The body exactly as received, before any decoding. */
  readonly raw: Buffer
}

export interface Receiver {
  readonly port: number
  /** `http://127.0.0.1:<port>` (or https). */
  readonly origin: string
  readonly requests: Array<ReceivedRequest>
  /** TCP connections accepted so far. */
  readonly connections: () => number
}

/** What the receiver does with a request, once its whole body has arrived. */
export type Handler = (request: ReceivedRequest, response: ServerResponse, socket: Socket) => void

const listen = (server: Server, host: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, host, () => {
      server.off("error", reject)
      resolve()
    })
  })

const start = async (server: Server, handler: Handler, protocol: "http" | "https"): Promise<Receiver> => {
  const requests: Array<ReceivedRequest> = []
  let connections = 0
  server.on(protocol === "https" ? "secureConnection" : "connection", () => {
    connections++
  })
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        raw: Buffer.concat(chunks)
      }
      requests.push(received)
      handler(received, res, req.socket)
    })
  })
  try {
    await listen(server, "::")
  } catch {
    await listen(server, "127.0.0.1")
  }
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { port, origin: `${protocol}://127.0.0.1:${port}`, requests, connections: () => connections }
}

const stop = (server: Server) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )

/** A receiver for the life of the current scope. */
export const receiver = (handler: Handler): Effect.Effect<Receiver, never, Scope.Scope> => {
  const server = createServer({ keepAliveTimeout: 30_000 })
  return Effect.acquireRelease(
    Effect.promise(() => start(server, handler, "http")),
    () => stop(server)
  )
}

/** A TLS receiver with the given certificate, for the tls failure mode. */
export const httpsReceiver = (
  tls: { readonly key: string; readonly cert: string },
  handler: Handler
): Effect.Effect<Receiver, never, Scope.Scope> => {
  const server = createHttpsServer({ key: tls.key, cert: tls.cert })
  return Effect.acquireRelease(
    Effect.promise(() => start(server, handler, "https")),
    () => stop(server)
  )
}

/** Answers every request with `status` and a short body. */
export const answer =
  (status: number, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, headers).end("ok")
  }

/** A port nothing listens on: bound, read, released. */
export const closedPort = Effect.promise(async () => {
  const server = createServer()
  await listen(server, "127.0.0.1")
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
})
