/**
 * The docs page (issue 4: "a docs page rendered from" the OpenAPI document),
 * opened in headless Chromium as a person would: it renders the API's title,
 * version and routes from /openapi.json, with no network beyond the server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { launchChromium } from "./Browser.ts"
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
