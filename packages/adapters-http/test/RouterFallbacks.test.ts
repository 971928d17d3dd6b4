/**
 * What the router answers itself, in the API's shapes (found by the fuzzer):
 * unroutable paths are a JSON 404 with CORS, a raw `;` never lets a shorter
 * path's route answer, and a non-JSON body is a JSON 415 that says what to
 * send. Spec part 7: bad input gets a clear error, never an empty answer.
 */
import { connect } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MaxRequestBodyBytes } from "../src/server/RouterFallbacks.ts"
import { rawRequest } from "./RawClient.ts"
import { TestServer } from "./TestServer.ts"

layer(TestServer.layerMemory(), { excludeTestServices: true })("router fallbacks", (it) => {
  it.effect("an unroutable path (bad percent-encoding, unknown path) is a JSON 404 with CORS", () =>
    Effect.forEach(
      [
        "/api/v1/protocols/%E2%82",
        "/api/v1/tokens/%zz/rubric",
        "/nope",
        "/api/v1/chains/%C0%AF/quantum-readiness"
      ],
      (target) =>
        Effect.gen(function* () {
          const r = yield* rawRequest("GET", target, { origin: "https://elsewhere.example" })
          assert.strictEqual(r.status, 404, target)
          assert.deepStrictEqual(JSON.parse(r.text), { detail: "not found" }, target)
          assert.match(String(r.headers["content-type"]), /^application\/json/, target)
          assert.strictEqual(r.headers["access-control-allow-origin"], "*", target)
        })
    )
  )

  it.effect("a segment longer than the router's default 100 characters still reaches its route", () =>
    Effect.gen(function* () {
      const r = yield* rawRequest("GET", `/api/v1/protocols/${"a".repeat(300)}`)
      assert.strictEqual(r.status, 404)
      assert.deepStrictEqual(JSON.parse(r.text), { detail: "not found" })
      const uuid = yield* rawRequest("GET", `/api/v1/chain-scorecards/${"a".repeat(300)}`)
      assert.strictEqual(uuid.status, 422, "the route's own check answers: not a UUID")
      assert.deepStrictEqual(JSON.parse(uuid.text).detail[0].loc, ["path", "scorecard_id"])
    })
  )

  it.effect("a raw ';' in the path never lets the route of the shorter path answer", () =>
    Effect.forEach(
      ["/api/v1/tokens/;/evidence", "/api/v1/protocols;x=1", "/api/v1/protocols/protocol-alpha;v=2"],
      (target) =>
        Effect.gen(function* () {
          const r = yield* rawRequest("GET", target)
          assert.strictEqual(r.status, 404, target)
          assert.deepStrictEqual(JSON.parse(r.text), { detail: "not found" }, target)
        })
    )
  )

  it.effect("a body that is not application/json is a JSON 415 naming the type sent", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const r = yield* rawRequest(
        "POST",
        "/api/v1/admin/incidents",
        { "content-type": "application/x-www-form-urlencoded", authorization: server.bearerFor("admin")! },
        "nonce=1"
      )
      assert.strictEqual(r.status, 415)
      const body = JSON.parse(r.text)
      assert.include(body.detail, "application/x-www-form-urlencoded")
      assert.include(body.detail, "application/json")
    })
  )

  it.effect(
    "a request body over 1 MiB is a JSON 413 that states the limit, before authentication or decoding",
    () =>
      Effect.gen(function* () {
        const big = JSON.stringify({
          name: "n".repeat(MaxRequestBodyBytes),
          channels: { webhook_url: "https://x.example" }
        })
        for (const target of ["/api/v1/alert-rules", "/api/v1/admin/incidents"]) {
          const r = yield* rawRequest("POST", target, { "content-type": "application/json" }, big)
          assert.strictEqual(r.status, 413, `${target}: ${r.text}`)
          assert.deepStrictEqual(JSON.parse(r.text), {
            detail: `request body too large: at most ${MaxRequestBodyBytes} bytes (1 MiB)`
          })
          assert.match(String(r.headers["content-type"]), /^application\/json/)
        }
        // Documented: every operation that takes a body lists the 413.
        const doc = JSON.parse((yield* rawRequest("GET", "/openapi.json")).text)
        const withBody = Object.values(
          doc.paths as Record<string, Record<string, { requestBody?: unknown; responses: object }>>
        )
          .flatMap((item) => Object.values(item))
          .filter((op) => op.requestBody !== undefined)
        assert.isAtLeast(withBody.length, 2)
        for (const op of withBody) assert.property(op.responses, "413")
        // Just under the limit the body is read and decoded as usual (here: no key, so 401).
        const under = JSON.stringify({ name: "n".repeat(MaxRequestBodyBytes - 200) })
        const r = yield* rawRequest(
          "POST",
          "/api/v1/alert-rules",
          { "content-type": "application/json" },
          under
        )
        assert.notStrictEqual(r.status, 413, r.text)
      })
  )

  it.effect(
    "a path the API serves, asked with a method it does not take, is a JSON 405 with Allow; other paths stay 404",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          ["PUT", "/api/v1/protocols/aave-v3", "GET, HEAD"],
          ["DELETE", "/api/v1/protocols", "GET, HEAD"],
          ["POST", "/health", "GET, HEAD"],
          ["GET", "/api/v1/alert-rules/00000000-0000-4000-8000-000000000000", "DELETE"],
          ["PATCH", "/api/v1/alert-rules", "GET, HEAD, POST"]
        ]
        for (const [method, target, allow] of cases) {
          const r = yield* rawRequest(method, target)
          assert.strictEqual(r.status, 405, `${method} ${target}: ${r.text}`)
          assert.strictEqual(r.headers.allow, allow, `${method} ${target}`)
          assert.deepStrictEqual(JSON.parse(r.text), {
            detail: `method ${method} not allowed here; allowed: ${allow}`
          })
        }
        for (const [method, target] of [
          ["PUT", "/api/v1/nope"],
          ["GET", "/api/v1/protocols/a/b/c/d"]
        ] as const) {
          const r = yield* rawRequest(method, target)
          assert.strictEqual(r.status, 404, `${method} ${target}: ${r.text}`)
        }
      })
  )

  it.effect(
    "requests Node refuses before routing (headers over 16 KiB, a malformed request line) get a JSON detail too",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const url = new URL(server.baseUrl)
        /** Sends raw bytes on a fresh connection and reads until the server closes it. */
        const rawBytes = (bytes: string) =>
          Effect.promise(
            () =>
              new Promise<string>((resolve, reject) => {
                const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
                let answer = ""
                socket.on("data", (d) => (answer += d))
                socket.on("close", () => resolve(answer))
                socket.on("error", reject)
              })
          )
        const big = yield* rawBytes(
          `GET /api/v1/protocols HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`
        )
        assert.match(big, /^HTTP\/1\.1 431 /)
        assert.match(big, /content-type: application\/json/i)
        assert.include(big, '{"detail":"request headers too large')
        const malformed = yield* rawBytes("NOT A REQUEST\r\n\r\n")
        assert.match(malformed, /^HTTP\/1\.1 400 /)
        assert.include(malformed, '{"detail":"malformed HTTP request"}')
        // The server still answers afterwards.
        assert.strictEqual((yield* rawRequest("GET", "/health")).status, 200)
      })
  )
})
