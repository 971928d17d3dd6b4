/**
 * The ratings explorer on a real `ratings serve` over Postgres with the demo
 * data, by plain HTTP: every page answers HTML with its security headers and
 * the branding; an entity page's figures are the API's for the same caller
 * (anonymous, Free, Pro, Enterprise); a hidden entity appears on no page or
 * link; the key cookie signs in and out, is never set for a bad key, and is
 * never a credential on the API; forms from another origin are refused.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import {
  api,
  barsOf,
  type Explorer,
  entityLinks,
  figureOf,
  get,
  Hidden,
  HostileName,
  pointsOf,
  startExplorer
} from "./ExplorerHarness.ts"

let explorer: Explorer

beforeAll(async () => {
  explorer = await startExplorer()
}, 180_000)

afterAll(() => explorer?.stop(), 60_000)

const Plurals = ["protocols", "chains", "tokens", "oracles", "vaults", "organisations", "bridges"]
const Pages = [
  "/",
  ...Plurals.map((p) => `/${p}`),
  "/incidents?min_status=rumored",
  "/methodology",
  "/quantum"
]

const Csp =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

describe("the ratings explorer served by ratings serve", () => {
  it("answers every page with HTML, its security headers and the branding, loading nothing from elsewhere", async () => {
    const first = await get(explorer.base, "/protocols")
    const entityPages = Plurals.map((p) => entityLinks(first.text).find((l) => l.startsWith(`/${p}/`)))
    for (const path of [...Pages, "/protocols/aave-v3", "/chains/ethereum", "/sign-in"]) {
      const page = await get(explorer.base, path)
      assert.strictEqual(page.status, 200, path)
      assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8", path)
      assert.strictEqual(page.headers.get("content-security-policy"), Csp, path)
      assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff", path)
      assert.strictEqual(page.headers.get("x-frame-options"), "DENY", path)
      assert.strictEqual(page.headers.get("referrer-policy"), "same-origin", path)
      assert.include(page.text, DefaultBranding.serviceName, path)
      assert.include(page.text, DefaultBranding.frameworkName, path)
      assert.include(page.text, DefaultBranding.attribution, path)
      assert.notMatch(page.text, /<(script|link)[^>]+(src|href)="(https?:)?\/\//, path)
    }
    assert.isDefined(entityPages[0])
    for (const asset of ["/assets/explorer.css", "/assets/explorer.js"]) {
      const answer = await get(explorer.base, asset)
      assert.strictEqual(answer.status, 200, asset)
      assert.isNotNull(answer.headers.get("etag"), asset)
    }
  })

  it("a list is sorted, filtered, searched and paged by its query, and a hostile name is shown as text", async () => {
    const byName = await get(explorer.base, "/protocols?sort=name&q=finance")
    assert.strictEqual(byName.status, 200)
    assert.notInclude(byName.text, "<script>alert")
    assert.include(byName.text, "&lt;script>alert(&quot;pwn&quot;)&lt;/script> Finance")
    assert.include(byName.text, "Maple Finance")
    const bad = await get(explorer.base, "/protocols?sort=price")
    assert.strictEqual(bad.status, 400)
    assert.include(bad.text, "sort must be one of")
    const dex = await get(explorer.base, "/protocols?category=dex")
    assert.include(dex.text, "Uniswap V3")
    assert.notInclude(dex.text, "Aave V3")
  })

  it("an entity page shows the API's figures to anonymous, Free, Pro and Enterprise callers", async () => {
    const { free, pro, enterprise } = explorer.keys
    const callers = [undefined, free, pro, enterprise]
    const list = await get(explorer.base, "/")
    const entities = entityLinks(list.text).slice(0, 12)
    assert.isAbove(entities.length, 6)
    for (const key of callers) {
      for (const path of entities) {
        const [, plural, slug] = path.split("/")
        const page = await get(explorer.base, path, key === undefined ? {} : { cookie: key })
        assert.strictEqual(page.status, 200, path)
        const cards = await api(explorer.base, `/${plural}/${slug}/scorecards`, key)
        const latest = cards.items.find((c: { status: string }) => c.status === "published")
        const dash = (v: unknown) => (v === null || v === undefined ? "–" : String(v))
        assert.strictEqual(figureOf(page.text, "grade"), latest?.grade ?? "not rated", `${path} grade`)
        assert.strictEqual(
          figureOf(page.text, "composite"),
          dash(latest?.composite_score),
          `${path} composite`
        )
        assert.strictEqual(
          figureOf(page.text, "intrinsic-composite"),
          dash(latest?.intrinsic_composite_score),
          `${path} intrinsic`
        )
        if (key === pro || key === enterprise) {
          const domains = await api(explorer.base, `/${plural}/${slug}/domains`, key)
          const bars = barsOf(page.text)
          assert.deepStrictEqual(
            Object.fromEntries(Object.entries(bars).map(([d, [score]]) => [d, score])),
            domains.domain_scores,
            `${path} domains`
          )
          const history = await api(explorer.base, `/${plural}/${slug}/history`, key)
          assert.deepStrictEqual(
            pointsOf(page.text),
            [...history.items]
              .reverse()
              .filter((h: { composite_score: number | null }) => h.composite_score !== null)
              .map((h: { scorecard_version: number; composite_score: number; grade: string | null }) => [
                h.scorecard_version,
                h.composite_score,
                h.grade ?? ""
              ]),
            `${path} history`
          )
          if (key === enterprise) {
            const questions = await api(explorer.base, `/${plural}/${slug}/questions`, key)
            for (const [domain, [, weight]] of Object.entries(bars))
              assert.strictEqual(weight, questions.domain_weights[domain], `${path} weight of ${domain}`)
            assert.strictEqual((page.text.match(/data-question=/g) ?? []).length, questions.items.length)
          } else assert.notInclude(page.text, "data-question=")
        } else {
          assert.deepStrictEqual(barsOf(page.text), {}, `${path}: no domain scores below Pro`)
          assert.deepStrictEqual(pointsOf(page.text), [], `${path}: no history below Pro`)
        }
      }
    }
  }, 120_000)

  it("says which dependency drags by its name and type, as the API names it to the caller", async () => {
    for (const key of [undefined, explorer.keys.free, explorer.keys.enterprise]) {
      const cards = await api(explorer.base, "/protocols/aave-v4/scorecards", key)
      const latest = cards.items.find((c: { status: string }) => c.status === "published")
      assert.strictEqual(latest.largest_drag_hint, "oracle: chainlink")
      const page = await get(explorer.base, "/protocols/aave-v4", key === undefined ? {} : { cookie: key })
      assert.strictEqual(figureOf(page.text, "drag-hint"), "The largest drag comes from Chainlink (oracle).")
      assert.include(page.text, '<a href="/oracles/chainlink">Chainlink (oracle)</a>')
    }
  })

  it("a hidden entity appears on no page, in no link, for any caller; its page is the same 404 as an unknown one", async () => {
    for (const key of [undefined, explorer.keys.enterprise]) {
      const as = key === undefined ? {} : { cookie: key }
      const seen = new Set<string>()
      const queue = [...Pages, "/incidents?min_status=rumored&page=2"]
      while (queue.length > 0) {
        const path = queue.shift()!
        if (seen.has(path)) continue
        seen.add(path)
        const page = await get(explorer.base, path, as)
        assert.strictEqual(page.status, 200, path)
        for (const hidden of Hidden) {
          assert.notInclude(page.text, hidden.name, `${path} names ${hidden.slug}`)
          assert.notInclude(page.text, `/${hidden.slug}"`, `${path} links ${hidden.slug}`)
        }
        if (Pages.includes(path)) queue.push(...entityLinks(page.text))
      }
      assert.isAbove(seen.size, 80)
      const unknown = await get(explorer.base, "/protocols/no-such-protocol", as)
      assert.strictEqual(unknown.status, 404)
      for (const hidden of Hidden) {
        const page = await get(explorer.base, `/protocols/${hidden.slug}`, as)
        assert.strictEqual(page.status, 404)
        assert.strictEqual(page.text, unknown.text)
      }
    }
    assert.include((await get(explorer.base, "/protocols/hostile-finance")).text, "Finance")
    assert.notInclude(HostileName, "&")
  }, 120_000)

  it("signs in with a key kept in a cookie that works on the explorer only, and signs out", async () => {
    const origin = explorer.base
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin, ...headers },
        body
      })
    const bad = await post("/sign-in", "key=rk_not_a_real_key")
    assert.strictEqual(bad.status, 401)
    assert.isNull(bad.headers.get("set-cookie"))
    assert.include(await bad.text(), "was not accepted")
    const foreign = await post("/sign-in", `key=${explorer.keys.pro}`, { origin: "https://evil.example" })
    assert.strictEqual(foreign.status, 403)
    assert.isNull(foreign.headers.get("set-cookie"))
    const good = await post("/sign-in", `key=${encodeURIComponent(explorer.keys.pro)}`)
    assert.strictEqual(good.status, 303)
    const cookie = good.headers.get("set-cookie") ?? ""
    assert.match(cookie, /^ratings_key=rk_[^;]+; HttpOnly; SameSite=Strict; Path=\/$/)
    const value = cookie.split(";")[0]!.slice("ratings_key=".length)
    assert.include((await get(origin, "/protocols", { cookie: value })).text, "Signed in: Pro tier")
    // The cookie is no credential on the API: a Pro read is refused as anonymous, the header is accepted.
    const viaCookie = await get(origin, "/api/v1/protocols/aave-v3/domains", { cookie: value })
    assert.strictEqual(viaCookie.status, 401)
    assert.strictEqual(
      (await get(origin, "/api/v1/protocols/aave-v3/domains", { bearer: value })).status,
      200
    )
    const out = await post("/sign-out", "", { cookie: `ratings_key=${value}` })
    assert.strictEqual(out.status, 303)
    assert.match(out.headers.get("set-cookie") ?? "", /^ratings_key=; .*Max-Age=0/)
    const revoked = await get(origin, "/protocols", { cookie: "rk_revokedorunknownkeyvalue" })
    assert.strictEqual(revoked.status, 401)
    assert.match(revoked.headers.get("set-cookie") ?? "", /Max-Age=0/)
  })

  it("list and entity pages keep their ETag (a 304 on revalidation) until a change, which shows at once", async () => {
    for (const path of ["/protocols?sort=name", "/protocols/aave-v3"]) {
      const first = await get(explorer.base, path)
      const again = await get(explorer.base, path)
      assert.strictEqual(again.headers.get("etag"), first.headers.get("etag"), path)
      const tag = first.headers.get("etag") ?? ""
      const revalidated = await fetch(`${explorer.base}${path}`, {
        headers: { "if-none-match": tag, "x-forwarded-for": "10.200.0.1" }
      })
      assert.strictEqual(revalidated.status, 304, path)
    }
    assert.include((await get(explorer.base, "/protocols?sort=name")).text, "Aave V3")
    await explorer.cli(["status", "protocol", "aave-v3", "approved"])
    try {
      const list = await get(explorer.base, "/protocols?sort=name")
      assert.notInclude(list.text, "Aave V3")
      assert.strictEqual((await get(explorer.base, "/protocols/aave-v3")).status, 404)
    } finally {
      await explorer.cli(["status", "protocol", "aave-v3", "published"])
    }
    assert.include((await get(explorer.base, "/protocols?sort=name")).text, "Aave V3")
  })
})
