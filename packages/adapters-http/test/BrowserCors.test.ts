/**
 * Spec part 1 rule 1 in a real browser: a page served from another origin
 * calls the API with fetch, anonymously (a simple request) and with an
 * Authorization header (a preflighted request), in headless Chromium. The
 * browser's own CORS enforcement decides; nothing is simulated.
 */
import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ChromiumPath, launchChromium } from "./Browser.ts"
import { Seed } from "./fixtures.ts"
import { TestServer } from "./TestServer.ts"

const page = `<!doctype html><meta charset="utf-8"><title>dashboard</title><script>
window.callApi = async (url, headers) => {
  try {
    const r = await fetch(url, { headers })
    return { ok: true, status: r.status, body: await r.json(), remaining: r.headers.get("ratelimit-remaining") }
  } catch (e) {
    return { ok: false, error: String(e) }
  }
}
</script>`

/** A second origin: a tiny site on another port that serves the dashboard page. */
const otherOrigin = Effect.acquireRelease(
  Effect.callback<Server>((resume) => {
    const server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(page)
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const browser = Effect.acquireRelease(Effect.promise(launchChromium), (b) => Effect.promise(() => b.close()))

describe("cross-origin calls from a real browser (spec part 1 rule 1)", () => {
  it("Chromium is installed for the browser tests", () => {
    assert.isTrue(existsSync(ChromiumPath), `no Chromium at ${ChromiumPath}: apt-get install -y chromium`)
  })

  it.layer(TestServer.layerMemory(Seed))((it) => {
    it.effect(
      "a page on another origin reads a public list anonymously and a tiered route with a bearer key",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const site = yield* otherOrigin
          const b = yield* browser
          const tab = yield* Effect.promise(() => b.newPage())
          const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
          yield* Effect.promise(() => tab.goto(`${origin}/`))
          const api = server.baseUrl.replace("localhost", "127.0.0.1")
          assert.notStrictEqual(new URL(api).origin, origin, "the page and the API are different origins")

          const anonymous = yield* Effect.promise(() =>
            tab.evaluate(([url]) => (globalThis as any).callApi(url, {}), [`${api}/api/v1/protocols?limit=2`])
          )
          assert.isTrue(anonymous.ok, anonymous.error)
          assert.strictEqual(anonymous.status, 200)
          assert.isArray(anonymous.body.items)
          assert.isNotNull(anonymous.remaining, "the page's script can read the RateLimit headers")

          const key = server.bearerFor("pro")!
          const keyed = yield* Effect.promise(() =>
            tab.evaluate(([url, authorization]) => (globalThis as any).callApi(url, { authorization }), [
              `${api}/api/v1/protocols/no-such-protocol/domains`,
              key
            ] as const)
          )
          assert.isTrue(
            keyed.ok,
            `the preflighted request must pass the browser's CORS check: ${keyed.error}`
          )
          assert.strictEqual(keyed.status, 404)
          assert.deepStrictEqual(keyed.body, { detail: "not found" })
        }).pipe(Effect.scoped),
      60_000
    )
  })
})
