/**
 * Which requests the router's fallbacks treat as a person's browser (an HTML
 * 404 page when an app gave one): text/html named before application/json,
 * or without it; a refusal (q=0) or a wildcard is no preference for HTML.
 */
import { assert, describe, it } from "@effect/vitest"
import { prefersHtml } from "../src/server/RouterFallbacks.ts"

describe("prefersHtml", () => {
  it("is true only for text/html named before application/json, or without it", () => {
    const yes = [
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "TEXT/HTML",
      "text/html;q=0.5, application/json",
      "application/xml, text/html"
    ]
    const no = [
      undefined,
      "",
      "*/*",
      "application/json",
      "application/json, text/html",
      "text/html;q=0",
      "text/html; q=0.0, application/json",
      "text/htmlx"
    ]
    for (const accept of yes) assert.isTrue(prefersHtml(accept), String(accept))
    for (const accept of no) assert.isFalse(prefersHtml(accept), String(accept))
  })
})
