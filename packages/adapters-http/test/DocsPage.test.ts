/**
 * The docs page (issue 4: "a docs page rendered from" the OpenAPI document),
 * opened in headless Chromium as a person would: it renders the API's title,
 * version and routes from /openapi.json, with no network beyond the server.
 * Its Content-Security-Policy (server/DocsPage.ts) lets it render and send
 * a test request without a single violation, and no other origin may frame it.
 * It asks for nothing of another origin even with the policy bypassed (no
 * fonts from the viewer's servers), and the viewer is a cacheable asset.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { BearerSchemeName } from "../src/api/Authentication.ts"
import {
  DocsScalarConfig,
  DocsScriptCacheControl,
  DocsScriptPath,
  DropEmptyBearer
} from "../src/server/DocsPage.ts"
import { framedElsewhere, guardOutside, launchChromium, watchPolicyViolations } from "./Browser.ts"
import { AcmeBranding, Seed } from "./fixtures.ts"
import { TestServer } from "./TestServer.ts"

describe("docs page", () => {
  it.layer(TestServer.layerMemory(Seed))((it) => {
    it.effect(
      "/docs renders the OpenAPI document: title, version 0.1.0 and the entity routes",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
            Effect.promise(() => b.close())
          )
          const page = yield* Effect.promise(() => browser.newPage())
          const failed: Array<string> = []
          page.on("requestfailed", (r) => failed.push(r.url()))
          yield* Effect.promise(() => page.goto(`${server.baseUrl}/docs`))
          yield* Effect.promise(() =>
            page.getByText("DeFi Risk Ratings API").first().waitFor({ timeout: 20_000 })
          )
          const text = yield* Effect.promise(() => page.locator("body").innerText())
          assert.include(text, "0.1.0")
          assert.match(text, /protocols/i)
          assert.match(text, /scorecards/i)
          assert.deepStrictEqual(
            failed.filter((u) => u.startsWith(server.baseUrl)),
            [],
            "every request to the server succeeded"
          )
        }).pipe(Effect.scoped),
      60_000
    )

    it.effect(
      "/docs asks for nothing from elsewhere: every request of the page, its policy bypassed, stays on the server (no fonts from Scalar's servers)",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
            Effect.promise(() => b.close())
          )
          // With the policy bypassed, what the page asks for is what the viewer is configured to load.
          const context = yield* Effect.promise(() => browser.newContext({ bypassCSP: true }))
          const outside = yield* Effect.promise(() => guardOutside(context, new URL(server.baseUrl).origin))
          const asked: Array<string> = []
          context.on("request", (r) => asked.push(r.url()))
          const page = yield* Effect.promise(() => context.newPage())
          yield* Effect.promise(() => page.goto(`${server.baseUrl}/docs`, { waitUntil: "networkidle" }))
          yield* Effect.promise(() =>
            page.getByText("DeFi Risk Ratings API").first().waitFor({ timeout: 20_000 })
          )
          yield* Effect.promise(() => page.waitForLoadState("networkidle"))
          assert.include(asked, `${server.baseUrl}${DocsScriptPath}`, "the viewer is loaded from the server")
          assert.deepStrictEqual(outside, [], "no request leaves the server")
          const policy = String(
            (yield* Effect.promise(() => page.request.get(`${server.baseUrl}/docs`))).headers()[
              "content-security-policy"
            ]
          )
          assert.notMatch(policy, /https?:|wss?:|\*|font-src/, "the policy names no other origin and no font")
        }).pipe(Effect.scoped),
      60_000
    )

    it.effect("the viewer's script is an asset of its own: JavaScript, cached a day, 304 on its ETag", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const url = `${server.baseUrl}${DocsScriptPath}`
        const first = yield* Effect.promise(() => fetch(url))
        assert.strictEqual(first.status, 200)
        assert.match(String(first.headers.get("content-type")), /^text\/javascript/)
        assert.strictEqual(first.headers.get("cache-control"), DocsScriptCacheControl)
        assert.strictEqual(first.headers.get("x-content-type-options"), "nosniff")
        const script = yield* Effect.promise(() => first.text())
        assert.include(script, "createApiReference")
        const etag = first.headers.get("etag")!
        assert.match(etag, /^"[^"]+"$/)
        const again = yield* Effect.promise(() => fetch(url, { headers: { "if-none-match": etag } }))
        assert.strictEqual(again.status, 304)
        assert.strictEqual(again.headers.get("etag"), etag)
        const page = yield* Effect.promise(() => fetch(`${server.baseUrl}/docs`).then((r) => r.text()))
        assert.notInclude(
          page,
          "window.Scalar={createApiReference",
          "the page no longer carries the viewer inline"
        )
        assert.isBelow(page.length, script.length / 4, "the page is a small part of what it was")
      })
    )

    it.effect(
      "/docs under its Content-Security-Policy, with nosniff and X-Frame-Options: renders and sends a test request with no violation; another origin cannot frame it",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
            Effect.promise(() => b.close())
          )
          const page = yield* Effect.promise(() => browser.newPage())
          const violations = yield* Effect.promise(() => watchPolicyViolations(page))
          const response = yield* Effect.promise(() => page.goto(`${server.baseUrl}/docs`))
          const headers = yield* Effect.promise(() => response!.allHeaders())
          assert.include(headers["content-security-policy"], "frame-ancestors 'none'")
          assert.include(headers["content-security-policy"], "default-src 'none'")
          assert.strictEqual(headers["x-frame-options"], "DENY")
          assert.strictEqual(headers["x-content-type-options"], "nosniff")
          yield* Effect.promise(() =>
            page.getByText("DeFi Risk Ratings API").first().waitFor({ timeout: 20_000 })
          )
          assert.match(yield* Effect.promise(() => page.locator("body").innerText()), /protocols/i)
          // The viewer's own client sends a request to the API and shows its answer (connect-src 'self').
          yield* Effect.promise(() =>
            page
              .getByRole("button", { name: /Test Request/ })
              .first()
              .click()
          )
          const sent = yield* Effect.promise(() =>
            Promise.all([
              page.waitForResponse((r) => r.url().startsWith(`${server.baseUrl}/api/v1/`), {
                timeout: 20_000
              }),
              page.getByRole("button", { name: /^Send/ }).first().click()
            ])
          )
          assert.strictEqual(sent[0].status(), 200)
          yield* Effect.promise(() => page.getByText("200 OK").first().waitFor({ timeout: 20_000 }))
          assert.deepStrictEqual(violations, [], "no Content-Security-Policy violation")
          const framed = yield* Effect.promise(() =>
            framedElsewhere(browser, [`${server.baseUrl}/docs`, `${server.baseUrl}/health`])
          )
          assert.notStrictEqual(framed[0], `${server.baseUrl}/docs`, "the docs page is refused in a frame")
          assert.strictEqual(
            framed[1],
            `${server.baseUrl}/health`,
            "while the same embedder frames a JSON answer"
          )
        }).pipe(Effect.scoped),
      90_000
    )
    it.effect(
      "/docs preselects the bearer scheme: the page's configuration names it (with the hook that keeps a call without a key anonymous), and the document offers it as an http bearer scheme",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const page = yield* Effect.promise(() => fetch(`${server.baseUrl}/docs`).then((r) => r.text()))
          assert.include(page, `"preferredSecurityScheme":"${BearerSchemeName}"`)
          assert.include(
            page,
            `onBeforeRequest: ${DropEmptyBearer}`,
            "the request hook, named as the viewer reads it"
          )
          assert.notInclude(page, "customFetch")
          assert.deepStrictEqual(DocsScalarConfig.authentication, {
            preferredSecurityScheme: BearerSchemeName
          })
          const doc = (yield* server.get("/openapi.json")).json as {
            readonly components: {
              readonly securitySchemes: Record<string, { type: string; scheme: string }>
            }
          }
          const scheme = doc.components.securitySchemes[BearerSchemeName]!
          assert.deepStrictEqual([scheme.type, scheme.scheme], ["http", "bearer"])
          // The document lists the optional header as a parameter too; the page's copy does not, or the
          // viewer would add an empty second authorization header to its code samples.
          assert.include(JSON.stringify(doc), '"name":"authorization","in":"header"')
          assert.notInclude(page, '"name":"authorization","in":"header"')
          assert.include(
            page,
            '"name":"limit","in":"query"',
            "while the page's document has the other parameters"
          )
        })
    )

    it.effect(
      '/docs "Try it": the bearer scheme is selected, a pasted key is sent as Authorization: Bearer <key>, and the curl snippet carries it and no empty authorization header',
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const authorization = server.bearerFor("pro")!
          const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
            Effect.promise(() => b.close())
          )
          const page = yield* Effect.promise(() => browser.newPage())
          yield* Effect.promise(() => page.goto(`${server.baseUrl}/docs`))
          yield* Effect.promise(() =>
            page.getByText("DeFi Risk Ratings API").first().waitFor({ timeout: 20_000 })
          )
          const before = yield* Effect.promise(() => page.locator("body").innerText())
          assert.notInclude(before, "No authentication selected")
          assert.match(before, /Selected Auth Type:\s*bearer/)
          yield* Effect.promise(() =>
            page
              .getByRole("button", { name: /Test Request/ })
              .first()
              .click()
          )
          yield* Effect.promise(() =>
            page
              .getByLabel(/Bearer Token/)
              .first()
              .fill(authorization.replace(/^Bearer /, ""))
          )
          const [response] = yield* Effect.promise(() =>
            Promise.all([
              page.waitForResponse((r) => r.url().startsWith(`${server.baseUrl}/api/v1/`), {
                timeout: 20_000
              }),
              page.getByRole("button", { name: /^Send/ }).first().click()
            ])
          )
          const sent = yield* Effect.promise(() => response.request().allHeaders())
          assert.strictEqual(sent.authorization, authorization)
          assert.strictEqual(response.status(), 200)
          const text = yield* Effect.promise(() => page.locator("body").innerText())
          const curl = text.match(/curl [^\n]*\n(?: {2}--header [^\n]*\n?)*/)?.[0] ?? ""
          assert.include(curl, `--header 'Authorization: ${authorization}'`)
          assert.notMatch(curl, /--header 'authorization: '/i, "no empty authorization header")
        }).pipe(Effect.scoped),
      60_000
    )
  })

  it.layer(TestServer.layerMemory(Seed, { branding: AcmeBranding }))((it) => {
    it.effect(
      "/docs under an operator's branding: its title, terms of service and contact, none of the default names",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const browser = yield* Effect.acquireRelease(Effect.promise(launchChromium), (b) =>
            Effect.promise(() => b.close())
          )
          const page = yield* Effect.promise(() => browser.newPage())
          yield* Effect.promise(() => page.goto(`${server.baseUrl}/docs`))
          yield* Effect.promise(() =>
            page.getByText("Acme Risk Desk API").first().waitFor({ timeout: 20_000 })
          )
          assert.strictEqual(yield* Effect.promise(() => page.title()), "Acme Risk Desk API")
          const text = yield* Effect.promise(() => page.locator("body").innerText())
          assert.notInclude(text, "DeFi Risk Ratings")
          const hrefs = yield* Effect.promise(() =>
            page.locator("a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href")))
          )
          assert.include(hrefs, AcmeBranding.termsUrl, "the terms of service are linked")
        }).pipe(Effect.scoped),
      60_000
    )
  })
})
