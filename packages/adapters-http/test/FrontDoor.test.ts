/**
 * The Node-side entrance of the server (src/server/front/): what reaches the
 * router through it. An upgrade request goes to the router's upgrade handler
 * (the app takes no upgrade, so it is answered as any request).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { describeExchange, exchange, head } from "./RawClient.ts"
import { TestServer } from "./TestServer.ts"

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
