/**
 * Slow and oversized requests, and the connections a client may hold (issue
 * 23 point 3), over the real server with raw TCP clients (RawClient.ts):
 *
 * - a body declared larger than its route takes is a JSON 413 at once, on
 *   every route, and the connection is closed without the body being read;
 * - a request whose headers or body come too slowly is a JSON 408 and closed
 *   within the configured timeouts (short ones here), also on a kept-alive
 *   connection after a first answer; a slow client within them is served;
 * - the connections open at once per client address (and in all) are capped:
 *   past the cap a new one is a JSON 429 (503) and closed, logged once;
 * - a long streamed response is not cut by the request timeout.
 */
import { type IncomingMessage, request as httpRequest, type ServerResponse } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type NodeServer } from "../src/server/front/NodeServer.ts"
import { BodyTooLargeDetail, MaxRequestBodyBytes } from "../src/server/RouterFallbacks.ts"
import {
  assertJsonError,
  describeExchange,
  type Exchange,
  exchange,
  firstResponse,
  head,
  type Step,
  trickle
} from "./RawClient.ts"
import { TestServer } from "./TestServer.ts"

/** The test server's timeouts: short, so that the tests wait a second or two, not the production tens. */
const HeadersTimeoutMs = 600
const RequestTimeoutMs = 1_200
/** What Node may add to a timeout: its checks run every quarter of the shorter one; and a loaded machine. */
const Slack = 150 + 1_000

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port)

const run = (
  baseUrl: string,
  steps: ReadonlyArray<Step>,
  waitMs: number,
  keepSending?: () => Step | undefined
) => Effect.promise(() => exchange(portOf(baseUrl), steps, { waitMs, keepSending }))

/** A JSON body of exactly `bytes` bytes: a coverage request padded with spaces. */
const paddedOf = (bytes: number) => {
  const request = '{"protocol_name":"Padded","contact_email":"not an address"}'
  return request + " ".repeat(bytes - request.length)
}

const endless = (bytes: string, everyMs: number) => () => ({ bytes, afterMs: everyMs })

layer(
  TestServer.layerMemory(undefined, {
    connections: { headersTimeoutMs: HeadersTimeoutMs, requestTimeoutMs: RequestTimeoutMs }
  }),
  { excludeTestServices: true }
)("slow and oversized requests", (it) => {
  it.effect(
    "issue 23 point 3: a body declared over its route's limit is a JSON 413 at once on every route, and the connection is closed unread",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const cases: ReadonlyArray<readonly [string, string, number, string]> = [
          ["POST", "/api/v1/contacts", 99_999_999, BodyTooLargeDetail],
          ["POST", "/api/v1/alert-rules", MaxRequestBodyBytes + 1, BodyTooLargeDetail],
          ["GET", "/api/v1/protocols", 99_999_999, BodyTooLargeDetail],
          ["POST", "/api/v1/contacts?x=1", MaxRequestBodyBytes + 1, BodyTooLargeDetail],
          ["POST", "http://127.0.0.1/api/v1/contacts", MaxRequestBodyBytes + 1, BodyTooLargeDetail],
          ["POST", "/no/such/path", 99_999_999, BodyTooLargeDetail]
        ]
        for (const [method, target, declared, detail] of cases) {
          const started = performance.now()
          // Two bytes of the declared body, then more every 100 ms: none of it should matter.
          const e = yield* run(
            baseUrl,
            [
              {
                bytes: `${head(method, target, { "content-type": "application/json", "content-length": String(declared) })}{}`
              }
            ],
            3_000,
            endless("x", 100)
          )
          const label = `${method} ${target} declaring ${declared}: ${describeExchange(e)}`
          assertJsonError(e, 413, detail)
          assert.isBelow(e.firstByteMs ?? Number.POSITIVE_INFINITY, 1_000, `answered at once: ${label}`)
          assert.strictEqual(e.headers.connection, "close", label)
          assert.strictEqual(e.headers["cache-control"], "no-store", label)
          assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, 2_000, `closed: ${label}`)
          assert.isBelow(performance.now() - started, 2_500, label)
        }
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "issue 23 point 3: a client that expects 100 Continue for a body over the limit gets the 413 instead, never the 100",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        for (const target of ["/api/v1/contacts", "/api/v1/alert-rules"]) {
          const e = yield* run(
            baseUrl,
            [
              {
                bytes: head("POST", target, {
                  "content-type": "application/json",
                  "content-length": "50000000",
                  expect: "100-continue"
                })
              }
            ],
            3_000
          )
          assert.notInclude(e.answer, "100 Continue", target)
          assertJsonError(e, 413, /request body too large/)
          assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, 2_000, `closed: ${describeExchange(e)}`)
        }
        // Under the limit, the 100 comes when the body is read, and the request is served.
        const body = '{"email":"not an address"}'
        const e = yield* run(
          baseUrl,
          [
            {
              bytes: head("POST", "/api/v1/contacts", {
                "content-type": "application/json",
                "content-length": String(body.length),
                expect: "100-continue",
                connection: "close"
              })
            },
            { bytes: body, afterMs: 200 }
          ],
          3_000
        )
        assert.match(e.answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 422 /, e.answer.slice(0, 200))
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "a client that expects 100 Continue gets it only when its route reads the body: kept alive then, closed when the route answers unread",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const body = '{"email":"not an address"}'
        // Read: the 100, then the answer, and the connection stays open for the next request.
        const read = yield* run(
          baseUrl,
          [
            {
              bytes: head("POST", "/api/v1/contacts", {
                "content-type": "application/json",
                "content-length": String(body.length),
                expect: "100-continue"
              })
            },
            { bytes: body, afterMs: 200 }
          ],
          1_500
        )
        assert.match(
          read.answer,
          /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 422 /,
          read.answer.slice(0, 200)
        )
        assert.notInclude(read.answer.toLowerCase(), "connection: close", describeExchange(read))
        assert.isUndefined(read.closedMs, describeExchange(read))
        // Unread: the answer without the 100, and the connection closed (the body may still come).
        const unread = yield* run(
          baseUrl,
          [{ bytes: head("GET", "/health", { "content-length": "10", expect: "100-continue" }) }],
          3_000
        )
        assert.notInclude(unread.answer, "100 Continue", describeExchange(unread))
        assert.strictEqual(unread.status, 200, describeExchange(unread))
        assert.strictEqual(unread.headers.connection, "close", describeExchange(unread))
        assert.isBelow(unread.closedMs ?? Number.POSITIVE_INFINITY, 2_000, describeExchange(unread))
      }),
    { timeout: 30_000 }
  )

  it.effect("a body declared at exactly the route's limit is read and answered, not refused", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const body = paddedOf(MaxRequestBodyBytes)
      const e = yield* run(
        baseUrl,
        [
          {
            bytes: `${head("POST", "/api/v1/contacts", {
              "content-type": "application/json",
              "content-length": String(MaxRequestBodyBytes),
              connection: "close"
            })}${body}`
          }
        ],
        5_000
      )
      assert.strictEqual(e.status, 422, describeExchange(e))
    })
  )

  it.effect(
    "a chunked body (no Content-Length) past 1 MiB is cut by the body reader: a JSON 413, and the connection is closed",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`
        const e = yield* run(
          baseUrl,
          [
            {
              bytes: head("POST", "/api/v1/alert-rules", {
                "content-type": "application/json",
                "transfer-encoding": "chunked"
              })
            }
          ],
          10_000,
          endless(chunk, 5)
        )
        assertJsonError(e, 413, BodyTooLargeDetail)
        assert.isDefined(e.closedMs, `closed: ${describeExchange(e)}`)
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "issue 23 point 3: headers trickled slower than the headers timeout (or none sent) get a JSON 408 and the connection closed in time",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const e = yield* run(
          baseUrl,
          [{ bytes: "POST /api/v1/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\n" }],
          HeadersTimeoutMs * 6,
          endless("X-Slow: a\r\n", 100)
        )
        assertJsonError(e, 408, "request not received in time")
        assert.strictEqual(e.headers.connection, "close")
        assert.strictEqual(e.headers["cache-control"], "no-store")
        assert.isAtLeast(e.closedMs ?? 0, HeadersTimeoutMs - 50, describeExchange(e))
        assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, HeadersTimeoutMs + Slack, describeExchange(e))

        // A connection that sends nothing at all is closed the same way.
        const idle = yield* run(baseUrl, [], HeadersTimeoutMs * 6)
        assertJsonError(idle, 408, "request not received in time")
        assert.isBelow(
          idle.closedMs ?? Number.POSITIVE_INFINITY,
          HeadersTimeoutMs + Slack,
          describeExchange(idle)
        )
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "issue 23 point 3: a body trickled a byte every 100 ms gets a JSON 408 within the request timeout, also after a first answer on a kept-alive connection",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const post = head("POST", "/api/v1/contacts", {
          "content-type": "application/json",
          "content-length": "500"
        })
        const fresh = yield* run(baseUrl, [{ bytes: post }], RequestTimeoutMs * 5, endless("a", 100))
        assertJsonError(fresh, 408, "request not received in time")
        assert.isAtLeast(fresh.closedMs ?? 0, RequestTimeoutMs - 50, describeExchange(fresh))
        assert.isBelow(
          fresh.closedMs ?? Number.POSITIVE_INFINITY,
          RequestTimeoutMs + Slack,
          describeExchange(fresh)
        )

        // A first request answered, then the trickle: the 408 follows the first answer.
        const kept = yield* run(
          baseUrl,
          [{ bytes: head("GET", "/health") }, { bytes: post, afterMs: 300 }],
          RequestTimeoutMs * 5,
          endless("a", 100)
        )
        assert.strictEqual(kept.status, 200, describeExchange(kept))
        assert.match(
          kept.answer,
          /HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\n\{"detail":"request not received in time"\}$/,
          describeExchange(kept)
        )
        assert.isBelow(
          kept.closedMs ?? Number.POSITIVE_INFINITY,
          300 + RequestTimeoutMs + Slack,
          describeExchange(kept)
        )
      }),
    { timeout: 30_000 }
  )

  it.effect("a slow client that sends its whole request within the timeouts is served as usual", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const body = '{"email":"not an address"}'
      const post = head("POST", "/api/v1/contacts", {
        "content-type": "application/json",
        "content-length": String(body.length),
        connection: "close"
      })
      // Trickled, with two thirds of each timeout to spare at nominal pace, so that timers a
      // loaded machine fires late do not push an in-time client past a limit.
      const e = yield* run(
        baseUrl,
        [
          ...trickle(post.slice(0, 8), 25),
          { bytes: post.slice(8) },
          ...trickle(body.slice(0, 6), 25),
          { bytes: body.slice(6), afterMs: 25 }
        ],
        5_000
      )
      assert.strictEqual(e.status, 422, describeExchange(e))
    })
  )
})

const capLog: Array<string> = []

layer(
  TestServer.layerMemory(undefined, {
    connections: { maxConnectionsPerAddress: 3, onCapped: (line) => capLog.push(line) }
  }),
  { excludeTestServices: true }
)("connections per client address", (it) => {
  it.effect(
    "issue 23 point 3: past the cap of connections per address a new one is a JSON 429 and closed; other addresses are not affected; closing one frees a slot; logged once",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer
        const port = portOf(baseUrl)
        const held = yield* Effect.promise(() => Promise.all([0, 1, 2].map(() => openKeptAlive(port))))
        for (const connection of held) assert.strictEqual(connection.status, 200)

        for (let i = 0; i < 2; i++) {
          const refused = yield* Effect.promise(() =>
            exchange(port, [{ bytes: head("GET", "/health") }], { waitMs: 3_000 })
          )
          assertJsonError(
            refused,
            429,
            "too many open connections from this address: at most 3 at once; close one and retry"
          )
          assert.strictEqual(refused.headers.connection, "close")
          assert.strictEqual(refused.headers["retry-after"], "1")
          assert.isBelow(refused.closedMs ?? Number.POSITIVE_INFINITY, 1_500, describeExchange(refused))
        }
        assert.strictEqual(capLog.length, 1, capLog.join("\n"))
        assert.include(capLog[0], "127.0.0.1")

        // Another address of this machine has its own count.
        const other = yield* Effect.promise(() =>
          exchange(port, [{ bytes: head("GET", "/health", { connection: "close" }) }], {
            waitMs: 3_000,
            localAddress: "127.0.0.2"
          })
        )
        assert.strictEqual(other.status, 200, describeExchange(other))

        // Closing one frees its slot (once the server has seen it close).
        held[0]!.close()
        let served: Exchange | undefined
        for (let attempt = 0; attempt < 20 && served?.status !== 200; attempt++) {
          yield* Effect.sleep("50 millis")
          served = yield* Effect.promise(() =>
            exchange(port, [{ bytes: head("GET", "/health", { connection: "close" }) }], { waitMs: 3_000 })
          )
        }
        assert.strictEqual(served?.status, 200, served === undefined ? "" : describeExchange(served))
        for (const connection of held) connection.close()
      }),
    { timeout: 30_000 }
  )
})

/** A connection that got its answer to GET /health (keep-alive) and stays open until `close`. */
const openKeptAlive = (port: number) =>
  new Promise<{ readonly status: number | undefined; readonly close: () => void }>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head("GET", "/health")))
    const close = () => socket.destroy()
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk
      const r = firstResponse(answer)
      if (r.status !== undefined && r.body.length >= Number(r.headers["content-length"] ?? 0))
        resolve({ status: r.status, close })
    })
    socket.on("error", () => {})
    socket.on("close", () => resolve({ status: undefined, close }))
  })

describe("the Node server's bounds, on a bare handler", () => {
  const listen = async (server: NodeServer) => {
    await server.listen({ port: 0, host: "127.0.0.1" })
    return (server.gate.address() as AddressInfo).port
  }
  const close = (server: NodeServer) => {
    server.http.closeAllConnections()
    return server.close()
  }
  /** A bare handler as the server's router (no upgrades). */
  const route = (
    server: NodeServer,
    handler: (request: IncomingMessage, response: ServerResponse) => void
  ) => {
    server.router = { request: handler, upgrade: (_request, socket) => socket.destroy() }
  }

  it("issue 23 point 3: a long streamed response is not cut by the request timeout", async () => {
    const server = createServer({ headersTimeoutMs: 200, requestTimeoutMs: 300 })
    route(server, (_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      let sent = 0
      const timer = setInterval(() => {
        response.write(`line ${sent}\n`)
        if (++sent === 15) {
          clearInterval(timer)
          response.end()
        }
      }, 100)
    })
    const port = await listen(server)
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const req = httpRequest({ port, host: "127.0.0.1", path: "/export.csv" }, (res) => {
          let body = ""
          res.on("data", (d) => (body += d))
          res.on("end", () => resolve(body))
          res.on("error", reject)
        })
        req.on("error", reject)
        req.end()
      })
      assert.strictEqual(text.split("\n").filter((l) => l !== "").length, 15, "every line of 1.5 s arrived")
    } finally {
      await close(server)
    }
  })

  it("issue 23 point 3: the body check comes before the lane of cache hits", async () => {
    const server = createServer()
    route(server, (_request, response) => response.end("the router"))
    server.lane = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end("{}")
    }
    const port = await listen(server)
    try {
      const e = await exchange(
        port,
        [{ bytes: head("GET", "/api/v1/protocols", { "content-length": "99999999" }) }],
        { waitMs: 3_000 }
      )
      assert.strictEqual(e.status, 413, describeExchange(e))
      const ok = await exchange(
        port,
        [{ bytes: head("GET", "/api/v1/protocols", { connection: "close" }) }],
        {
          waitMs: 3_000
        }
      )
      assert.strictEqual(ok.status, 200, describeExchange(ok))
      assert.notInclude(ok.answer, "the router", "answered by the lane")
    } finally {
      await close(server)
    }
  })

  it("a path given its own body limit (bodyLimits, as the app gives an endpoint mounted beside the API) refuses a body declared past it with a JSON 413 naming the path, in any target form; other paths keep the API's limit", async () => {
    const server = createServer({ bodyLimits: [{ path: "/small", maxBytes: 100 }] })
    route(server, (request, response) => {
      request.resume()
      request.on("end", () => response.end("read"))
    })
    const port = await listen(server)
    const send = (target: string, declared: number) =>
      exchange(
        port,
        [
          {
            bytes: `${head("POST", target, { "content-length": String(declared), connection: "close" })}${"x".repeat(Math.min(declared, 200))}`
          }
        ],
        { waitMs: 3_000 }
      )
    try {
      const detail = "request body too large: /small takes at most 100 bytes"
      for (const target of ["/small", "/small?x=1", "http://127.0.0.1/small"]) {
        const e = await send(target, 101)
        assertJsonError(e, 413, detail)
        assert.strictEqual(e.headers.connection, "close", target)
      }
      assert.strictEqual((await send("/small", 100)).status, 200, "at its limit, read")
      assert.strictEqual((await send("/other", 101)).status, 200, "another path takes up to 1 MiB")
      assertJsonError(await send("/other", MaxRequestBodyBytes + 1), 413, BodyTooLargeDetail)
    } finally {
      await close(server)
    }
  })

  it("issue 23 point 3: past the total cap of connections a new one is a JSON 503 and closed", async () => {
    const lines: Array<string> = []
    const server = createServer({ maxConnections: 2, onCapped: (line) => lines.push(line) })
    route(server, (_request, response) => response.end("ok"))
    const port = await listen(server)
    try {
      const held = await Promise.all([0, 1].map(() => openKeptAlive(port)))
      for (const connection of held) assert.strictEqual(connection.status, 200)
      const refused = await exchange(port, [{ bytes: head("GET", "/") }], { waitMs: 3_000 })
      assertJsonError(refused, 503, /too many open connections/)
      assert.isDefined(refused.closedMs)
      assert.strictEqual(lines.length, 1, lines.join("\n"))
      for (const connection of held) connection.close()
    } finally {
      await close(server)
    }
  })
})
