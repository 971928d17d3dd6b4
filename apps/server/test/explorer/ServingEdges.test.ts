/**
 * The explorer's edges on a real server (the production layers over Postgres
 * with the production response cache, ServerProcess.ts): a browser asking
 * for a path nothing serves gets the explorer's HTML 404 while the API's
 * paths and programs keep the JSON one; a sign-in refused for rate carries
 * the API's Retry-After and RateLimit headers; list and entity pages are
 * answered from the response cache, and a publish shows on the next request;
 * every table sits in a named region that scrolls on its own on a narrow screen.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import type { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { entityIdOf } from "@ratings/domain/import/ImportIds"
import { Publisher } from "@ratings/domain/services/Publisher"
import { type Context, Effect, Exit, PubSub, Scope } from "effect"
import { explorerRoutes } from "../../src/explorer/ExplorerRoutes.ts"
import { responseCache } from "../../src/Layers.ts"
import { importedDatabase, serverProcess } from "../ServerProcess.ts"

/** Lendwell's id after the import example (docs/import-format.md), which leaves it to be derived. */
const LendwellId = entityIdOf("protocol", "lendwell")

/** Anonymous requests (and failed keys) an address may make a minute on this server. */
const AnonymousLimit = 4

interface World {
  readonly baseUrl: string
  readonly cache: ResponseCache["Service"]
  readonly a: Context.Context<Publisher>
  readonly pro: string
}

let scope: Scope.Closeable
let world: World

const setup = Effect.gen(function* () {
  const { url, a } = yield* importedDatabase
  const auth = { trustProxy: 1 }
  const { baseUrl, cacheB } = yield* serverProcess(url, responseCache(), {
    auth,
    routes: explorerRoutes(auth),
    policies: { limits: { anonymous: [{ limit: AnonymousLimit, window: "1 minute" }] } }
  })
  const { key, record } = issueApiKey({ name: "serving edges pro", tier: "pro" })
  yield* Effect.orDie(Effect.flatMap(ApiKeyRepository, (keys) => keys.create(record))).pipe(
    Effect.provideContext(a)
  )
  return { baseUrl, cache: cacheB, a: a as Context.Context<Publisher>, pro: key }
})

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  world = await Effect.runPromise(Scope.provide(setup, scope))
}, 120_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)

let address = 0
/** A fresh client address (behind the one trusted proxy): its own request allowance. */
const fresh = () => `10.9.${(++address >> 8) & 255}.${address & 255}`

const BrowserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

const send = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${world.baseUrl}${path}`, {
    redirect: "manual",
    ...init,
    headers: { "x-forwarded-for": fresh(), ...headers }
  })

describe("a path nothing serves", () => {
  it("is the explorer's HTML 404 page, with its headers, to a browser", async () => {
    for (const path of ["/foo", "/foo/bar", "/protocols/lendwell/extra", "/foo;x=1", "/quantum/x?y=1"]) {
      const r = await send(path, { accept: BrowserAccept })
      const html = await r.text()
      assert.strictEqual(r.status, 404, path)
      assert.strictEqual(r.headers.get("content-type"), "text/html; charset=utf-8", path)
      assert.match(r.headers.get("content-security-policy") ?? "", /^default-src 'none'; /, path)
      assert.strictEqual(r.headers.get("x-frame-options"), "DENY", path)
      assert.strictEqual(r.headers.get("referrer-policy"), "same-origin", path)
      assert.include(html, "There is no page here", path)
      assert.include(html, '<nav class="main"', path)
    }
    // On an explorer path the key cookie counts, so the page says who is signed in.
    const signedIn = await send("/protocols/lendwell/extra", {
      accept: BrowserAccept,
      cookie: `ratings_key=${world.pro}`
    })
    assert.strictEqual(signedIn.status, 404)
    assert.include(await signedIn.text(), "Signed in: Pro tier")
  })

  it("stays the API's JSON 404 on the API's paths and /mcp, and for a request that does not prefer HTML", async () => {
    const cases: ReadonlyArray<readonly [string, Record<string, string>]> = [
      ["/foo", {}],
      ["/foo", { accept: "application/json" }],
      ["/foo", { accept: "application/json, text/html" }],
      ["/foo", { accept: "text/html;q=0, application/json" }],
      ["/foo", { accept: "*/*" }],
      ["/api/v1/nope", { accept: BrowserAccept }],
      ["/api/v1/protocols/a/b/c", { accept: BrowserAccept }],
      ["/api/nope", { accept: BrowserAccept }],
      ["/mcp/nope", { accept: BrowserAccept }],
      ["/api/v1/protocols;x=1", { accept: BrowserAccept }]
    ]
    for (const [path, headers] of cases) {
      const r = await send(path, headers)
      const label = `${path} ${JSON.stringify(headers)}`
      assert.strictEqual(r.status, 404, label)
      assert.match(r.headers.get("content-type") ?? "", /^application\/json/, label)
      assert.deepStrictEqual(await r.json(), { detail: "not found" }, label)
    }
    // A method the API does not take on its path stays a JSON 405 with Allow.
    const put = await send("/api/v1/protocols", { accept: BrowserAccept }, { method: "PUT" })
    assert.strictEqual(put.status, 405)
    assert.strictEqual(put.headers.get("allow"), "GET, HEAD")
  })
})

describe("signing in", () => {
  it("refused for rate is a 429 form page with the Retry-After and RateLimit headers the API sends", async () => {
    const from = fresh()
    const post = () =>
      send(
        "/sign-in",
        {
          "x-forwarded-for": from,
          origin: world.baseUrl,
          "content-type": "application/x-www-form-urlencoded"
        },
        { method: "POST", body: "key=rk_not_a_real_key_at_all" }
      )
    let page = await post()
    for (let i = 0; i < AnonymousLimit && page.status === 401; i++) page = await post()
    assert.strictEqual(page.status, 429)
    assert.include(await page.text(), "Too many attempts from this address")
    assert.isNull(page.headers.get("set-cookie"))
    const apiRefusal = await send("/api/v1/protocols", {
      "x-forwarded-for": from,
      authorization: "Bearer rk_not_a_real_key_at_all"
    })
    assert.strictEqual(apiRefusal.status, 429)
    for (const name of ["ratelimit-limit", "ratelimit-policy", "ratelimit-remaining"])
      assert.strictEqual(page.headers.get(name), apiRefusal.headers.get(name), name)
    for (const name of ["retry-after", "ratelimit-reset"]) {
      const [ours, api] = [Number(page.headers.get(name)), Number(apiRefusal.headers.get(name))]
      assert.isAbove(ours, 0, name)
      assert.isAtMost(Math.abs(ours - api), 1, `${name}: ${ours} and the API's ${api}`)
    }
  })
})

describe("explorer pages and the response cache", () => {
  const hits = () => Effect.runPromise(Effect.map(world.cache.stats, (s) => s.hits))
  const versionOf = (html: string) => /data-figure="version"[^>]*>(\d+)</.exec(html)?.[1]

  it("answers the second request of a list or entity page from the cache, and a publish on the next", async () => {
    for (const path of ["/protocols?sort=name", "/protocols/lendwell"]) {
      const first = await (await send(path)).text()
      const before = await hits()
      const again = await send(path)
      assert.strictEqual(again.status, 200, path)
      assert.strictEqual(await again.text(), first, path)
      assert.strictEqual(await hits(), before + 1, `${path}: the second request is a cache hit`)
    }
    assert.strictEqual(versionOf(await (await send("/protocols/lendwell")).text()), "2")
    const list = await (await send("/protocols?sort=name")).text()
    const text = (path: string) => Effect.promise(async () => (await send(path)).text())
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const applied = yield* world.cache.applied
          const published = yield* Effect.flatMap(
            Effect.provideContext(Effect.service(Publisher), world.a),
            (p) =>
              p.publish({ entity_type: "protocol", slug: "lendwell", reasoning: "re-rated", actor: "test" })
          )
          const page = yield* text("/protocols/lendwell")
          assert.strictEqual(versionOf(page), "3", "the publish shows on the next request")
          assert.include(page, String(published.scorecard.composite_score))
          assert.notStrictEqual(yield* text("/protocols?sort=name"), list)
          // Once the change is heard (and what it invalidates dropped), the new page is cached in turn.
          while ((yield* PubSub.take(applied)).entity_id !== LendwellId) {}
          assert.strictEqual(versionOf(yield* text("/protocols/lendwell")), "3")
          const before = yield* world.cache.stats
          assert.strictEqual(versionOf(yield* text("/protocols/lendwell")), "3")
          assert.strictEqual((yield* world.cache.stats).hits, before.hits + 1)
        })
      )
    )
  })
})

describe("tables on a narrow screen", () => {
  it("sit each in a named, focusable region that scrolls sideways on its own", async () => {
    let tables = 0
    for (const path of [
      "/",
      "/protocols",
      "/protocols/lendwell",
      "/incidents?min_status=rumored",
      "/methodology",
      "/quantum"
    ]) {
      const html = await (await send(path, { cookie: `ratings_key=${world.pro}` })).text()
      const all = html.match(/<table[ >]/g)?.length ?? 0
      const wrapped = [
        ...html.matchAll(/<div class="table-wrap" role="region" tabindex="0" aria-label="[^"]+"><table[ >]/g)
      ].length
      assert.strictEqual(wrapped, all, `${path}: every table in a named region`)
      tables += all
    }
    assert.isAtLeast(tables, 6)
  })
})
