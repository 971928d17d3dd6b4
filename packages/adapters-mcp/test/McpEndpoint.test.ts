/**
 * The /mcp endpoint's bounds (McpEndpoint.ts): the sessions MCP clients
 * open are at most McpSessionLimits.maxSessions, the one idle longest ended
 * when a new one would pass it, and any idle for McpSessionLimits.idle ended;
 * a client's DELETE ends its own; a body past 64 KiB is a 413; a browser
 * page's request is refused; nothing /mcp answers may be cached; a client
 * address opens at most its allowance of sessions (adapters-http RateLimit.ts
 * checkMcpSession), counted per forwarded address behind a trusted proxy and
 * across servers on one Redis, and only the initializes that open one count;
 * a number beyond a double in a body is a JSON-RPC invalid request, and every
 * request's id is answered exactly as written (JsonRpcBodies.ts).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { McpClient, McpProtocol } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { RedisUrl, redisReachable } from "@ratings/adapters-http/test/Redis"
import { readResponse, TestPolicies, TestServer } from "@ratings/adapters-http/test/TestServer"
import { MaxMcpBodyBytes, McpSessionLimits, opensSession } from "../src/McpEndpoint.ts"
import { RatingsToolkit } from "../src/RatingsTools.ts"
import { McpTestServer } from "./McpTestServer.ts"

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

/** An `initialize` (a POST without a session) from `headers`' client. */
const initialize = (headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    return yield* server.request("/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", ...headers },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      }
    })
  })

const withLimits = (maxSessions: number, idle: Duration.Duration) =>
  McpTestServer.layerMemory().pipe(Layer.provide(Layer.succeed(McpSessionLimits, { maxSessions, idle })))

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
          for (const origin of ["https://evil.example", "null", server.baseUrl])
            assert.strictEqual((yield* initialize({ origin })).status, 403, origin)
          assert.strictEqual((yield* initialize()).status, 200)
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

const TwoSessions = [{ limit: 2, window: "1 minute" }] as const

layer(McpTestServer.layerMemory(undefined, { policies: { ...TestPolicies, mcpSessions: TwoSessions } }), {
  excludeTestServices: true
})("mcp endpoint, sessions per address", (it) => {
  it.effect(
    "an address opens at most its allowance of sessions: past it, initialize is the API's 429 with Retry-After and the allowance's RateLimit headers; its open sessions go on; X-Forwarded-For from an untrusted client does not escape it",
    () =>
      Effect.gen(function* () {
        const a = yield* client
        assert.strictEqual((yield* initialize()).status, 200)
        const refused = yield* initialize()
        assert.strictEqual(refused.status, 429)
        const retryAfter = Number(refused.headers.get("retry-after"))
        assert.isTrue(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
        assert.deepStrictEqual(refused.json, { detail: { error: "rate_limited", retry_after: retryAfter } })
        assert.strictEqual(refused.headers.get("ratelimit-policy"), "2;w=60")
        assert.strictEqual(refused.headers.get("ratelimit-remaining"), "0")
        assert.strictEqual(refused.headers.get("cache-control"), "no-store")
        assert.strictEqual((yield* initialize({ "x-forwarded-for": "198.51.100.7" })).status, 429)
        assert.strictEqual((yield* a.listTools()).length, ToolCount, "a session's own requests are not drawn")
        // Requests that open no session are not drawn (the sessionless revision's, a ping, a malformed body).
        const server0 = yield* TestServer
        for (const raw of [
          JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
          JSON.stringify([{ jsonrpc: "2.0", id: 3, method: "tools/list" }]),
          "{"
        ]) {
          const other = yield* server0.request("/mcp", {
            method: "POST",
            headers: { accept: "application/json, text/event-stream" },
            raw
          })
          assert.notStrictEqual(other.status, 429, raw)
          assert.isBelow(other.status, 500, raw)
        }
        // The API is not held back by it: the address's request rate is its own.
        const server = yield* TestServer
        assert.strictEqual((yield* server.get("/api/v1/methodology")).status, 200)
      }).pipe(Effect.scoped)
  )
})

layer(
  McpTestServer.layerMemory(undefined, {
    policies: { ...TestPolicies, mcpSessions: TwoSessions },
    auth: () => ({ trustProxy: true })
  }),
  { excludeTestServices: true }
)("mcp endpoint, sessions per address behind a trusted proxy", (it) => {
  it.effect("behind a trusted proxy each forwarded client address has its own allowance of sessions", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 2; i++)
        assert.strictEqual((yield* initialize({ "x-forwarded-for": "198.51.100.1" })).status, 200)
      assert.strictEqual((yield* initialize({ "x-forwarded-for": "198.51.100.1" })).status, 429)
      assert.strictEqual((yield* initialize({ "x-forwarded-for": "198.51.100.2" })).status, 200)
      assert.strictEqual((yield* initialize()).status, 200, "the proxy's own address is another client")
    })
  )
})

/** A POST to `baseUrl`'s /mcp of `raw`, with `headers` over an MCP client's (fetch: any media type can be sent). */
const postTo = (baseUrl: string, raw: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () =>
    readResponse(
      await fetch(`${baseUrl}/mcp`, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...headers
        },
        body: raw
      })
    )
  )

/** The same to the test server's /mcp. */
const post = (raw: string, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    return yield* postTo(server.baseUrl, raw, headers)
  })

const initializeBody = (params: unknown = InitializeParams, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params })

const InitializeParams = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "t", version: "1" }
}

layer(McpTestServer.layerMemory(undefined, { policies: { ...TestPolicies, mcpSessions: TwoSessions } }), {
  excludeTestServices: true
})("mcp endpoint, refused requests and the allowance", (it) => {
  it.effect(
    "refused /mcp requests do not use up the MCP-session allowance: initializes refused for an Origin (403), a media type (415), an Accept (406), or parameters the transport refuses open no session and cost nothing; the address then opens its whole allowance",
    () =>
      Effect.gen(function* () {
        const refusals: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
          [initializeBody(), { origin: "https://evil.example" }, 403],
          [initializeBody(), { origin: "null" }, 403],
          [initializeBody(), { "content-type": "text/plain" }, 415],
          [initializeBody(), { accept: "application/json" }, 406],
          [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" }), {}, 200],
          [initializeBody({}), {}, 200],
          [initializeBody({ ...InitializeParams, protocolVersion: 5 }), {}, 200],
          [initializeBody(InitializeParams, null), {}, 200],
          [initializeBody(InitializeParams, "ID").replace('"ID"', "1e400"), {}, 400]
        ]
        // Each refusal many times over the allowance of 2.
        for (const [raw, headers, status] of refusals)
          for (let i = 0; i < 3; i++) {
            const refused = yield* post(raw, headers)
            const what = `${JSON.stringify(headers)} ${raw}`
            assert.strictEqual(refused.status, status, what)
            assert.isNull(refused.headers.get("mcp-session-id"), `${what} opened no session`)
          }
        for (let i = 0; i < 2; i++) {
          const opened = yield* post(initializeBody())
          assert.strictEqual(opened.status, 200, `initialize ${i + 1} of the allowance`)
          assert.isNotNull(opened.headers.get("mcp-session-id"))
          assert.strictEqual(opened.headers.get("ratelimit-remaining"), String(1 - i))
        }
        const spent = yield* post(initializeBody())
        assert.strictEqual(spent.status, 429, "then the allowance is used")
        assert.isNull(spent.headers.get("mcp-session-id"))
      })
  )
})

layer(McpTestServer.layerMemory(undefined, { policies: { ...TestPolicies, mcpSessions: TwoSessions } }), {
  excludeTestServices: true
})("mcp endpoint, initializes at once", (it) => {
  it.effect(
    "initializes sent at once from one address open at most its allowance of sessions: the others are the 429, and the sessions they opened meanwhile are ended",
    () =>
      Effect.gen(function* () {
        const answers = yield* Effect.forEach(Array.from({ length: 8 }), () => post(initializeBody()), {
          concurrency: "unbounded"
        })
        const opened = answers.filter((a) => a.status === 200)
        const refused = answers.filter((a) => a.status === 429)
        assert.strictEqual(opened.length, 2, answers.map((a) => a.status).join(" "))
        assert.strictEqual(refused.length, 6)
        for (const r of refused) {
          assert.isNull(r.headers.get("mcp-session-id"))
          assert.strictEqual(r.headers.get("ratelimit-remaining"), "0")
          assert.isNotNull(r.headers.get("retry-after"))
        }
        // The two sessions opened are served.
        for (const o of opened) {
          const pinged = yield* post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }), {
            "mcp-session-id": o.headers.get("mcp-session-id")!,
            "mcp-protocol-version": "2025-11-25"
          })
          assert.strictEqual(pinged.status, 200, pinged.text)
        }
      })
  )
})

describe("mcp endpoint, sessions per address on Redis", () => {
  it("two servers on one Redis read and draw one MCP-session allowance per address: a session opened on either counts on both, a refused initialize on neither", async (ctx) => {
    if (!(await redisReachable()))
      ctx.skip(`no Redis at ${RedisUrl}: the shared-limiter test needs one (CI has it)`)
    const policies = {
      ...TestPolicies,
      mcpSessions: TwoSessions,
      redisUrl: RedisUrl,
      redisKeyPrefix: `ratings-test:${crypto.randomUUID()}:`
    }
    const program = Effect.gen(function* () {
      const serverOf = Effect.map(Layer.build(McpTestServer.layerMemory(undefined, { policies })), (c) =>
        Context.get(c, TestServer)
      )
      const a = yield* serverOf
      const b = yield* serverOf
      for (const server of [a, b, a])
        assert.strictEqual(
          (yield* postTo(server.baseUrl, initializeBody(), { origin: "https://evil.example" })).status,
          403
        )
      assert.strictEqual((yield* postTo(a.baseUrl, initializeBody())).status, 200)
      assert.strictEqual((yield* postTo(b.baseUrl, initializeBody())).status, 200)
      const refused = yield* postTo(a.baseUrl, initializeBody())
      assert.strictEqual(refused.status, 429, "the allowance was used on both servers")
      assert.strictEqual(refused.headers.get("ratelimit-policy"), "2;w=60")
      assert.isNull(refused.headers.get("mcp-session-id"))
      assert.strictEqual((yield* postTo(b.baseUrl, initializeBody())).status, 429)
    })
    await Effect.runPromise(Effect.scoped(program))
  })
})

/** The id of each JSON-RPC message of an answer (a JSON body or an event stream), as its text was written. */
const idsAnswered = (text: string, contentType: string | null): Array<string | undefined> =>
  ((contentType ?? "").startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
    : [text]
  ).flatMap((message) => {
    const written = new WeakMap<object, string>()
    const parsed: unknown = JSON.parse(message, function (
      this: object,
      key,
      value,
      context?: { source?: string }
    ) {
      if (key === "id" && context?.source !== undefined) written.set(this, context.source)
      return value
    } as (key: string, value: unknown) => unknown)
    return (Array.isArray(parsed) ? parsed : [parsed]).map((m) => written.get(m as object))
  })

/** A legacy session of `version` opened with a raw initialize; its headers for the requests in it. */
const openSession = (version: string) =>
  Effect.gen(function* () {
    const opened = yield* post(initializeBody({ ...InitializeParams, protocolVersion: version }))
    assert.strictEqual(opened.status, 200, opened.text)
    return { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": version }
  })

layer(McpTestServer.layerMemory(), { excludeTestServices: true })("mcp endpoint, JSON-RPC ids", (it) => {
  it.effect(
    "non-finite JSON-RPC ids: an id of 1e400, or any number beyond a double in an /mcp body, is a JSON-RPC invalid request (-32600, id null) saying where, as the API's finite_number rule, and nothing runs",
    () =>
      Effect.gen(function* () {
        const init = yield* post(initializeBody(InitializeParams, "ID").replace('"ID"', "1e400"))
        assert.strictEqual(init.status, 400, init.text)
        assert.isNull(init.headers.get("mcp-session-id"), "no session was opened")
        assert.strictEqual(init.headers.get("cache-control"), "no-store")
        assert.deepStrictEqual(init.json, {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32600,
            message:
              "Invalid Request: a number in the body is beyond the range of a double; JSON numbers must be " +
              "finite, within ±1.7976931348623157e308",
            data: {
              detail: [
                {
                  type: "finite_number",
                  loc: ["body", "id"],
                  msg: "Input should be a finite number: JSON numbers must be finite, within ±1.7976931348623157e308",
                  input: "1e400"
                }
              ]
            }
          }
        })
        const session = yield* openSession("2025-11-25")
        for (const [raw, loc] of [
          ['{"jsonrpc":"2.0","id":-1E+999,"method":"ping"}', ["body", "id"]],
          ['[{"jsonrpc":"2.0","id":1e400,"method":"ping"}]', ["body", 0, "id"]],
          [
            `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_ratings","arguments":{"limit":${"9".repeat(400)}}}}`,
            ["body", "params", "arguments", "limit"]
          ]
        ] as const) {
          const refused = yield* post(raw, session)
          assert.strictEqual(refused.status, 400, raw)
          const error = (
            refused.json as { error: { code: number; data: { detail: Array<{ loc: unknown }> } } }
          ).error
          assert.strictEqual(error.code, -32600, raw)
          assert.deepStrictEqual(error.data.detail[0]!.loc, loc, raw)
        }
        const pinged = yield* post('{"jsonrpc":"2.0","id":4,"method":"ping"}', session)
        assert.strictEqual(pinged.status, 200, "the session goes on")
      })
  )

  it.effect(
    "unsafe JSON-RPC ids are echoed exactly as sent: 9007199254740993 is not answered as ...992, nor 1.0 as 1; safe numbers, fractions and strings alike, in initialize, ping and tool calls, and each id of a batch",
    () =>
      Effect.gen(function* () {
        const init = yield* post(initializeBody(InitializeParams, "ID").replace('"ID"', "9007199254740993"))
        assert.strictEqual(init.status, 200)
        assert.deepStrictEqual(idsAnswered(init.text, init.headers.get("content-type")), ["9007199254740993"])
        const session = {
          "mcp-session-id": init.headers.get("mcp-session-id")!,
          "mcp-protocol-version": "2025-11-25"
        }
        const ids = [
          "9007199254740993",
          "-9007199254740993",
          "12345678901234567890123",
          "1.0",
          "-0",
          "1e2",
          "1.5",
          "0.1",
          "0.30000000000000000001",
          "7",
          "9007199254740991",
          '"abc"',
          '"9007199254740993"',
          '""'
        ]
        for (const id of ids) {
          const pinged = yield* post(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`, session)
          assert.strictEqual(pinged.status, 200, `${id}: ${pinged.text}`)
          assert.deepStrictEqual(
            idsAnswered(pinged.text, pinged.headers.get("content-type")),
            [id],
            pinged.text
          )
        }
        const called = yield* post(
          '{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":{"name":"get_methodology","arguments":{}}}',
          session
        )
        assert.include(called.text, "result")
        assert.deepStrictEqual(idsAnswered(called.text, called.headers.get("content-type")), [
          "18446744073709551617"
        ])
        // A revision that takes batches: two ids one double apart are two requests, each answered as sent.
        const batching = yield* openSession("2025-03-26")
        const batch = ["9007199254740992", "9007199254740993", "1.0", '"1"']
        const answered = yield* post(
          `[${batch.map((id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`).join(",")}]`,
          batching
        )
        assert.strictEqual(answered.status, 200, answered.text)
        assert.sameMembers(
          idsAnswered(answered.text, answered.headers.get("content-type")),
          batch,
          answered.text
        )
        // A request's id is a string or a number: in a batch, one of null (which could not be echoed) refuses it.
        const nullId = yield* post(
          '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":null,"method":"ping"}]',
          batching
        )
        assert.strictEqual(nullId.status, 400, nullId.text)
        assert.deepStrictEqual(nullId.json, {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32600,
            message: "Invalid Request: a request's id must be a string or a number, never null",
            data: {
              detail: [
                { loc: ["body", 1, "id"], msg: "a request's id must be a string or a number", input: null }
              ]
            }
          }
        })
      })
  )
})

describe("mcp endpoint: what opens a session", () => {
  it("an initialize request, alone or in a batch; nothing else, and no malformed body", () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }
    assert.isTrue(opensSession(JSON.stringify(init)))
    assert.isTrue(
      opensSession(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }, init]))
    )
    for (const text of [
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "initialize" } }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify([]),
      "null",
      '"initialize"',
      "{",
      ""
    ])
      assert.isFalse(opensSession(text), text)
  })
})
