/**
 * The Node-side entrance of the server (src/server/front/): what reaches the
 * router through it. Every request is counted and offered to the lane, which
 * answers it or hands it over (one expecting 100 Continue goes past the lane);
 * a request carries the handoff a lane gave it to the handler (Handoff.ts);
 * an upgrade request goes to the router's upgrade handler (the app takes no
 * upgrade, so it is answered as any request); with no router in place, 503.
 */
import type { AddressInfo } from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { FrontDoorRequest, handoffOf } from "../src/server/front/Handoff.ts"
import { createServer, type NodeServer } from "../src/server/front/NodeServer.ts"
import { layer as layerNodeServer } from "../src/server/front/ServerLayer.ts"
import { assertJsonError, describeExchange, exchange, head } from "./RawClient.ts"
import { TestServer } from "./TestServer.ts"

/** A route answering what its handler sees of the request's front door: its kind and its handoff. */
const HandoffRoute = HttpRouter.add("GET", "/handoff", (request) =>
  Effect.succeed(
    HttpServerResponse.jsonUnsafe({
      frontDoor: request.source instanceof FrontDoorRequest,
      handoff: handoffOf(request) ?? null
    })
  )
)

/** Serves HandoffRoute through the front door's layer while the scope is open; the server and its base URL. */
const served = Effect.gen(function* () {
  let server: NodeServer | undefined
  yield* Layer.build(
    HttpRouter.serve(HandoffRoute, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(layerNodeServer(() => (server = createServer()), { port: 0, host: "127.0.0.1" }))
    )
  )
  const node = server!
  return { server: node, url: `http://127.0.0.1:${(node.gate.address() as AddressInfo).port}/handoff` }
})

const getJson = (url: string) => Effect.promise(async () => (await fetch(url)).json() as Promise<unknown>)

describe("the handoff from a lane to the router", () => {
  it.effect("a lane's handoff reaches the handler, read by handoffOf; without a lane there is none", () =>
    Effect.gen(function* () {
      const { server, url } = yield* served
      assert.deepStrictEqual(yield* getJson(url), { frontDoor: true, handoff: null })
      server.lane = (request, _response, handOver) => {
        request.handoff = { versions: { api_keys: "7", protocol: "3" } }
        // Later, as a lane that read something first hands over.
        setTimeout(handOver, 10)
      }
      assert.deepStrictEqual(yield* getJson(url), {
        frontDoor: true,
        handoff: { versions: { api_keys: "7", protocol: "3" } }
      })
    })
  )

  it("a server request that did not come through the front door has no handoff", () => {
    const request = HttpServerRequest.fromWeb(new Request("http://localhost/handoff"))
    assert.isUndefined(handoffOf(request))
  })
})

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port)

layer(TestServer.layerMemory(), { excludeTestServices: true })("the front door, on the test server", (it) => {
  it.effect(
    "an upgrade request (to a protocol or to WebSocket) is answered by its route as usual, and the connection closed",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const upgrades: ReadonlyArray<Record<string, string>> = [
          { connection: "Upgrade", upgrade: "foo" },
          {
            connection: "Upgrade",
            upgrade: "websocket",
            "sec-websocket-version": "13",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
          }
        ]
        for (const headers of upgrades) {
          const e = yield* Effect.promise(() =>
            exchange(portOf(baseUrl), [{ bytes: head("GET", "/health", headers) }], { waitMs: 3_000 })
          )
          assert.strictEqual(e.status, 200, describeExchange(e))
          assert.strictEqual(e.body, '{"status":"ok"}', describeExchange(e))
          assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, 2_000, describeExchange(e))
        }
      }),
    { timeout: 30_000 }
  )
})

describe("the front door, on a bare server", () => {
  const listening = async (server: NodeServer) => {
    await server.listen({ port: 0, host: "127.0.0.1" })
    return (server.gate.address() as AddressInfo).port
  }
  const closed = (server: NodeServer) => {
    server.http.closeAllConnections()
    return server.close()
  }

  it("counts every request, offers it to the lane, and hands the router what the lane hands over; one expecting 100 Continue goes past the lane to the router, which reads its body", async () => {
    const server = createServer()
    server.router = {
      request: (request, response) => {
        let body = ""
        request.on("data", (chunk) => (body += chunk))
        request.on("end", () => response.end(`router read "${body}"`))
      },
      upgrade: (_request, socket) => socket.destroy()
    }
    server.lane = (request, response, handOver) => {
      if (request.url === "/lane") response.end("lane")
      else handOver()
    }
    const port = await listening(server)
    try {
      const lane = await exchange(port, [{ bytes: head("GET", "/lane", { connection: "close" }) }], {
        waitMs: 3_000
      })
      assert.strictEqual(lane.body, "lane", describeExchange(lane))
      const handed = await exchange(port, [{ bytes: head("GET", "/other", { connection: "close" }) }], {
        waitMs: 3_000
      })
      assert.strictEqual(handed.body, 'router read ""', describeExchange(handed))
      const continued = await exchange(
        port,
        [
          {
            bytes: head("POST", "/lane", {
              "content-length": "2",
              expect: "100-continue",
              connection: "close"
            })
          },
          { bytes: "ab", afterMs: 100 }
        ],
        { waitMs: 3_000 }
      )
      assert.match(continued.answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, continued.answer)
      assert.include(continued.answer, 'router read "ab"')
      const refused = await exchange(
        port,
        [{ bytes: head("POST", "/lane", { "content-length": "99999999", connection: "close" }) }],
        { waitMs: 3_000 }
      )
      assert.strictEqual(refused.status, 413, describeExchange(refused))
      assert.strictEqual(server.requestsStarted, 4)
    } finally {
      await closed(server)
    }
  })

  it("a request that comes while no router is in place is a JSON 503 and its connection closed", async () => {
    const server = createServer()
    const port = await listening(server)
    try {
      const e = await exchange(port, [{ bytes: head("GET", "/health") }], { waitMs: 3_000 })
      assertJsonError(e, 503, /not serving requests/)
      assert.strictEqual(e.headers.connection, "close", describeExchange(e))
      assert.isDefined(e.closedMs, describeExchange(e))
    } finally {
      await closed(server)
    }
  })
})
