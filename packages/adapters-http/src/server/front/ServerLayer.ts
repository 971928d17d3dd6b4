/**
 * The Effect HttpServer over a NodeServer (NodeServer.ts), in place of
 * NodeHttpServer.layer, whose server it keeps the behaviour of: it listens
 * (a failure is a ServeError) and gives the bound address; serving an app
 * puts the router's handlers (NodeHttpServer.makeHandler and
 * makeUpgradeHandler) behind the front door. When the app stops being
 * served, the server is closed, waited for at most `gracefulShutdownTimeout`,
 * and the router removed; when the layer closes, until every connection has
 * ended. With it come NodeHttpServer's other services: its HTTP platform,
 * ETag generator, file system and path.
 */
import { NodeHttpServer, NodeWS } from "@effect/platform-node"
import { Duration, Effect, Layer, Scope } from "effect"
import { type HttpMiddleware, HttpServer, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { ServeError } from "effect/http/HttpServerError"
import * as NetAddress from "effect/net/NetAddress"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { ListenOptions } from "node:net"
import type { Duplex } from "node:stream"
import type { NodeServer } from "./NodeServer.ts"

export interface Options extends ListenOptions {
  /** How long stopping to serve waits for the connections to end; default 20 seconds. */
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
}

/** The server's bound address, as Effect names one. */
const boundAddressOf = (server: NodeServer) => {
  const address = server.gate.address()!
  return typeof address === "string"
    ? Effect.succeed(NetAddress.unixPathAddress(address))
    : Effect.fromResult(NetAddress.inetAddressFromIpString(address.address, address.port)).pipe(
        Effect.mapError((cause) => new ServeError({ cause }))
      )
}

type App = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  unknown,
  HttpServerRequest.HttpServerRequest | Scope.Scope
>

/** The router's handlers of `app`, whose requests' fibers run in `scope`. */
const routerOf = (
  app: App,
  middleware: HttpMiddleware.HttpMiddleware | undefined,
  wss: Effect.Effect<NodeWS.WebSocketServer>,
  scope: Scope.Scope
) =>
  Effect.gen(function* () {
    const options = { middleware: middleware as never, scope }
    const request = yield* NodeHttpServer.makeHandler(app, options) as Effect.Effect<
      (request: IncomingMessage, response: ServerResponse) => void
    >
    const upgrade = yield* NodeHttpServer.makeUpgradeHandler(wss, app, options) as Effect.Effect<
      (request: IncomingMessage, socket: Duplex, head: Buffer) => void
    >
    return { request, upgrade }
  })

/** The HttpServer of the server `evaluate` makes, listening with `options` while the scope is open. */
export const make = Effect.fnUntraced(function* (evaluate: () => NodeServer, options: Options) {
  const scope = yield* Effect.scope
  const server = evaluate()
  const shutdown = yield* Effect.promise(() => server.close()).pipe(Effect.cached)
  const preemptiveShutdown = Effect.timeoutOrElse(shutdown, {
    duration: options.gracefulShutdownTimeout ?? Duration.seconds(20),
    orElse: () => Effect.void
  })
  yield* Scope.addFinalizer(scope, shutdown)
  yield* Effect.tryPromise({ try: () => server.listen(options), catch: (cause) => new ServeError({ cause }) })
  const address = yield* boundAddressOf(server)
  // Made at the first upgrade request only, and closed with the layer.
  const wss = yield* Effect.acquireRelease(
    Effect.sync(() => new NodeWS.WebSocketServer({ noServer: true })),
    (wss) => Effect.callback<void>((resume) => wss.close(() => resume(Effect.void)))
  ).pipe(Scope.provide(scope), Effect.cached)
  return HttpServer.make({
    address,
    serve: Effect.fnUntraced(function* (app, middleware) {
      const serveScope = yield* Effect.scope
      const router = yield* routerOf(app, middleware, wss, Scope.forkUnsafe(serveScope, "parallel"))
      yield* Scope.addFinalizerExit(serveScope, () =>
        Effect.ensuring(
          preemptiveShutdown,
          Effect.sync(() => {
            server.router = undefined
          })
        )
      )
      server.router = router
    })
  })
})

/** The HttpServer of the server `evaluate` makes, with the services NodeHttpServer.layer provides beside it. */
export const layer = (evaluate: () => NodeServer, options: Options) =>
  Layer.mergeAll(
    Layer.effect(HttpServer.HttpServer)(make(evaluate, options)),
    NodeHttpServer.layerHttpServices
  )
