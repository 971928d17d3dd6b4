/**
 * get_rating and get_rating_breakdown as agents of the live service call them
 * (api-facts): `identifier` a slug or a UUID, our older `slug` and `id` still
 * read, one argument given twice with different values refused; get_rating
 * without entity_type looks the slug up in every type as the caller, so a
 * hidden entity is answered exactly like an unknown one. And serverInfo names
 * the operator's brand.
 */
import { assert, layer } from "@effect/vitest"
import { AcmeBranding, entityId, HiddenKinds, Seed } from "@ratings/adapters-http/test/fixtures"
import { flagSets, isVisible, UnknownId, UnknownSlug } from "@ratings/adapters-http/test/HiddenRecords"
import { TestServer } from "@ratings/adapters-http/test/TestServer"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { Effect } from "effect"
import { HalfHiddenSlug, LiveSeed, liveIdOf, TwinSlug } from "./LiveSeed.ts"
import { mcpSession } from "./McpSession.ts"
import { McpTestServer } from "./McpTestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: structured content is probed field by field
type Json = any

const sessionAs = (caller: "anonymous" | "pro") =>
  Effect.flatMap(TestServer, (server) => mcpSession(server.baseUrl, server.bearerFor(caller)))

const AlphaId = entityId("protocol", "alpha")

layer(McpTestServer.layerMemory(LiveSeed), { excludeTestServices: true })("get_rating", (it) => {
  it.effect(
    "get_rating takes identifier as a slug or a UUID, and the older slug and id: the same rating each way",
    () =>
      Effect.gen(function* () {
        const mcp = yield* sessionAs("pro")
        const bySlug = yield* mcp.call("get_rating", {
          entity_type: "protocol",
          identifier: "protocol-alpha"
        })
        assert.isFalse(bySlug.isError, bySlug.text)
        assert.strictEqual((bySlug.structured as Json).id, AlphaId)
        assert.include(bySlug.text, "Grade: BBB")
        const byUuid = yield* mcp.call("get_rating", { entity_type: "protocol", identifier: AlphaId })
        assert.strictEqual(byUuid.text, bySlug.text)
        for (const older of [{ slug: "protocol-alpha" }, { id: AlphaId }, { slug: AlphaId }]) {
          const answer = yield* mcp.call("get_rating", { entity_type: "protocol", ...older })
          assert.strictEqual(answer.text, bySlug.text, JSON.stringify(older))
        }
        const same = yield* mcp.call("get_rating", {
          entity_type: "protocol",
          identifier: "protocol-alpha",
          slug: "protocol-alpha"
        })
        assert.strictEqual(same.text, bySlug.text, "one value under two names is taken")
        const missing = yield* mcp.call("get_rating", { entity_type: "protocol" })
        assert.isTrue(missing.isError)
        assert.match(missing.text, /^invalid arguments: identifier: /)
        const wrong = yield* mcp.call("get_rating", { entity_type: "protocol", slug: "" })
        assert.isTrue(wrong.isError)
        assert.match(wrong.text, /^invalid arguments: slug: /, "named as the caller wrote it")
      }).pipe(Effect.scoped)
  )

  it.effect(
    "one argument given under two names with different values is refused, naming both (get_rating and get_rating_breakdown)",
    () =>
      Effect.gen(function* () {
        const mcp = yield* sessionAs("pro")
        const rating = yield* mcp.call("get_rating", {
          entity_type: "protocol",
          identifier: "protocol-alpha",
          slug: "protocol-beta"
        })
        assert.isTrue(rating.isError)
        assert.strictEqual(
          rating.text,
          "invalid arguments: identifier and slug are one argument (identifier; slug and id are its older " +
            'names) but were given different values, "protocol-alpha" and "protocol-beta": give it once'
        )
        const olderOnly = yield* mcp.call("get_rating", {
          entity_type: "protocol",
          slug: "protocol-alpha",
          id: AlphaId
        })
        assert.isTrue(olderOnly.isError)
        assert.include(olderOnly.text, "slug and id are one argument")
        const breakdown = yield* mcp.call("get_rating_breakdown", {
          entity_type: "protocol",
          slug: "protocol-alpha",
          identifier: "protocol-beta"
        })
        assert.isTrue(breakdown.isError)
        assert.include(breakdown.text, "slug and identifier are one argument")
        for (const older of [{ identifier: "protocol-alpha" }, { id: AlphaId }]) {
          const answer = yield* mcp.call("get_rating_breakdown", { entity_type: "protocol", ...older })
          assert.isFalse(answer.isError, answer.text)
          assert.include(answer.text, "Domain scores (0 to 1):", JSON.stringify(older))
        }
      }).pipe(Effect.scoped)
  )

  it.effect(
    "get_rating without entity_type: the one entity with the slug or id, which types when several have the slug, no rating found when none",
    () =>
      Effect.gen(function* () {
        const mcp = yield* sessionAs("pro")
        const typed = yield* mcp.call("get_rating", { entity_type: "protocol", identifier: "protocol-alpha" })
        for (const identifier of ["protocol-alpha", AlphaId]) {
          const untyped = yield* mcp.call("get_rating", { identifier })
          assert.strictEqual(untyped.text, typed.text, identifier)
        }
        const chain = yield* mcp.call("get_rating", { identifier: "chain-alpha" })
        assert.strictEqual((chain.structured as Json).entity_type, "chain")

        const twins = yield* mcp.call("get_rating", { identifier: TwinSlug })
        assert.isFalse(twins.isError, twins.text)
        assert.strictEqual(
          twins.text.split("\n")[0],
          `2 rated entities have the slug ${TwinSlug}, one of each of these types: oracle, organisation. ` +
            "Call get_rating again with entity_type set to the one meant:"
        )
        assert.include(
          twins.text,
          `- Twin Feed Oracle (oracle ${TwinSlug}, id ${liveIdOf("oracle", TwinSlug)})`
        )
        assert.deepStrictEqual((twins.structured as Json).entity_types, ["oracle", "organisation"])
        const oracle = yield* mcp.call("get_rating", { entity_type: "oracle", identifier: TwinSlug })
        assert.strictEqual((oracle.structured as Json).name, "Twin Feed Oracle")

        const none = yield* mcp.call("get_rating", { identifier: "no-such-entity" })
        assert.isFalse(none.isError)
        assert.strictEqual(none.text, "no rating found for no-such-entity")
        assert.deepStrictEqual(none.structured, { found: false, identifier: "no-such-entity" })
      }).pipe(Effect.scoped)
  )

  it.effect(
    "get_rating without entity_type never reveals a hidden entity: its slug or id is answered as an unknown one, and a slug a hidden chain shares with a public protocol finds the protocol alone",
    () =>
      Effect.gen(function* () {
        const mcp = yield* sessionAs("anonymous")
        // Every record hidden from a detail read: private, inactive, draft, scoring and approved ones.
        const hidden = EntityTypes.flatMap((type) =>
          HiddenKinds.filter((kind) => !isVisible(kind, "detail", "anonymous", flagSets(type)[0]!)).map(
            (kind) => Seed.entities.find((e) => e.record.id === entityId(type, kind))!
          )
        )
        assert.lengthOf(hidden, 7 * 5)
        const answerTo = (identifier: string) =>
          Effect.map(mcp.call("get_rating", { identifier }), (answer) => JSON.stringify(answer))
        const unknownSlug = yield* answerTo(UnknownSlug)
        const unknownId = yield* answerTo(UnknownId)
        for (const { record } of hidden) {
          assert.strictEqual(yield* answerTo(record.slug), unknownSlug.replaceAll(UnknownSlug, record.slug))
          assert.strictEqual(yield* answerTo(record.id), unknownId.replaceAll(UnknownId, record.id))
        }
        const half = yield* mcp.call("get_rating", { identifier: HalfHiddenSlug })
        assert.isFalse(half.isError, half.text)
        assert.strictEqual((half.structured as Json).entity_type, "protocol")
        assert.strictEqual((half.structured as Json).id, liveIdOf("protocol", HalfHiddenSlug))
        assert.notInclude(half.text, "chain")
        assert.notInclude(half.text, liveIdOf("chain", HalfHiddenSlug))
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.effect("serverInfo names the service by default: defi-risk-ratings", () =>
    Effect.gen(function* () {
      const mcp = yield* sessionAs("anonymous")
      assert.strictEqual(mcp.serverInfo?.name, "defi-risk-ratings")
    }).pipe(Effect.scoped)
  )
})

layer(McpTestServer.layerMemory(Seed, { branding: AcmeBranding }), { excludeTestServices: true })(
  "an operator's brand",
  (it) => {
    it.effect("serverInfo follows the operator's branding (RATINGS_SERVICE_NAME): its name and website", () =>
      Effect.gen(function* () {
        const mcp = yield* sessionAs("anonymous")
        assert.strictEqual(mcp.serverInfo?.name, "acme-risk-desk")
        assert.strictEqual(mcp.serverInfo?.websiteUrl, AcmeBranding.siteUrl)
        assert.include(mcp.serverInfo?.description ?? "", "Acme Risk Desk")
      }).pipe(Effect.scoped)
    )
  }
)
