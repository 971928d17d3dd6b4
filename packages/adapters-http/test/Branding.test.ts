/**
 * Operator branding (issue 17 point 1) over the real server: with a branding
 * provided, the operator's service name, framework name, site, terms and
 * attribution text are what /methodology, the Link and X-Attribution headers,
 * the OpenAPI `info` and the docs page say, through the response cache too;
 * without one, every value is today's default. The configuration that makes
 * a branding (and refuses bad values) is apps/server BrandingConfig.ts,
 * tested in apps/server Config.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Attribution,
  brandingOf,
  DefaultBranding,
  MethodologyUrl,
  ServiceName,
  ServiceWebsite,
  TermsUrl
} from "@ratings/domain/model/ServiceInfo"
import { MethodologyName } from "@ratings/domain/scoring/Methodology"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { attributionLinkOf, quotedString, withAttribution } from "../src/server/Attribution.ts"
import { ResponseCache } from "../src/server/cache/ResponseCache.ts"
import { AcmeBranding, Seed } from "./fixtures.ts"
import { type Response, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
type Json = { readonly [key: string]: any }

/** The Link header's entries as [target, params]. */
const links = (r: Response): ReadonlyArray<{ readonly url: string; readonly params: string }> =>
  [...(r.headers.get("link") ?? "").matchAll(/<([^>]*)>([^,]*)/g)].map((m) => ({ url: m[1]!, params: m[2]! }))

const get = (path: string, caller?: "pro") =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(path, { caller })
  })

describe("operator branding: defaults", () => {
  it("the default branding is today's constants exactly", () => {
    assert.deepStrictEqual(DefaultBranding, {
      serviceName: ServiceName,
      frameworkName: MethodologyName,
      siteUrl: ServiceWebsite,
      methodologyUrl: MethodologyUrl,
      termsUrl: TermsUrl,
      attribution: Attribution
    })
    assert.strictEqual(MethodologyName, "DeFi Risk Ratings Methodology")
    assert.deepStrictEqual(brandingOf({}), DefaultBranding)
  })

  it("unset values follow from the service name and site: framework, methodology URL, terms and attribution", () => {
    const b = brandingOf({ serviceName: "Acme Risk Desk", siteUrl: "https://acme.example/" })
    assert.strictEqual(b.frameworkName, "Acme Risk Desk Methodology")
    assert.strictEqual(b.methodologyUrl, "https://acme.example/methodology")
    assert.strictEqual(b.termsUrl, "https://acme.example/terms#automated-access")
    assert.strictEqual(
      b.attribution,
      "Data source: Acme Risk Desk (https://acme.example/). Free and anonymous use must name Acme Risk Desk " +
        "as the data source and link to https://acme.example/. Use by AI assistants and agents is governed by " +
        "the automated-access clause of the terms: https://acme.example/terms#automated-access."
    )
  })

  it.effect(
    "without a branding the server says what it said before: methodology, headers, OpenAPI title",
    () =>
      Effect.gen(function* () {
        const r = yield* get("/api/v1/methodology")
        const body = r.json as Json
        assert.strictEqual(body.name, "DeFi Risk Ratings Methodology")
        assert.strictEqual(body.attribution, Attribution)
        assert.strictEqual(body.methodology_url, "https://defiratings.example/methodology")
        assert.strictEqual(
          r.headers.get("link"),
          '<https://defiratings.example>; rel="via"; title="DeFi Risk Ratings", ' +
            '<https://defiratings.example/terms#automated-access>; rel="terms-of-service"'
        )
        assert.strictEqual(r.headers.get("x-attribution"), Attribution)
        const doc = (yield* get("/openapi.json")).json as Json
        assert.strictEqual(doc.info.title, "DeFi Risk Ratings API")
        assert.strictEqual(doc.info.termsOfService, TermsUrl)
        assert.deepStrictEqual(doc.info.contact, { name: ServiceName, url: ServiceWebsite })
      }).pipe(Effect.provide(TestServer.layerMemory()))
  )
})

describe("operator branding: a configured branding is used everywhere", () => {
  const server = (cache: boolean) =>
    TestServer.layerMemory(Seed, {
      branding: AcmeBranding,
      ...(cache ? { responseCache: ResponseCache.layer() } : {})
    })

  for (const cache of [false, true]) {
    it.effect(
      `/methodology publishes under the operator's framework name, attribution and methodology URL${cache ? " (response cache on, read twice)" : ""}`,
      () =>
        Effect.gen(function* () {
          for (const caller of [undefined, "pro"] as const) {
            const body = (yield* get("/api/v1/methodology", caller)).json as Json
            assert.strictEqual(body.name, "Acme Digital Asset Risk Framework")
            assert.strictEqual(body.attribution, AcmeBranding.attribution)
            assert.strictEqual(body.methodology_url, "https://risk.acme.example/ratings/methodology")
            assert.strictEqual(body.version, "1.0")
          }
        }).pipe(Effect.provide(server(cache)))
    )

    it.effect(
      `anonymous and Free responses carry the operator's Link and X-Attribution${cache ? " (response cache on, read twice)" : ""}`,
      () =>
        Effect.gen(function* () {
          const ts = yield* TestServer
          for (const path of [
            "/api/v1/protocols",
            "/api/v1/protocols",
            "/api/v1/methodology",
            "/api/v1/protocols/no-such-protocol"
          ]) {
            for (const caller of [undefined, "free"] as const) {
              const r = yield* ts.get(path, { caller })
              const site = links(r).find((l) => l.url === AcmeBranding.siteUrl)
              assert.isDefined(site, path)
              assert.include(site!.params, 'rel="via"')
              assert.include(site!.params, 'title="Acme Risk Desk"')
              const terms = links(r).find((l) => l.url === AcmeBranding.termsUrl)
              assert.include(terms?.params ?? "", 'rel="terms-of-service"')
              assert.strictEqual(r.headers.get("x-attribution"), AcmeBranding.attribution)
              assert.notInclude(r.headers.get("link")!, "defiratings.example")
            }
          }
          const pro = yield* ts.get("/api/v1/protocols", { caller: "pro" })
          assert.isNull(pro.headers.get("x-attribution"))
        }).pipe(Effect.provide(server(cache)))
    )
  }

  it.effect("the OpenAPI info and the docs page carry the operator's names and links", () =>
    Effect.gen(function* () {
      const doc = (yield* get("/openapi.json")).json as Json
      assert.strictEqual(doc.info.title, "Acme Risk Desk API")
      assert.strictEqual(doc.info.version, "0.1.0")
      assert.strictEqual(doc.info.termsOfService, AcmeBranding.termsUrl)
      assert.deepStrictEqual(doc.info.contact, { name: "Acme Risk Desk", url: AcmeBranding.siteUrl })
      assert.deepStrictEqual(doc.externalDocs, {
        description: "Acme Digital Asset Risk Framework",
        url: "https://risk.acme.example/ratings/methodology"
      })
      assert.isDefined(doc.paths["/api/v1/methodology"], "the same routes are documented")
      const docs = yield* get("/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(docs.text, "<title>Acme Risk Desk API</title>")
      assert.notInclude(docs.text, "DeFi Risk Ratings")
    }).pipe(Effect.provide(server(false)))
  )
})

describe("operator branding: the Link header's title", () => {
  it("is an RFC 9110 quoted-string: a quote or a backslash in the name is escaped, and parses back to the name", () => {
    const name = 'Acme "Risk" Desk \\ Labs'
    assert.strictEqual(quotedString(name), '"Acme \\"Risk\\" Desk \\\\ Labs"')
    const link = attributionLinkOf(brandingOf({ serviceName: name, siteUrl: "https://acme.example" }))
    const title = /title="((?:[^"\\]|\\.)*)"/.exec(link)?.[1]
    assert.strictEqual(title?.replace(/\\(.)/g, "$1"), name)
    assert.include(link, '; rel="via"; title="Acme \\"Risk\\" Desk \\\\ Labs", <https://acme.example/terms')
  })

  it("a branded attribution is added after a Link the response already has", () => {
    const response = HttpServerResponse.empty({
      headers: { link: '<https://x.example/?page=2>; rel="next"' }
    })
    const headers = { link: attributionLinkOf(AcmeBranding), text: AcmeBranding.attribution }
    const out = withAttribution(response, headers).headers
    assert.isTrue(
      out.link!.startsWith('<https://x.example/?page=2>; rel="next", <https://risk.acme.example/ratings>')
    )
    assert.strictEqual(out["x-attribution"], AcmeBranding.attribution)
  })
})
