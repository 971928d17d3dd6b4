/**
 * Spec part 1 rule 1 over the real server, checked as a browser checks it
 * (Fetch standard, "CORS check" and "CORS-preflight fetch"): public routes
 * answer any origin with `Access-Control-Allow-Origin: *`; a preflight for GET
 * with an Authorization header, and for POST and DELETE with a JSON body (the
 * alert-rule routes), is allowed; scripts can read the rate-limit headers,
 * Retry-After and an export's watermark id; errors and 429s answer cross-origin too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Seed } from "./fixtures.ts"
import { type Response, readResponse, TestServer } from "./TestServer.ts"

const Origin = "https://dashboard.example.org"

/** A browser's request: a real fetch with the headers a browser adds. */
const send = (method: string, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestServer
    return yield* Effect.promise(async () =>
      readResponse(await fetch(baseUrl + path, { method, headers: { origin: Origin, ...headers } }))
    )
  })

const listOf = (value: string | null): ReadonlyArray<string> =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "")

/** The Fetch standard's CORS check for a request without credentials. */
const corsCheckPasses = (r: Response): boolean => {
  const allow = r.headers.get("access-control-allow-origin")
  return allow === "*" || allow === Origin
}

/** The CORS-preflight check: status ok, origin allowed, the method and every requested header listed. */
const preflightAllows = (r: Response, method: string, headers: ReadonlyArray<string>): boolean => {
  if (r.status < 200 || r.status > 299 || !corsCheckPasses(r)) return false
  const methods = listOf(r.headers.get("access-control-allow-methods"))
  const allowed = listOf(r.headers.get("access-control-allow-headers"))
  const simpleMethod = ["get", "head", "post"].includes(method.toLowerCase())
  return (
    (simpleMethod || methods.includes(method.toLowerCase()) || methods.includes("*")) &&
    headers.every(
      (h) => allowed.includes(h.toLowerCase()) || (allowed.includes("*") && h !== "authorization")
    )
  )
}

/** What a script may read: the CORS-safelisted response headers and the exposed ones. */
const readableByScript = (r: Response, name: string): boolean =>
  [
    "cache-control",
    "content-language",
    "content-length",
    "content-type",
    "expires",
    "last-modified",
    "pragma"
  ].includes(name) || listOf(r.headers.get("access-control-expose-headers")).includes(name)

const preflight = (path: string, method: string, headers: ReadonlyArray<string>) =>
  send("OPTIONS", path, {
    "access-control-request-method": method,
    ...(headers.length === 0 ? {} : { "access-control-request-headers": headers.join(",") })
  })

const server = (anonymousLimit = 1_000_000) =>
  TestServer.layerMemory(Seed, {
    policies: { limits: { anonymous: [{ limit: anonymousLimit, window: "1 minute" }] } }
  })

describe("cross-origin access from browsers (spec part 1 rule 1)", () => {
  it.effect("public read endpoints are callable cross-origin: Access-Control-Allow-Origin: *", () =>
    Effect.gen(function* () {
      for (const path of [
        "/api/v1/protocols",
        "/api/v1/tokens/token-alpha",
        "/api/v1/methodology",
        "/health"
      ]) {
        const r = yield* send("GET", path)
        assert.strictEqual(r.status, 200, path)
        assert.strictEqual(r.headers.get("access-control-allow-origin"), "*", path)
        assert.isTrue(corsCheckPasses(r), path)
        assert.isNull(
          r.headers.get("access-control-allow-credentials"),
          "no credentials mode with the wildcard"
        )
      }
    }).pipe(Effect.provide(server()))
  )

  it.effect("a preflight for GET with an Authorization header is allowed, for any origin", () =>
    Effect.gen(function* () {
      const r = yield* preflight("/api/v1/protocols/protocol-alpha/domains", "GET", ["authorization"])
      assert.strictEqual(r.status, 204)
      assert.isTrue(preflightAllows(r, "GET", ["authorization"]))
      assert.strictEqual(r.headers.get("access-control-allow-origin"), "*")
      assert.isAbove(Number(r.headers.get("access-control-max-age")), 0, "browsers may cache the answer")
      assert.isTrue(
        preflightAllows(yield* preflight("/api/v1/protocols", "GET", ["if-none-match"]), "GET", [
          "if-none-match"
        ])
      )
    }).pipe(Effect.provide(server()))
  )

  it.effect(
    "a preflight for POST and DELETE with Content-Type and Authorization is allowed (alert-rule routes)",
    () =>
      Effect.gen(function* () {
        for (const method of ["POST", "DELETE"]) {
          const headers = ["content-type", "authorization"]
          const r = yield* preflight("/api/v1/alert-rules", method, headers)
          assert.isTrue(preflightAllows(r, method, headers), method)
        }
        const put = yield* preflight("/api/v1/alert-rules", "PUT", [])
        assert.isFalse(preflightAllows(put, "PUT", []), "a method the API does not have is not offered")
      }).pipe(Effect.provide(server()))
  )

  it.effect("scripts can read the RateLimit headers, Retry-After, the ETag and the attribution", () =>
    Effect.gen(function* () {
      const r = yield* send("GET", "/api/v1/protocols")
      for (const name of [
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "ratelimit-policy",
        "retry-after",
        "etag",
        "link",
        "x-attribution",
        "cache-control"
      ])
        assert.isTrue(readableByScript(r, name), name)
      assert.isNotNull(r.headers.get("ratelimit-remaining"))
    }).pipe(Effect.provide(server()))
  )

  it.effect("a script that exports can read the export's X-Export-Id watermark and its file name", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      for (const format of ["csv", "json"]) {
        const r = yield* send("GET", `/api/v1/export.${format}?entity=protocol&fields=slug`, {
          authorization: server.bearerFor("pro")!
        })
        assert.strictEqual(r.status, 200, format)
        assert.isTrue(corsCheckPasses(r), format)
        assert.isTrue(readableByScript(r, "x-export-id"), format)
        assert.match(r.headers.get("x-export-id")!, /^[0-9a-f-]{36}$/)
      }
      const csv = yield* send("GET", "/api/v1/export.csv?entity=protocol&fields=slug", {
        authorization: server.bearerFor("enterprise")!
      })
      assert.isTrue(readableByScript(csv, "content-disposition"))
      assert.include(csv.headers.get("content-disposition")!, csv.headers.get("x-export-id")!)
    }).pipe(Effect.provide(server()))
  )

  it.effect("errors answer cross-origin too, so a script can read them: 404, 422, 401, unknown paths", () =>
    Effect.gen(function* () {
      const responses = [
        yield* send("GET", "/api/v1/protocols/no-such-protocol"),
        yield* send("GET", "/api/v1/protocols?limit=0"),
        yield* send("GET", "/api/v1/protocols", { authorization: "Bearer rk_not_a_key" }),
        yield* send("GET", "/api/v1/nothing-here")
      ]
      assert.deepStrictEqual(
        responses.map((r) => r.status),
        [404, 422, 401, 404]
      )
      for (const r of responses) assert.isTrue(corsCheckPasses(r), String(r.status))
    }).pipe(Effect.provide(server()))
  )

  it.effect("a 429 answers cross-origin, with Retry-After readable by the script", () =>
    Effect.gen(function* () {
      yield* send("GET", "/api/v1/protocols")
      const refused = yield* send("GET", "/api/v1/protocols")
      assert.strictEqual(refused.status, 429)
      assert.isTrue(corsCheckPasses(refused))
      assert.isTrue(readableByScript(refused, "retry-after"))
      assert.isNotNull(refused.headers.get("retry-after"))
    }).pipe(Effect.provide(server(1)))
  )

  it.effect("preflights are answered before routing and do not count against the rate limit", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 5; i++) {
        const r = yield* preflight("/api/v1/protocols", "GET", ["authorization"])
        assert.strictEqual(r.status, 204)
      }
      assert.strictEqual((yield* send("GET", "/api/v1/protocols")).status, 200)
    }).pipe(Effect.provide(server(1)))
  )
})
