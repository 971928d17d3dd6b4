/**
 * The headers every answer carries (server/SecurityHeaders.ts), over a real
 * server: every answer that is not a success says `Cache-Control: no-store`
 * (ADR 0007: errors are never stored), whoever answers it (a handler,
 * authentication, the rate limit, the router's fallbacks, or Node before any
 * route; /mcp's: adapters-mcp McpMount.test.ts); every answer is `X-Content-Type-Options: nosniff`; an
 * HTML page has a Content-Security-Policy and refuses framing. The docs
 * page's policy in a browser: DocsPage.test.ts; the lane of cache hits:
 * apps/server/test/HitLane.test.ts.
 */
import { connect } from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { generateApiKey } from "../src/server/ApiKeyCrypto.ts"
import { MaxRequestBodyBytes } from "../src/server/RouterFallbacks.ts"
import { DefaultPagePolicy, secureResponse } from "../src/server/SecurityHeaders.ts"
import { Seed } from "./fixtures.ts"
import { type RawAnswer, rawRequest } from "./RawClient.ts"
import { TestPolicies, TestServer } from "./TestServer.ts"

type Answer = RawAnswer

/** Sends raw bytes on a fresh connection and reads until the server closes it. */
const rawBytes = (bytes: string) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const url = new URL(server.baseUrl)
    return yield* Effect.promise(
      () =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
          let answer = ""
          socket.on("data", (d) => (answer += d))
          socket.on("close", () => resolve(answer))
          socket.on("error", reject)
        })
    )
  })

/** An error answer: the status expected, never stored, never sniffed. */
const assertRefused = (answer: Answer, status: number, what: string) => {
  assert.strictEqual(answer.status, status, `${what}: ${answer.text.slice(0, 200)}`)
  assert.strictEqual(answer.headers["cache-control"], "no-store", `${what}: Cache-Control`)
  assert.strictEqual(answer.headers["x-content-type-options"], "nosniff", `${what}: nosniff`)
}

const json = { "content-type": "application/json" }

layer(TestServer.layerMemory(), { excludeTestServices: true })("security headers", (it) => {
  it.effect(
    "every non-2xx answer of the router is Cache-Control: no-store and nosniff: 401s, 403, 404s, 405, 413, 415 and 422",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const admin = server.bearerFor("admin")!
        const free = server.bearerFor("free")!
        const cases: ReadonlyArray<readonly [number, string, Effect.Effect<Answer, never, TestServer>]> = [
          [
            401,
            "an unknown key",
            rawRequest("GET", "/api/v1/protocols", { authorization: `Bearer ${generateApiKey()}` })
          ],
          [
            401,
            "a malformed key",
            rawRequest("GET", "/api/v1/protocols", { authorization: "Bearer rk_short" })
          ],
          [
            401,
            "an invalid token",
            rawRequest("GET", "/api/v1/protocols", { authorization: "Bearer not.a.jwt" })
          ],
          [
            401,
            "a header that is not a bearer",
            rawRequest("GET", "/health", { authorization: "Basic dXNlcjpwYXNz" })
          ],
          [401, "no key where one is needed", rawRequest("GET", "/api/v1/alert-rules")],
          [
            403,
            "a tier below the route's",
            rawRequest("GET", "/api/v1/alert-rules", { authorization: free })
          ],
          [404, "an unknown path", rawRequest("GET", "/nope")],
          [404, "an unknown path under the API", rawRequest("GET", "/api/v1/nope")],
          [404, "a raw ';' in the path", rawRequest("GET", "/api/v1/protocols;x=1")],
          [404, "an unknown entity", rawRequest("GET", "/api/v1/protocols/no-such-protocol")],
          [405, "a method the path does not take", rawRequest("PUT", "/api/v1/protocols/aave-v3")],
          [405, "a HEAD of an export", rawRequest("HEAD", "/api/v1/export.csv")],
          [
            413,
            "a body over 1 MiB",
            rawRequest(
              "POST",
              "/api/v1/alert-rules",
              json,
              JSON.stringify({ name: "n".repeat(MaxRequestBodyBytes) })
            )
          ],
          [
            415,
            "a body that is not JSON",
            rawRequest(
              "POST",
              "/api/v1/admin/incidents",
              { "content-type": "application/x-www-form-urlencoded", authorization: admin },
              "nonce=1"
            )
          ],
          [
            422,
            "a path parameter that is not a UUID",
            rawRequest("GET", "/api/v1/chain-scorecards/not-a-uuid")
          ],
          [422, "a query parameter out of range", rawRequest("GET", "/api/v1/protocols?limit=0")]
        ]
        for (const [status, what, send] of cases) assertRefused(yield* send, status, what)
      })
  )

  it.effect(
    "requests Node refuses before routing (431 headers too large, 400 malformed) are no-store and nosniff",
    () =>
      Effect.gen(function* () {
        const big = yield* rawBytes(
          `GET /api/v1/protocols HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`
        )
        assert.match(big, /^HTTP\/1\.1 431 /)
        const malformed = yield* rawBytes("NOT A REQUEST\r\n\r\n")
        assert.match(malformed, /^HTTP\/1\.1 400 /)
        for (const answer of [big, malformed]) {
          const head = answer.slice(0, answer.indexOf("\r\n\r\n"))
          assert.match(head, /\r\ncache-control: no-store\r\n/i)
          assert.match(head, /\r\nx-content-type-options: nosniff\r\n/i)
        }
      })
  )

  it.effect(
    "JSON answers are nosniff and keep their caching; a 304 is not an error and keeps the stored answer's Cache-Control",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (const target of [
          "/api/v1/protocols",
          "/api/v1/protocols/protocol-alpha",
          "/openapi.json",
          "/health"
        ]) {
          const answer = yield* rawRequest("GET", target)
          assert.strictEqual(answer.status, 200, target)
          assert.match(String(answer.headers["content-type"]), /^application\/json/, target)
          assert.strictEqual(answer.headers["x-content-type-options"], "nosniff", target)
        }
        const list = yield* rawRequest("GET", "/api/v1/protocols")
        assert.strictEqual(list.headers["cache-control"], "public, max-age=60")
        const revalidated = yield* rawRequest("GET", "/api/v1/protocols", {
          "if-none-match": String(list.headers.etag)
        })
        assert.strictEqual(revalidated.status, 304)
        assert.strictEqual(revalidated.headers["cache-control"], "public, max-age=60")
        assert.strictEqual(revalidated.headers["x-content-type-options"], "nosniff")
        const keyed = yield* rawRequest("GET", "/api/v1/protocols", {
          authorization: server.bearerFor("pro")!
        })
        assert.strictEqual(keyed.headers["cache-control"], "private, max-age=60")
        assert.strictEqual(keyed.headers["x-content-type-options"], "nosniff")
        const preflight = yield* rawRequest("OPTIONS", "/api/v1/protocols", {
          origin: "https://elsewhere.example",
          "access-control-request-method": "GET"
        })
        assert.strictEqual(preflight.status, 204)
        assert.strictEqual(preflight.headers["x-content-type-options"], "nosniff", "a preflight too")
      })
  )

  it.effect(
    "/docs has a Content-Security-Policy that refuses framing, X-Frame-Options: DENY and nosniff",
    () =>
      Effect.gen(function* () {
        const docs = yield* rawRequest("GET", "/docs")
        assert.strictEqual(docs.status, 200)
        assert.match(String(docs.headers["content-type"]), /^text\/html/)
        const policy = String(docs.headers["content-security-policy"])
        assert.include(policy, "default-src 'none'")
        assert.include(policy, "frame-ancestors 'none'")
        assert.match(
          policy,
          /script-src 'self' 'sha256-[^']+';/,
          "the viewer's script from the server, the inline call by hash"
        )
        assert.notInclude(policy, "unsafe-eval")
        assert.strictEqual(docs.headers["x-frame-options"], "DENY")
        assert.strictEqual(docs.headers["x-content-type-options"], "nosniff")
      })
  )
})

const OnePerMinute = [{ limit: 1, window: "1 minute" }] as const

layer(
  TestServer.layerMemory(Seed, {
    policies: { ...TestPolicies, limits: { ...TestPolicies.limits, anonymous: OnePerMinute } }
  }),
  { excludeTestServices: true }
)("security headers, rate limits", (it) => {
  it.effect("the failed-credential 429 and the rate limit's 429 are no-store and nosniff", () =>
    Effect.gen(function* () {
      const unknownKey = { authorization: `Bearer ${generateApiKey()}` }
      assertRefused(yield* rawRequest("GET", "/api/v1/protocols", unknownKey), 401, "a failed credential")
      const failed = yield* rawRequest("GET", "/api/v1/protocols", unknownKey)
      assertRefused(failed, 429, "a failed credential past the address's allowance")
      assert.include(failed.text, "rate_limited")
      assertRefused(
        yield* rawRequest("GET", "/api/v1/protocols"),
        429,
        "an anonymous read past the allowance"
      )
      assertRefused(
        yield* rawRequest("GET", "/api/v1/protocols/protocol-alpha"),
        429,
        "a detail past the allowance"
      )
    })
  )
})

describe("secureResponse", () => {
  it("an HTML page without a policy of its own gets the policy that allows nothing, and refuses framing", () => {
    const page = secureResponse(HttpServerResponse.html("<p>hi</p>"))
    assert.strictEqual(page.headers["content-security-policy"], DefaultPagePolicy)
    assert.include(DefaultPagePolicy, "frame-ancestors 'none'")
    assert.strictEqual(page.headers["x-frame-options"], "DENY")
    const own = secureResponse(
      HttpServerResponse.html("<p>hi</p>").pipe(
        HttpServerResponse.setHeader("content-security-policy", "default-src 'self'")
      )
    )
    assert.strictEqual(own.headers["content-security-policy"], "default-src 'self'", "a page's own is kept")
  })

  it("a redirect and a 5xx are no-store whatever they said; a 2xx and a 304 keep theirs", () => {
    const withCaching = (status: number) =>
      secureResponse(HttpServerResponse.empty({ status, headers: { "cache-control": "public, max-age=60" } }))
    for (const status of [301, 302, 307, 500, 503])
      assert.strictEqual(withCaching(status).headers["cache-control"], "no-store", String(status))
    for (const status of [200, 204, 304])
      assert.strictEqual(withCaching(status).headers["cache-control"], "public, max-age=60", String(status))
    for (const status of [200, 304, 404])
      assert.strictEqual(withCaching(status).headers["x-content-type-options"], "nosniff")
    assert.isUndefined(withCaching(200).headers["x-frame-options"], "not a page")
  })
})
