/**
 * The /mcp endpoint's bounds (mcp/McpEndpoint.ts): the sessions MCP clients
 * open are at most McpSessionLimits.maxSessions, the one idle longest ended
 * when a new one would pass it, and any idle for McpSessionLimits.idle ended;
 * a client's DELETE ends its own; a body past 64 KiB is a 413; a browser
 * page's request is refused; nothing /mcp answers may be cached.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { McpClient, McpProtocol } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { MaxMcpBodyBytes, McpSessionLimits } from "../src/mcp/McpEndpoint.ts"
import { RatingsToolkit } from "../src/mcp/RatingsTools.ts"
import { TestServer } from "./TestServer.ts"

const ToolCount = Object.keys(RatingsToolkit.tools).length

/** A legacy (sessionful) client of the server's /mcp, for the scope. */
const client = Effect.gen(function* () {
  const server = yield* TestServer
  const transport = yield* McpClient.http({
    url: `${server.baseUrl}/mcp`,
    protocol: McpProtocol.v2025_11_25
  }).pipe(Effect.provide(FetchHttpClient.layer))
  return yield* McpClient.make({ name: "bounds", version: "1" }).pipe(
    Effect.provideService(McpClient.Transport, transport)
  )
})

const ended = (c: McpClient.McpClient) =>
  Effect.map(Effect.flip(c.listTools()), (error) => error.reason._tag === "ClosedError")

const withLimits = (maxSessions: number, idle: Duration.Duration) =>
  TestServer.layerMemory().pipe(Layer.provide(Layer.succeed(McpSessionLimits, { maxSessions, idle })))

layer(withLimits(3, Duration.minutes(5)), { excludeTestServices: true })("mcp endpoint", (it) => {
  describe("sessions", () => {
    it.effect(
      "past McpSessionLimits.maxSessions the session idle longest is ended: its client gets 404 and must initialize again; the others go on",
      () =>
        Effect.gen(function* () {
          const a = yield* client
          const b = yield* client
          const c = yield* client
          assert.strictEqual((yield* a.listTools()).length, ToolCount, "a is used, so b is now idle longest")
          const d = yield* client
          assert.isTrue(yield* ended(b), "b was ended")
          for (const open of [a, c, d]) assert.strictEqual((yield* open.listTools()).length, ToolCount)
          const again = yield* client
          assert.isTrue(yield* ended(a), "then a, idle longest since")
          assert.strictEqual((yield* again.listTools()).length, ToolCount)
        }).pipe(Effect.scoped)
    )

    it.effect("a client's DELETE ends its session, which then no longer counts against the bound", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        // Three clients opened and closed (each DELETEs its session as it closes) ...
        for (let i = 0; i < 3; i++) yield* Effect.scoped(Effect.flatMap(client, (c) => c.listTools()))
        // ... leave room for three open ones, none of which is ended.
        const open = [yield* client, yield* client, yield* client]
        for (const c of open) assert.strictEqual((yield* c.listTools()).length, ToolCount)
        assert.strictEqual((yield* server.request("/mcp", { method: "DELETE" })).status, 400)
      }).pipe(Effect.scoped)
    )
  })

  describe("requests", () => {
    it.effect("a body past 64 KiB is refused with 413 saying the bound, before it is read", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const big = yield* server.request("/mcp", {
          method: "POST",
          headers: { accept: "application/json, text/event-stream" },
          raw: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "ping",
            params: { pad: "x".repeat(MaxMcpBodyBytes) }
          })
        })
        assert.strictEqual(big.status, 413)
        assert.deepStrictEqual(big.json, {
          detail: `request body too large: /mcp takes at most ${MaxMcpBodyBytes} bytes`
        })
      })
    )

    it.effect(
      "a request from a browser page (an Origin header) is refused with 403; one without is served",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const post = (headers: Record<string, string>) =>
            server.request("/mcp", {
              method: "POST",
              headers: { accept: "application/json, text/event-stream", ...headers },
              body: {
                jsonrpc: "2.0",
                id: 1,
                method: "initialize",
                params: {
                  protocolVersion: "2025-11-25",
                  capabilities: {},
                  clientInfo: { name: "t", version: "1" }
                }
              }
            })
          for (const origin of ["https://evil.example", "null", server.baseUrl])
            assert.strictEqual((yield* post({ origin })).status, 403, origin)
          assert.strictEqual((yield* post({})).status, 200)
        })
    )

    it.effect("every answer of /mcp is Cache-Control: no-store", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (const method of ["GET", "POST", "DELETE"] as const) {
          const answer = yield* server.request("/mcp", {
            method,
            headers: { accept: "application/json, text/event-stream" },
            ...(method === "POST" ? { raw: "{" } : {})
          })
          assert.isBelow(answer.status, 500, method)
          assert.strictEqual(answer.headers.get("cache-control"), "no-store", method)
        }
      })
    )
  })
})

layer(withLimits(100, Duration.millis(300)), { excludeTestServices: true })(
  "mcp endpoint, short idle",
  (it) => {
    it.effect("a session idle for McpSessionLimits.idle is ended when the next one opens", () =>
      Effect.gen(function* () {
        const a = yield* client
        yield* Effect.sleep("500 millis")
        const b = yield* client
        assert.isTrue(yield* ended(a))
        assert.strictEqual((yield* b.listTools()).length, ToolCount)
      }).pipe(Effect.scoped)
    )
  }
)
