/**
 * Spec part 1 rule 2 over the real server: Free and anonymous use names the
 * service as the data source and links to its website (and the terms whose
 * automated-access clause governs AI assistants and agents). The attribution
 * is in headers on every anonymous and Free response; Pro, Enterprise and
 * admin responses carry none; JSON bodies are not touched.
 */
import { assert, describe, it } from "@effect/vitest"
import { Attribution, ServiceName, ServiceWebsite, TermsUrl } from "@ratings/domain/model/ServiceInfo"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { withAttribution } from "../src/server/Attribution.ts"
import { type CallerName, Seed } from "./fixtures.ts"
import { type Response, TestServer } from "./TestServer.ts"

const get = (path: string, caller?: CallerName) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(path, { caller })
  })

/** The Link header's entries as [target, params]: `<url>; rel="x"; title="y"`. */
const links = (r: Response): ReadonlyArray<{ readonly url: string; readonly params: string }> =>
  [...(r.headers.get("link") ?? "").matchAll(/<([^>]*)>([^,]*)/g)].map((m) => ({ url: m[1]!, params: m[2]! }))

const isAttributed = (r: Response): boolean =>
  links(r).some((l) => l.url === ServiceWebsite && /rel="via"/.test(l.params)) &&
  r.headers.get("x-attribution") === Attribution

const Paths = [
  "/api/v1/protocols",
  "/api/v1/chains/chain-alpha",
  "/api/v1/tokens/token-alpha/scorecards",
  "/api/v1/methodology"
]

describe("attribution (spec part 1 rule 2)", () => {
  it.effect("anonymous responses name the service as the data source and link to its website", () =>
    Effect.gen(function* () {
      for (const path of Paths) {
        const r = yield* get(path)
        assert.strictEqual(r.status, 200, path)
        assert.isTrue(isAttributed(r), path)
        const source = links(r).find((l) => l.url === ServiceWebsite)!
        assert.include(source.params, `title="${ServiceName}"`)
        assert.include(r.headers.get("x-attribution")!, ServiceName)
        assert.include(r.headers.get("x-attribution")!, ServiceWebsite)
      }
    }).pipe(Effect.provide(TestServer.layerMemory()))
  )

  it.effect("Free responses carry the same attribution", () =>
    Effect.gen(function* () {
      for (const path of Paths) assert.isTrue(isAttributed(yield* get(path, "free")), path)
    }).pipe(Effect.provide(TestServer.layerMemory()))
  )

  it.effect(
    "the attribution links the terms whose automated-access clause governs AI assistants and agents",
    () =>
      Effect.gen(function* () {
        const r = yield* get("/api/v1/protocols")
        const terms = links(r).find((l) => l.url === TermsUrl)
        assert.isDefined(terms)
        assert.include(terms!.params, 'rel="terms-of-service"')
        assert.include(r.headers.get("x-attribution")!, TermsUrl)
      }).pipe(Effect.provide(TestServer.layerMemory()))
  )

  it.effect("every anonymous and Free response is attributed, errors and 429s included", () =>
    Effect.gen(function* () {
      const responses = [
        yield* get("/api/v1/protocols/no-such-protocol"),
        yield* get("/api/v1/protocols/protocol-alpha/domains"),
        yield* get("/api/v1/protocols/protocol-alpha/domains", "free"),
        yield* get("/api/v1/protocols?limit=0"),
        yield* get("/api/v1/protocols")
      ]
      assert.deepStrictEqual(
        responses.map((r) => r.status),
        [404, 401, 403, 422, 429]
      )
      for (const r of responses) assert.isTrue(isAttributed(r), String(r.status))
    }).pipe(
      Effect.provide(
        TestServer.layerMemory(Seed, {
          policies: { limits: { anonymous: [{ limit: 3, window: "1 minute" }] } }
        })
      )
    )
  )

  it.effect("Pro, Enterprise and admin responses carry no attribution", () =>
    Effect.gen(function* () {
      for (const caller of ["pro", "enterprise", "admin"] as const) {
        const r = yield* get("/api/v1/protocols", caller)
        assert.strictEqual(r.status, 200, caller)
        assert.isNull(r.headers.get("x-attribution"), caller)
        assert.isNull(r.headers.get("link"), caller)
      }
    }).pipe(Effect.provide(TestServer.layerMemory()))
  )

  it.effect("JSON bodies are unchanged: an attributed body is byte for byte the unattributed one", () =>
    Effect.gen(function* () {
      for (const path of ["/api/v1/protocols", "/api/v1/chains/chain-alpha", "/api/v1/methodology"]) {
        const anonymous = yield* get(path)
        const pro = yield* get(path, "pro")
        assert.isTrue(isAttributed(anonymous))
        assert.strictEqual(anonymous.text, pro.text, path)
      }
    }).pipe(Effect.provide(TestServer.layerMemory()))
  )

  it("a Link the response already has is kept, the attribution added after it", () => {
    const response = HttpServerResponse.empty({
      headers: { link: '<https://x.example/?page=2>; rel="next"' }
    })
    const link = withAttribution(response).headers.link!
    assert.isTrue(link.startsWith('<https://x.example/?page=2>; rel="next", <'))
    assert.include(link, `<${ServiceWebsite}>; rel="via"`)
  })
})
