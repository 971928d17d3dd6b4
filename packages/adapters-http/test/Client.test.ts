/**
 * The typed client that comes with the contract (`HttpApiClient.make(RatingsApi)`)
 * against the running server on each backend: it lists, looks up, pages, and
 * decodes the error bodies into the contract's error classes.
 */
import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { RatingsApi } from "../src/api/Api.ts"
import { InsufficientTierError, MissingKeyError, NotFoundError } from "../src/api/Errors.ts"
import { entityId } from "./fixtures.ts"
import type { CallerName } from "./fixtures.ts"
import { onEachBackend, TestServer } from "./TestServer.ts"

const client = (caller?: CallerName) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const authorization = caller === undefined ? undefined : server.bearerFor(caller)
    return yield* HttpApiClient.make(RatingsApi, {
      baseUrl: server.baseUrl,
      transformClient: (c) =>
        authorization === undefined
          ? c
          : HttpClient.mapRequest(c, HttpClientRequest.setHeader("authorization", authorization))
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

onEachBackend((it) => {
  describe("typed client", () => {
    it.effect("lists protocols and fetches a protocol's scorecard list by its id", () =>
      Effect.gen(function* () {
        const api = yield* client()
        const protocols = yield* api.protocols.list({ query: {} })
        assert.deepStrictEqual(
          protocols.items.map((p) => p.slug),
          ["protocol-alpha", "protocol-beta", "protocol-gamma"]
        )
        assert.strictEqual(protocols.total, 3)
        const alpha = protocols.items[0]!
        const cards = yield* api.protocols.scorecards({ params: { id_or_slug: alpha.id } })
        assert.strictEqual(cards.total, 1)
        assert.strictEqual(cards.items[0]!.scorecard_version, 2)
        assert.strictEqual(cards.items[0]!.letter_grade, "BBB")
      })
    )

    it.effect("sends typed query parameters: category repeats, limit and skip page", () =>
      Effect.gen(function* () {
        const api = yield* client()
        const page = yield* api.protocols.list({ query: { category: ["dex", "lending"], limit: 2, skip: 1 } })
        assert.deepStrictEqual(
          page.items.map((p) => p.slug),
          ["protocol-beta", "protocol-gamma"]
        )
        assert.strictEqual(page.total, 3)
        const vaults = yield* api.vaults.list({ query: { curator_id: entityId("organisation", "alpha") } })
        assert.deepStrictEqual(
          vaults.items.map((v) => v.slug),
          ["vault-alpha"]
        )
      })
    )

    it.effect("decodes each type's own record: a token carries its symbol and chain", () =>
      Effect.gen(function* () {
        const api = yield* client()
        const token = yield* api.tokens.detail({ params: { identifier: "token-alpha" }, query: {} })
        assert.strictEqual(token.symbol, "TALPHA")
        assert.strictEqual(token.chain.slug, "ethereum")
      })
    )

    it.effect("decodes 404, 401 and 403 bodies into the contract's errors", () =>
      Effect.gen(function* () {
        const anonymous = yield* client()
        const notFound = yield* Effect.flip(
          anonymous.chains.detail({ params: { identifier: "no-such-chain" }, query: {} })
        )
        assert.instanceOf(notFound, NotFoundError)
        assert.deepStrictEqual((notFound as NotFoundError).detail, "not found")
        const missingKey = yield* Effect.flip(anonymous.chains.domains({ params: { slug: "chain-alpha" } }))
        assert.instanceOf(missingKey, MissingKeyError)
        assert.deepStrictEqual((missingKey as MissingKeyError).detail, { error: "missing_key" })
        const pro = yield* client("pro")
        const tier = yield* Effect.flip(pro.chains.evidence({ params: { slug: "chain-alpha" } }))
        assert.instanceOf(tier, InsufficientTierError)
        assert.deepStrictEqual((tier as InsufficientTierError).detail, {
          error: "insufficient_tier",
          required_tier: "enterprise",
          tier: "pro"
        })
        const domains = yield* pro.chains.domains({ params: { slug: "chain-alpha" } })
        assert.deepStrictEqual(domains.domain_scores, { security: 0.75 })
      })
    )
  })
})
