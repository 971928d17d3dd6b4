/**
 * Every explorer page in headless Chromium, for each caller (anonymous, and
 * Free, Pro and Enterprise signed in through the page's form), at 360 and
 * 1440 px: it answers 200 with nosniff, frame protection and a
 * Content-Security-Policy naming no other origin and no unsafe-inline; no
 * request leaves the server; axe-core finds no serious or critical
 * violation; it does not scroll sideways at 360 px; it weighs at most 150 KB
 * compressed with its assets; the branding is on it. Screenshots of each are
 * written to ScreenshotDir (printed), never to the repository.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import type { Browser } from "playwright-core"
import {
  Callers,
  type CallerName,
  compressedWeight,
  cookieHeader,
  type ExplorerServer,
  launchExplorerBrowser,
  MaxPageBytes,
  openAs,
  ScreenshotDir,
  scrollsSideways,
  seriousViolations,
  shoot,
  startExplorerServer,
  Viewports
} from "./ExplorerBrowser.ts"
import { pagesFor, viewOf } from "./ExplorerSite.ts"

let server: ExplorerServer
let browser: Browser

beforeAll(async () => {
  server = await startExplorerServer()
  browser = await launchExplorerBrowser()
  console.log(`explorer screenshots: ${ScreenshotDir}`)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.dispose()
}, 60_000)

/** What a page's Content-Security-Policy must say and must not. */
export const assertStrictPolicy = (policy: string | undefined, where: string) => {
  assert.isDefined(policy, `${where}: a Content-Security-Policy`)
  const directives = new Map(
    policy!.split(";").map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/)
      return [name!, sources] as const
    })
  )
  assert.deepStrictEqual(directives.get("default-src"), ["'none'"], `${where}: default-src 'none'`)
  assert.deepStrictEqual(directives.get("frame-ancestors"), ["'none'"], `${where}: frame-ancestors 'none'`)
  assert.notInclude(policy!, "unsafe-inline", `${where}: no unsafe-inline`)
  assert.notInclude(policy!, "unsafe-eval", `${where}: no unsafe-eval`)
  assert.notMatch(policy!, /https?:|wss?:|\*/, `${where}: no other origin`)
}

const BrandingWords = [DefaultBranding.serviceName, DefaultBranding.frameworkName]

/** Every page answers 200 but the Webhooks tab, which asks anonymous visitors to sign in (401) and Free keys for a higher tier (403): pages all the same. */
const expectedStatus = (caller: CallerName, path: string): number =>
  path !== "/webhooks" ? 200 : caller === "anonymous" ? 401 : caller === "free" ? 403 : 200

const checkCaller = async (caller: CallerName) => {
  const view = await viewOf(server, caller)
  const pages = pagesFor(view)
  const problems: Array<string> = []
  for (const viewport of Viewports) {
    const { context, page, outside, errors } = await openAs(browser, server, caller, viewport)
    try {
      for (const path of pages) {
        const where = `${caller} ${viewport.name} ${path}`
        const response = await page.goto(`${server.base}${path}`, { waitUntil: "load" })
        assert.isNotNull(response, where)
        const status = response!.status()
        const headers = await response!.allHeaders()
        if (
          status !== expectedStatus(caller, path) ||
          !String(headers["content-type"]).startsWith("text/html")
        ) {
          problems.push(`${where}: status ${status}, ${headers["content-type"]}`)
          continue
        }
        assert.strictEqual(headers["x-content-type-options"], "nosniff", `${where}: nosniff`)
        assert.strictEqual(headers["x-frame-options"], "DENY", `${where}: X-Frame-Options`)
        assertStrictPolicy(headers["content-security-policy"], where)
        const text = await page.locator("body").innerText()
        for (const word of BrandingWords) if (!text.includes(word)) problems.push(`${where}: no "${word}"`)
        for (const v of await seriousViolations(page))
          problems.push(
            `${where}: axe ${v.impact} ${v.id} (${v.help}) at ${v.targets.slice(0, 3).join(", ")}`
          )
        if (viewport.width === 360 && (await scrollsSideways(page)))
          problems.push(`${where}: scrolls sideways at 360 px`)
        if (viewport.name === "wide") {
          const weight = await compressedWeight(
            page,
            `${server.base}${path}`,
            await cookieHeader(context, server.base)
          )
          if (weight > MaxPageBytes)
            problems.push(`${where}: ${weight} bytes compressed (at most ${MaxPageBytes})`)
        }
        await shoot(page, `${caller}-${viewport.name}-${path === "/" ? "home" : path.slice(1)}`)
      }
      assert.deepStrictEqual(outside, [], `${caller} ${viewport.name}: no request leaves the server`)
      assert.deepStrictEqual(errors, [], `${caller} ${viewport.name}: no script error`)
    } finally {
      await context.close()
    }
  }
  assert.deepStrictEqual(problems, [], `${caller}: every page as it must be:\n${problems.join("\n")}`)
}

describe("explorer pages in Chromium", () => {
  for (const caller of Callers)
    it(`as ${caller}: every page at 360 and 1440 px, headers and policy, axe, width, weight, nothing from elsewhere`, async () => {
      await checkCaller(caller)
    }, 600_000)

  it("anonymous /webhooks asks to sign in", async () => {
    const page = await fetch(`${server.base}/webhooks`)
    assert.include([200, 401], page.status)
    assert.match(await page.text(), /action="\/sign-in"/, "the sign-in form")
  })

  it("the style sheet and the script are long-cached or ETagged, and nosniff", async () => {
    for (const asset of ["/assets/explorer.css", "/assets/explorer.js"]) {
      const linked = new RegExp(`${asset.replace(".", "[^\"']*\\.").replace(/\//g, "\\/")}[^"']*`).exec(
        await (await fetch(`${server.base}/`)).text()
      )
      assert.isNotNull(linked, `the home page names ${asset}`)
      const r = await fetch(`${server.base}${linked![0]}`)
      assert.strictEqual(r.status, 200, asset)
      assert.strictEqual(r.headers.get("x-content-type-options"), "nosniff")
      assert.isTrue(
        /max-age=\d{5,}/.test(String(r.headers.get("cache-control"))) || r.headers.get("etag") !== null,
        `${asset}: long-cached or ETagged`
      )
    }
  })
})
