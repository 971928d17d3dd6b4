/**
 * The /mcp endpoint as the HTTP server serves it beside the API (mounted
 * through the server's routes, its body limit given to the Node server): it
 * answers where the OpenAPI document points agents; its errors carry the
 * server's headers (no-store, nosniff); a body declared past its limit is a
 * JSON 413 at once, a chunked one past it a 413 too, and a body at the limit
 * is read; a body in another charset than UTF-8 is a 415; and while the
 * rate-limit store does not answer, an initialize is a fast 503 when MCP
 * sessions fail closed.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import {
  assertJsonError,
  describeExchange,
  exchange,
  head,
  type Step
} from "@ratings/adapters-http/test/RawClient"
import {
  redisServerInstalled,
  startThrowawayRedis,
  type ThrowawayRedis
} from "@ratings/adapters-http/test/Redis"
import { type Response, TestPolicies, TestServer } from "@ratings/adapters-http/test/TestServer"
import { Context, Duration, Effect, Layer } from "effect"
import { MaxMcpBodyBytes } from "../src/McpEndpoint.ts"
import { McpTestServer, onEachBackendWithMcp } from "./McpTestServer.ts"

const McpAccept = { accept: "application/json, text/event-stream" }
const TooLarge = `request body too large: /mcp takes at most ${MaxMcpBodyBytes} bytes`

const Initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
}

/** A raw exchange with the test server (fetch would normalise the target and hold back the body). */
const run = (steps: ReadonlyArray<Step>, waitMs: number, keepSending?: () => Step | undefined) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.promise(() => exchange(Number(new URL(server.baseUrl).port), steps, { waitMs, keepSending }))
  )

/** An error answer: the status expected, never stored, never sniffed. */
const assertRefused = (answer: Response, status: number, what: string) => {
  assert.strictEqual(answer.status, status, `${what}: ${answer.text.slice(0, 200)}`)
  assert.strictEqual(answer.headers.get("cache-control"), "no-store", `${what}: Cache-Control`)
  assert.strictEqual(answer.headers.get("x-content-type-options"), "nosniff", `${what}: nosniff`)
}

onEachBackendWithMcp((it) => {
  describe("/mcp beside the API", () => {
    it.effect(
      "the MCP server answers where the OpenAPI document points AI agents: the document names POST /mcp, and a POST there lists the tools",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const doc = (yield* server.get("/openapi.json")).json as { info: { description: string } }
          assert.include(doc.info.description, "POST /mcp")
          const tools = yield* server.request("/mcp", {
            method: "POST",
            headers: { ...McpAccept, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
            body: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/list",
              params: {
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
                  "io.modelcontextprotocol/clientCapabilities": {}
                }
              }
            }
          })
          assert.strictEqual(tools.status, 200)
          assert.include(tools.text, "get_rating_breakdown")
        })
    )

    it.effect(
      "invisible coverage names: a body declared in a charset other than UTF-8 is a JSON 415 at /mcp saying to send UTF-8, before authentication or decoding",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const text = JSON.stringify(Initialize)
          for (const [contentType, bytes] of [
            ["application/json; charset=utf-16", Buffer.from(`\uFEFF${text}`, "utf16le")],
            ["application/json; charset=latin1", Buffer.from(text, "latin1")]
          ] as const) {
            const answer = yield* Effect.promise(async () => {
              const res = await fetch(`${server.baseUrl}/mcp`, {
                method: "POST",
                headers: { ...McpAccept, "content-type": contentType },
                body: new Uint8Array(bytes)
              })
              return { status: res.status, text: await res.text() }
            })
            assert.strictEqual(answer.status, 415, `${contentType}: ${answer.text}`)
            assert.include(JSON.parse(answer.text).detail, "UTF-8", contentType)
          }
        })
    )
  })
})

layer(McpTestServer.layerMemory(), { excludeTestServices: true })("/mcp on the Node server", (it) => {
  it.effect(
    "every error answer of /mcp is Cache-Control: no-store and nosniff: 413 past its bound, 403 for a browser page, 405 GET without a session",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const cases: ReadonlyArray<readonly [number, string, Effect.Effect<Response>]> = [
          [
            413,
            "a body past its bound",
            server.request("/mcp", {
              method: "POST",
              headers: McpAccept,
              raw: JSON.stringify({ pad: "x".repeat(MaxMcpBodyBytes) })
            })
          ],
          [
            403,
            "a browser page's request",
            server.request("/mcp", {
              method: "POST",
              headers: { ...McpAccept, origin: "https://evil.example" },
              raw: "{}"
            })
          ],
          [405, "GET without a session", server.request("/mcp", { headers: McpAccept })]
        ]
        for (const [status, what, send] of cases) assertRefused(yield* send, status, what)
      })
  )

  it.effect(
    "a body declared over /mcp's limit is a JSON 413 at once, whatever the target's form, and the connection is closed unread; a client expecting 100 Continue gets the 413, never the 100",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [string, number]> = [
          ["/mcp", MaxMcpBodyBytes + 1],
          ["/mcp?x=1", 5_000_000],
          ["http://127.0.0.1/mcp", MaxMcpBodyBytes + 1]
        ]
        for (const [target, declared] of cases) {
          const started = performance.now()
          // Two bytes of the declared body, then more every 100 ms: none of it should matter.
          const e = yield* run(
            [
              {
                bytes: `${head("POST", target, { "content-type": "application/json", "content-length": String(declared) })}{}`
              }
            ],
            3_000,
            () => ({ bytes: "x", afterMs: 100 })
          )
          const label = `POST ${target} declaring ${declared}: ${describeExchange(e)}`
          assertJsonError(e, 413, TooLarge)
          assert.isBelow(e.firstByteMs ?? Number.POSITIVE_INFINITY, 1_000, `answered at once: ${label}`)
          assert.strictEqual(e.headers.connection, "close", label)
          assert.strictEqual(e.headers["cache-control"], "no-store", label)
          assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, 2_000, `closed: ${label}`)
          assert.isBelow(performance.now() - started, 2_500, label)
        }
        const continued = yield* run(
          [
            {
              bytes: head("POST", "/mcp", {
                "content-type": "application/json",
                "content-length": "50000000",
                expect: "100-continue"
              })
            }
          ],
          3_000
        )
        assert.notInclude(continued.answer, "100 Continue")
        assertJsonError(continued, 413, TooLarge)
        assert.isBelow(continued.closedMs ?? Number.POSITIVE_INFINITY, 2_000, describeExchange(continued))
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "a chunked body (no Content-Length) past /mcp's limit is a JSON 413 whatever the request's other headers (an Accept the transport would refuse), and the connection is closed",
    () =>
      Effect.gen(function* () {
        const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`
        for (const headers of [McpAccept, {}, { accept: "text/html" }]) {
          const e = yield* run(
            [
              {
                bytes: head("POST", "/mcp", {
                  ...headers,
                  "content-type": "application/json",
                  "transfer-encoding": "chunked"
                })
              }
            ],
            10_000,
            () => ({ bytes: chunk, afterMs: 5 })
          )
          assertJsonError(e, 413, TooLarge)
          assert.isDefined(e.closedMs, `closed: ${describeExchange(e)}`)
        }
      }),
    { timeout: 60_000 }
  )

  it.effect("a body declared at exactly /mcp's limit is read and answered, not refused", () =>
    Effect.gen(function* () {
      const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
      const e = yield* run(
        [
          {
            bytes: `${head("POST", "/mcp", {
              "content-type": "application/json",
              ...McpAccept,
              "content-length": String(MaxMcpBodyBytes),
              connection: "close"
            })}${ping}${" ".repeat(MaxMcpBodyBytes - ping.length)}`
          }
        ],
        5_000
      )
      assert.isDefined(e.status, describeExchange(e))
      assert.notStrictEqual(e.status, 413, describeExchange(e))
      assert.isBelow(e.status!, 500, describeExchange(e))
    })
  )
})

describe("/mcp when the rate-limit store stops answering", () => {
  /** A server on the throwaway Redis whose MCP-session allowance fails closed. */
  const serverOn = (redis: ThrowawayRedis) =>
    Effect.map(
      Layer.build(
        McpTestServer.layerMemory(undefined, {
          policies: {
            ...TestPolicies,
            redisUrl: redis.url,
            redisKeyPrefix: `ratings-test:${crypto.randomUUID()}:`,
            storeTimeout: Duration.millis(100),
            onStoreFailure: { requests: "open", mcpSessions: "closed" }
          }
        })
      ),
      (c) => Context.get(c, TestServer)
    )

  const initialize = (server: TestServer["Service"]) =>
    Effect.gen(function* () {
      const started = performance.now()
      const response = yield* server.request("/mcp", { method: "POST", headers: McpAccept, body: Initialize })
      return { response, ms: performance.now() - started }
    })

  it("Redis frozen, then killed: an MCP initialize is a fast 503 (MCP sessions fail closed), no-store with Retry-After", async (ctx) => {
    if (!redisServerInstalled()) ctx.skip("redis-server is not installed: this test runs a Redis of its own")
    const redis = await startThrowawayRedis()
    try {
      const program = Effect.gen(function* () {
        const server = yield* serverOn(redis)
        assert.strictEqual((yield* initialize(server)).response.status, 200, "opened while Redis answers")
        for (const [outage, begin] of [
          ["frozen", () => Effect.sync(redis.freeze)],
          ["killed", () => Effect.promise(redis.kill)]
        ] as const) {
          yield* begin()
          // The first draw of an outage waits the store's timeout; the next ones answer at once: within
          // 500 ms on a loaded machine, far below the seconds waiting on Redis to come back would take.
          yield* initialize(server)
          const { response, ms } = yield* initialize(server)
          assert.strictEqual(response.status, 503, `${outage}: ${response.status} ${response.text}`)
          assert.deepStrictEqual(response.json, { detail: "service unavailable" }, outage)
          assert.strictEqual(response.headers.get("retry-after"), "5", outage)
          assert.strictEqual(response.headers.get("cache-control"), "no-store", outage)
          assert.isBelow(ms, 500, `${outage}: the initialize waited ${Math.round(ms)} ms`)
          if (outage === "frozen") redis.thaw()
        }
      })
      await Effect.runPromise(Effect.scoped(program))
    } finally {
      await redis.stop()
    }
  })
})
