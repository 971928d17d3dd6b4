/**
 * Operator branding (issue 17 point 1) as an operator sets it: a `ratings
 * serve` started with RATINGS_SERVICE_NAME, RATINGS_FRAMEWORK_NAME,
 * RATINGS_SITE_URL, RATINGS_TERMS_URL and RATINGS_ATTRIBUTION publishes under
 * them in /methodology, the Link and X-Attribution headers (answered by the
 * router and then by the lane of cache hits, which repeats the router's
 * headers), the OpenAPI info, the docs page and the explorer's Webhooks tab
 * (where the dashboard page was); a bad value stops the start with a message
 * naming its variable. The browser view of the tab is
 * explorer/WebhooksBrowser.test.ts; every value's check is Config.test.ts.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { AcmeEnv } from "./BrandingEnv.ts"
import { exited, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

const port = () => Effect.runPromise(freePort)

let db: Awaited<ReturnType<typeof scratchDatabase>>
beforeAll(async () => {
  db = await scratchDatabase()
}, 60_000)
afterAll(async () => {
  await db.drop()
})

const AcmeLink =
  '<https://risk.acme.example/ratings>; rel="via"; title="Acme <Risk> & \\"Desk\\"", ' +
  '<https://legal.acme.example/terms?v=3#agents>; rel="terms-of-service"'

describe("operator branding from the environment", () => {
  it("a server started with the RATINGS_* branding publishes under it: methodology, headers (router and lane), OpenAPI, docs and the Webhooks tab", async () => {
    const p = await port()
    const child = startCli(["serve", "--no-demo"], { PORT: String(p), DATABASE_URL: db.url, ...AcmeEnv })
    try {
      await waitForOutput(child, /ratings service listening on/, 60_000)
      const base = `http://127.0.0.1:${p}`
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${base}/api/v1/methodology`)
        assert.strictEqual(r.status, 200)
        assert.strictEqual(r.headers.get("link"), AcmeLink, `request ${i + 1}`)
        assert.strictEqual(r.headers.get("x-attribution"), AcmeEnv.RATINGS_ATTRIBUTION, `request ${i + 1}`)
        // biome-ignore lint/suspicious/noExplicitAny: the body is probed field by field
        const body: any = await r.json()
        assert.strictEqual(body.name, "Acme Digital Asset Risk Framework")
        assert.strictEqual(body.attribution, AcmeEnv.RATINGS_ATTRIBUTION)
        assert.strictEqual(body.methodology_url, "https://risk.acme.example/ratings/methodology")
      }
      // The later reads were answered by the lane of cache hits, with the same branded headers.
      await waitForOutput(child, /GET \/api\/v1\/methodology 200 [^\n]* lane/, 10_000)

      // biome-ignore lint/suspicious/noExplicitAny: as above
      const doc: any = await (await fetch(`${base}/openapi.json`)).json()
      assert.strictEqual(doc.info.title, 'Acme <Risk> & "Desk" API')
      assert.strictEqual(doc.info.termsOfService, AcmeEnv.RATINGS_TERMS_URL)
      assert.deepStrictEqual(doc.info.contact, {
        name: AcmeEnv.RATINGS_SERVICE_NAME,
        url: AcmeEnv.RATINGS_SITE_URL
      })
      assert.strictEqual(doc.externalDocs.description, "Acme Digital Asset Risk Framework")

      const docs = await (await fetch(`${base}/docs`)).text()
      assert.include(docs, '<title>Acme &lt;Risk&gt; &amp; "Desk" API</title>', "escaped by the Scalar page")
      assert.notInclude(docs, "<Risk>", "the name is escaped in the page, in its text and its script")

      // The old dashboard address leads to the tab, which is closed without a key but branded all the same.
      const dashboard = await fetch(`${base}/dashboard`)
      assert.strictEqual(dashboard.url, `${base}/webhooks`)
      const tab = await dashboard.text()
      assert.include(tab, "<title>Webhooks · Acme &lt;Risk> &amp; &quot;Desk&quot;</title>")
      assert.include(tab, 'href="https://legal.acme.example/terms?v=3#agents"')
      assert.notInclude(tab, "<Risk>", "the name is escaped in the page")
      assert.notInclude(tab, "DeFi Risk Ratings")
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 120_000)

  it("a bad RATINGS_* branding value stops the start, naming the variable", async () => {
    for (const [name, value, reason] of [
      ["RATINGS_SITE_URL", "risk.acme.example", "must be an absolute http or https URL"],
      ["RATINGS_TERMS_URL", "https://acme.example/terms>; rel=x", "URL characters only"],
      ["RATINGS_SERVICE_NAME", "Acme Désk", "must be printable ASCII"]
    ] as const) {
      const child = startCli(["serve", "--no-demo"], {
        PORT: String(await port()),
        DATABASE_URL: db.url,
        [name]: value
      })
      let output = ""
      child.stdout?.on("data", (d) => (output += d))
      child.stderr?.on("data", (d) => (output += d))
      const code = await exited(child)
      assert.notStrictEqual(code, 0, name)
      assert.include(output, name)
      assert.include(output, reason)
      assert.notInclude(output, "listening on", `${name}: the server did not start`)
    }
  }, 120_000)
})
