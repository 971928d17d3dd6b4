/**
 * The docs page (issue 4: "a docs page rendered from" the OpenAPI document),
 * opened in headless Chromium as a person would: it renders the API's title,
 * version and routes from /openapi.json, with no network beyond the server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { launchChromium } from "./Browser.ts"
import { Seed } from "./fixtures.ts"
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
})
