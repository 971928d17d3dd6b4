/**
 * The dashboard page's headers in headless Chromium (issue 23 point 7): a
 * Content-Security-Policy that lets the page run its own script and style
 * sheet (by hash, no 'unsafe-inline') and call this origin, and nothing else;
 * nosniff; no framing. The page renders, reads the public quantum league and
 * signs in (calls the API with a key) without a single violation, and a page
 * of another origin cannot frame it. The docs page's: DocsPage.test.ts in
 * packages/adapters-http.
 */
import { assert, describe, it } from "@effect/vitest"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect } from "effect"
import { framedElsewhere, launchChromium, watchPolicyViolations } from "@ratings/adapters-http/test/Browser"
import { DashboardRoutes } from "../src/dashboard/DashboardPage.ts"
import { responseCache } from "../src/Layers.ts"
import { importedDatabase, serverProcess } from "./ServerProcess.ts"

describe("the dashboard page's headers", () => {
  it.live(
    "/dashboard under its Content-Security-Policy, with nosniff and X-Frame-Options: renders and signs in with no violation; another origin cannot frame it",
    () =>
      Effect.gen(function* () {
        const { url, a } = yield* importedDatabase
        const { baseUrl } = yield* serverProcess(url, responseCache(), {
          routes: DashboardRoutes,
          accessLog: false
        })
        const { key, record } = issueApiKey({ name: "dashboard headers", tier: "pro" })
        yield* Effect.orDie(Effect.flatMap(ApiKeyRepository, (keys) => keys.create(record))).pipe(
          Effect.provideContext(a)
        )
        const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
          Effect.promise(() => b.close())
        )
        const page = yield* Effect.promise(() => browser.newPage())
        const violations = yield* Effect.promise(() => watchPolicyViolations(page))
        const errors: Array<string> = []
        page.on("pageerror", (e) => errors.push(e.message))
        const response = yield* Effect.promise(() => page.goto(`${baseUrl}/dashboard`))
        const headers = yield* Effect.promise(() => response!.allHeaders())
        const policy = headers["content-security-policy"] ?? ""
        assert.include(policy, "default-src 'none'")
        assert.include(policy, "frame-ancestors 'none'")
        assert.match(policy, /style-src 'sha256-[^']+';/, "its style sheet by hash")
        assert.notInclude(policy, "unsafe-inline")
        assert.strictEqual(headers["x-frame-options"], "DENY")
        assert.strictEqual(headers["x-content-type-options"], "nosniff")
        // The style sheet applies: the league's note is muted grey, not the page's default colour.
        yield* Effect.promise(() => page.locator("#quantum-rows tr").first().waitFor({ timeout: 15_000 }))
        assert.strictEqual(
          yield* Effect.promise(() =>
            page
              .locator("p.lead")
              .first()
              .evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color)
          ),
          "rgb(74, 83, 96)"
        )
        yield* Effect.promise(() => page.fill("#key", key))
        yield* Effect.promise(() => page.click("#signin button[type=submit]"))
        yield* Effect.promise(() => page.locator("#no-failed").waitFor({ timeout: 15_000 }))
        assert.deepStrictEqual(errors, [])
        assert.deepStrictEqual(violations, [], "no Content-Security-Policy violation")
        const framed = yield* Effect.promise(() =>
          framedElsewhere(browser, [`${baseUrl}/dashboard`, `${baseUrl}/health`])
        )
        assert.notStrictEqual(framed[0], `${baseUrl}/dashboard`, "the dashboard is refused in a frame")
        assert.strictEqual(framed[1], `${baseUrl}/health`, "while the same embedder frames a JSON answer")
      }).pipe(Effect.scoped),
    120_000
  )
})
