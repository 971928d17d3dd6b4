/**
 * The Webhooks tab in headless Chromium on a real `ratings serve`: a failed
 * delivery of the signed-in account is listed and its re-fire button re-fires
 * it (spec part 3: failed deliveries are listed on the dashboard and may be
 * re-fired from it; the tab replaced the dashboard page). A delivery is driven
 * to failed against a receiver answering 500 (retry offsets scaled); a person
 * signs in with their Pro key through the explorer's form, sees it, the
 * receiver is fixed, the button is clicked, and the server delivers it under
 * the same delivery_id. Also: the operator's branding on the tab, its headers.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { framedElsewhere, launchChromium, watchPolicyViolations } from "@ratings/adapters-http/test/Browser"
import type { Browser } from "playwright-core"
import { AcmeEnv } from "../BrandingEnv.ts"
import { runCli } from "../CliHarness.ts"
import { createRules, waitForOutbox, type WebhookWorld, webhookWorld } from "../WebhookHarness.ts"

let world: WebhookWorld
let browser: Browser

beforeAll(async () => {
  world = webhookWorld()
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await world.dispose()
}, 60_000)

const proKey = async (env: Record<string, string>, account: string) => {
  const created = await runCli(
    ["keys", "create", "--tier", "pro", "--name", "webhooks", "--account", account],
    env
  )
  assert.strictEqual(created.code, 0, created.stderr)
  return created.stdout.trim()
}

describe("the Webhooks tab in Chromium", () => {
  it("lists a failed delivery of the signed-in account, and its re-fire button re-fires it", async () => {
    const { databaseUrl, env } = await world.setup()
    let down = true
    const receiver = await world.receiver(() => (down ? 500 : 200))
    const account = randomUUID()
    const key = await proKey(env, account)
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

    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(e.message))
    const violations = await watchPolicyViolations(page)
    const base = `http://127.0.0.1:${server.port}`
    const closed = await page.goto(`${base}/dashboard`)
    assert.strictEqual(page.url(), `${base}/webhooks`, "the old address leads to the tab")
    assert.strictEqual(closed!.status(), 401)
    assert.strictEqual(await page.title(), "Webhooks · DeFi Risk Ratings")
    assert.include(await page.locator("main").innerText(), "Sign in with a Pro or Enterprise key")
    await page.fill("#key", key)
    await page.click("form.session button[type=submit]")
    await page.waitForLoadState()
    if (!page.url().endsWith("/webhooks")) await page.goto(`${base}/webhooks`)

    const row = page.locator(`#failed-rows tr[data-delivery-id="${mine.delivery_id}"]`)
    await row.waitFor({ timeout: 15_000 })
    assert.strictEqual(await page.locator("#failed-rows tr").count(), 1, "only the account's own deliveries")
    assert.include(await row.innerText(), "failed")
    assert.include(await row.innerText(), "HTTP 500")
    assert.include(await page.locator("#rule-rows").innerText(), receiver.url("/hook"))
    assert.notInclude(await page.content(), key, "the key is never written into the page")

    down = false
    await row.locator("button.refire").click()
    await page.locator("#message.ok").waitFor({ timeout: 15_000 })
    assert.include(await page.locator("#message").innerText(), `Re-fired delivery ${mine.delivery_id}`)
    assert.strictEqual(
      await page.locator(`#failed-rows tr[data-delivery-id="${mine.delivery_id}"]`).count(),
      0,
      "no longer among the failed: pending again"
    )

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
    await page.click(`#rule-rows tr[data-rule-id="${rule!.id}"] a.log-link`)
    const logged = page.locator(`#log-rows tr[data-delivery-id="${mine.delivery_id}"]`)
    await logged.waitFor()
    assert.strictEqual(await logged.getAttribute("data-status"), "delivered")
    assert.include(await logged.innerText(), "http_error 500")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(violations, [], "no Content-Security-Policy violation")
    await page.close()
  }, 120_000)

  it("carries the operator's branding, its page headers, and cannot be framed by another origin", async () => {
    const { env } = await world.setup({ ...AcmeEnv })
    const server = await world.startServer(env)
    const base = `http://127.0.0.1:${server.port}`
    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(e.message))
    const violations = await watchPolicyViolations(page)
    const response = await page.goto(`${base}/webhooks`)
    const headers = await response!.allHeaders()
    const policy = headers["content-security-policy"] ?? ""
    assert.include(policy, "default-src 'none'")
    assert.include(policy, "form-action 'self'")
    assert.include(policy, "frame-ancestors 'none'")
    assert.notInclude(policy, "unsafe-inline")
    assert.strictEqual(headers["x-frame-options"], "DENY")
    assert.strictEqual(headers["x-content-type-options"], "nosniff")
    assert.strictEqual(headers["cache-control"], "no-store")
    assert.strictEqual(await page.title(), `Webhooks · ${AcmeEnv.RATINGS_SERVICE_NAME}`)
    // The style sheet (a file of this origin) applies: the lead paragraph is muted grey, not the default colour.
    const lead = page.locator("#webhooks p.lead").first()
    assert.strictEqual(
      await lead.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color),
      "rgb(74, 83, 96)"
    )
    const footer = page.locator("footer")
    assert.strictEqual(
      await footer.locator(`a[href="${AcmeEnv.RATINGS_SITE_URL}"]`).innerText(),
      AcmeEnv.RATINGS_SERVICE_NAME
    )
    assert.strictEqual(
      await footer.locator('a[href="https://risk.acme.example/ratings/methodology"]').innerText(),
      AcmeEnv.RATINGS_FRAMEWORK_NAME
    )
    assert.strictEqual(await footer.locator(`a[href="${AcmeEnv.RATINGS_TERMS_URL}"]`).count(), 1)
    assert.include(await footer.innerText(), AcmeEnv.RATINGS_ATTRIBUTION)
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(violations, [], "no Content-Security-Policy violation")
    await page.close()
    const framed = await framedElsewhere(browser, [`${base}/webhooks`, `${base}/health`])
    assert.notStrictEqual(framed[0], `${base}/webhooks`, "the tab is refused in a frame")
    assert.strictEqual(framed[1], `${base}/health`, "while the same embedder frames a JSON answer")
  }, 120_000)
})
