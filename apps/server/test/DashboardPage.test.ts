/**
 * The dashboard watchlist page in headless Chromium (issue 6: "The dashboard
 * page tested in headless Chromium: it lists a failed delivery and the
 * re-fire button re-fires it"; spec part 3: failed deliveries are listed on
 * the dashboard and may be re-fired from it). A real `ratings serve` drives a
 * delivery to failed against a receiver answering 500 (retry offsets scaled);
 * a person signs in with their Pro key, sees it, the receiver is fixed, the
 * button is clicked, and the server delivers it under the same delivery_id.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { chromium } from "playwright-core"
import { AcmeEnv } from "./BrandingEnv.ts"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"
import { createRules, waitForOutbox, type WebhookWorld, webhookWorld } from "./WebhookHarness.ts"

const ChromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

describe("dashboard watchlist page", () => {
  it("lists a failed delivery of the signed-in account, and its re-fire button re-fires it", async () => {
    const { databaseUrl, env } = await world.setup()
    let down = true
    const receiver = await world.receiver(() => (down ? 500 : 200))
    const account = randomUUID()
    const created = await runCli(
      ["keys", "create", "--tier", "pro", "--name", "dashboard", "--account", account],
      env
    )
    assert.strictEqual(created.code, 0, created.stderr)
    const key = created.stdout.trim()
    const [rule] = await createRules(databaseUrl, world.serverKey, [
      {
        webhookUrl: receiver.url("/hook"),
        slugs: ["lendwell"],
        events: ["rating.changed"],
        accountId: account
      }
    ])
    // Another account's failed delivery must not show.
    await createRules(databaseUrl, world.serverKey, [
      {
        webhookUrl: receiver.url("/other"),
        slugs: ["lendwell"],
        events: ["rating.changed"],
        accountId: randomUUID()
      }
    ])
    await world.publishLendwell(env)
    const server = await world.startServer(env)
    const failedState = await waitForOutbox(
      databaseUrl,
      (s) => s.deliveries.length === 2 && s.deliveries.every((d) => d.status === "failed"),
      30_000
    )
    const mine = failedState.deliveries.find((d) => d.rule_id === rule!.id)!

    const browser = await chromium.launch({
      executablePath: ChromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(e.message))
      await page.goto(`http://127.0.0.1:${server.port}/dashboard`)
      assert.strictEqual(await page.title(), "Webhook watchlist · DeFi Risk Ratings")
      await page.fill("#key", key)
      await page.click("#signin button[type=submit]")

      const row = page.locator(`#failed-rows tr[data-delivery-id="${mine.delivery_id}"]`)
      await row.waitFor({ timeout: 15_000 })
      assert.strictEqual(
        await page.locator("#failed-rows tr").count(),
        1,
        "only the account's own deliveries"
      )
      assert.include(await row.innerText(), "failed")
      assert.include(await row.innerText(), "HTTP 500")
      assert.include(await page.locator("#rule-rows").innerText(), receiver.url("/hook"))
      assert.notInclude(await page.content(), key, "the key is never written into the page")

      down = false
      await row.locator("button.refire").click()
      await page.locator("#message.ok").waitFor({ timeout: 15_000 })
      assert.include(await page.locator("#message").innerText(), `Re-fired delivery ${mine.delivery_id}`)
      assert.strictEqual(await row.getAttribute("data-status"), "pending")

      const after = await waitForOutbox(
        databaseUrl,
        (s) => s.deliveries.find((d) => d.delivery_id === mine.delivery_id)?.status === "delivered",
        30_000
      )
      const refired = after.deliveries.find((d) => d.delivery_id === mine.delivery_id)!
      assert.strictEqual(refired.cycle, 1, "a new cycle of the same delivery")
      const other = after.deliveries.find((d) => d.rule_id !== rule!.id)!
      assert.strictEqual(other.status, "failed", "the other account's delivery was not touched")

      // The log of the rule shows every attempt, the delivered one last.
      await page.click("#rule-rows button")
      await page.locator("#log-rows tr").first().waitFor()
      assert.include(await page.locator("#log-rows").innerText(), "delivered")
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 120_000)

  it("carries the operator's branding in its title and footer, and shows null quantum readings as not assessed", async () => {
    const db = await scratchDatabase()
    const dir = mkdtempSync(join(tmpdir(), "ratings-dashboard-quantum-"))
    const snapshot = join(dir, "quantum.json")
    const row = (slug: string, name: string, reading: object) => ({
      slug,
      name,
      profile: "L1",
      hybrid: "FAIL",
      danger: false,
      ci: 5,
      ...reading
    })
    writeFileSync(
      snapshot,
      JSON.stringify({
        format: "ratings-import/v1",
        quantum_snapshot: {
          as_of: new Date(Date.now() - 60_000).toISOString(),
          sample: true,
          rows: [
            row("ethereum", "Ethereum", { qri: 25, band: 2, band_label: "Acknowledged", stage: 2 }),
            row("abstract", "Abstract", {
              qri: null,
              band: null,
              band_label: null,
              stage: null,
              danger: null
            }),
            row("halfway", "Halfway Chain", { qri: 40, band: 3, band_label: null, stage: null })
          ]
        }
      })
    )
    const imported = await runCli(["import", snapshot], { DATABASE_URL: db.url })
    assert.strictEqual(imported.code, 0, imported.stderr)
    const port = await Effect.runPromise(freePort)
    const server = startCli(["serve", "--no-demo"], { PORT: String(port), DATABASE_URL: db.url, ...AcmeEnv })
    const browser = await chromium.launch({
      executablePath: ChromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
    try {
      await waitForOutput(server, /ratings service listening on/, 60_000)
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(e.message))
      await page.goto(`http://127.0.0.1:${port}/dashboard`)
      assert.strictEqual(await page.title(), `Webhook watchlist · ${AcmeEnv.RATINGS_SERVICE_NAME}`)
      assert.strictEqual(await page.locator("#brand-site").innerText(), AcmeEnv.RATINGS_SERVICE_NAME)
      assert.strictEqual(await page.locator("#brand-site").getAttribute("href"), AcmeEnv.RATINGS_SITE_URL)
      assert.strictEqual(await page.locator("#brand-methodology").innerText(), AcmeEnv.RATINGS_FRAMEWORK_NAME)
      assert.strictEqual(
        await page.locator("#brand-methodology").getAttribute("href"),
        "https://risk.acme.example/ratings/methodology"
      )
      assert.strictEqual(await page.locator("#brand-terms").getAttribute("href"), AcmeEnv.RATINGS_TERMS_URL)
      assert.strictEqual(await page.locator("#brand-attribution").innerText(), AcmeEnv.RATINGS_ATTRIBUTION)

      // The quantum league is public: it shows without signing in.
      const abstract = page.locator('#quantum-rows tr[data-slug="abstract"]')
      await abstract.waitFor({ timeout: 15_000 })
      const cells = await abstract.locator("td").allInnerTexts()
      assert.deepStrictEqual(cells, [
        "Abstract",
        "L1",
        "not assessed",
        "not assessed",
        "not assessed",
        "FAIL"
      ])
      assert.strictEqual(await abstract.getAttribute("class"), "not-assessed")
      const halfway = await page.locator('#quantum-rows tr[data-slug="halfway"] td').allInnerTexts()
      assert.deepStrictEqual(halfway, ["Halfway Chain", "L1", "40", "3", "not assessed", "FAIL"])
      const ethereum = await page.locator('#quantum-rows tr[data-slug="ethereum"] td').allInnerTexts()
      assert.deepStrictEqual(ethereum, ["Ethereum", "L1", "25", "2 (Acknowledged)", "2", "FAIL"])
      const table = await page.locator("#quantum").innerText()
      assert.notMatch(table, /\bnull\b/i, "no reading is written null")
      assert.include(await page.locator("#quantum-note").innerText(), "LayerQu")
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
      server.kill("SIGTERM")
      await exited(server)
      await db.drop()
    }
  }, 120_000)
})
