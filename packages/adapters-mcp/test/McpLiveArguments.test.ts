/**
 * The MCP tools take the live service's argument names and bounds (api-facts
 * "The live service's agent (MCP) server"), as an agent trained on it sends
 * them: tools/list advertises exactly those arguments, and each tool answers
 * them, its limits' defaults and maxima included (a limit past the maximum is
 * refused saying why). Over /mcp on a server with more entities and incidents
 * than a tool answers by default (LiveSeed.ts).
 */
import { assert, layer } from "@effect/vitest"
import { TestServer } from "@ratings/adapters-http/test/TestServer"
import { Effect } from "effect"
import { mcpSession } from "./McpSession.ts"
import { McpTestServer } from "./McpTestServer.ts"
import { BulkProtocols, BulkTokens, LiveSeed } from "./LiveSeed.ts"

// biome-ignore lint/suspicious/noExplicitAny: structured content is probed field by field
type Json = any

/** Each tool's arguments in the live service's table, and the required ones (search_ratings keeps our limit). */
const LiveArguments: Record<
  string,
  { readonly properties: Array<string>; readonly required: Array<string> }
> = {
  list_ratings: { properties: ["entity_type", "category", "chain", "limit"], required: ["entity_type"] },
  search_ratings: { properties: ["query", "entity_type", "limit"], required: ["query"] },
  // entity_type is optional here: without it the slug is looked up in every type.
  get_rating: { properties: ["entity_type", "identifier"], required: ["identifier"] },
  get_rating_breakdown: { properties: ["entity_type", "slug"], required: ["entity_type", "slug"] },
  get_recent_incidents: { properties: ["since", "slug", "min_status", "limit"], required: [] },
  get_methodology: { properties: [], required: [] },
  quantum_readiness: { properties: ["chain"], required: [] },
  request_coverage: {
    properties: ["entity_name", "entity_type", "contact_email", "note"],
    required: ["entity_name", "entity_type", "contact_email"]
  }
}

const session = Effect.flatMap(TestServer, (server) => mcpSession(server.baseUrl, server.bearerFor("pro")))

/** A served incident at `protocol`: two independent sources report it. */
const ingestIncident = (protocol: string) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    for (const handle of ["blockaid", "peckshield"]) {
      const r = yield* server.request("/api/v1/admin/incidents", {
        method: "POST",
        caller: "admin",
        body: {
          nonce: `live-${protocol}-${handle}`,
          protocol_name: protocol,
          chain: "ethereum",
          exploit_class: "REENTRANCY",
          loss_estimate_usd: 1_000_000,
          victim_addresses: [],
          source: { handle },
          claimed_tier: "rumored",
          first_seen_at: "2026-11-01T10:00:00Z"
        }
      })
      assert.strictEqual(r.status, 200, r.text)
    }
  })

layer(McpTestServer.layerMemory(LiveSeed), { excludeTestServices: true })("live tool arguments", (it) => {
  it.effect(
    "tools/list advertises each tool's arguments as the live service names them, with its bounds, and the older names in the descriptions",
    () =>
      Effect.gen(function* () {
        const mcp = yield* session
        for (const tool of mcp.tools) {
          const live = LiveArguments[tool.name]!
          const schema = tool.inputSchema as Json
          assert.deepStrictEqual(Object.keys(schema.properties ?? {}), live.properties, tool.name)
          assert.deepStrictEqual(schema.required ?? [], live.required, tool.name)
        }
        const schemaOf = (name: string): Json => mcp.tools.find((t) => t.name === name)!.inputSchema
        assert.strictEqual(schemaOf("list_ratings").properties.limit.maximum, 50)
        assert.include(schemaOf("list_ratings").properties.limit.description, "default 25")
        assert.strictEqual(schemaOf("get_recent_incidents").properties.limit.maximum, 200)
        assert.include(schemaOf("get_recent_incidents").properties.limit.description, "default 25")
        assert.include(schemaOf("get_rating").properties.identifier.description, "`slug` and `id`")
        assert.include(schemaOf("get_rating_breakdown").properties.slug.description, "`identifier` and `id`")
      }).pipe(Effect.scoped)
  )

  it.effect(
    "list_ratings takes entity_type, category (lower case), chain (a chain slug) and limit: 25 by default, 50 at most, 51 refused saying why",
    () =>
      Effect.gen(function* () {
        const mcp = yield* session
        const byDefault = yield* mcp.call("list_ratings", { entity_type: "protocol" })
        assert.isFalse(byDefault.isError, byDefault.text)
        assert.isAbove((byDefault.structured as Json).total, 25)
        assert.lengthOf((byDefault.structured as Json).items, 25)
        const fifty = yield* mcp.call("list_ratings", { entity_type: "protocol", limit: 50 })
        assert.isFalse(fifty.isError, fifty.text)
        const total = (fifty.structured as Json).total
        assert.lengthOf((fifty.structured as Json).items, Math.min(50, total))
        assert.isAbove((fifty.structured as Json).items.length, 25)
        const over = yield* mcp.call("list_ratings", { entity_type: "protocol", limit: 51 })
        assert.isTrue(over.isError)
        assert.strictEqual(over.text, "invalid arguments: limit: Expected a value between 1 and 50")
        const filtered = yield* mcp.call("list_ratings", {
          entity_type: "protocol",
          category: "dex",
          chain: "ethereum",
          limit: 50
        })
        assert.isFalse(filtered.isError, filtered.text)
        assert.match(filtered.text, /^\d+ protocols \(category dex, chain ethereum\)/)
        const items = (filtered.structured as Json).items as Array<Json>
        assert.isAtLeast(items.length, BulkProtocols)
        const untyped = yield* mcp.call("list_ratings", { limit: 5 })
        assert.isTrue(untyped.isError)
        assert.include(untyped.text, "entity_type")
      }).pipe(Effect.scoped)
  )

  it.effect(
    "search_ratings takes query and entity_type: up to 10 per type and 15 in all, all seven types when entity_type is left out; our limit still sets both",
    () =>
      Effect.gen(function* () {
        const mcp = yield* session
        const all = yield* mcp.call("search_ratings", { query: "bulk" })
        assert.isFalse(all.isError, all.text)
        const items = (all.structured as Json).items as Array<Json>
        assert.strictEqual((all.structured as Json).total, BulkProtocols + BulkTokens)
        assert.lengthOf(items, 15)
        assert.lengthOf(
          items.filter((i) => i.entity_type === "protocol"),
          10
        )
        assert.lengthOf(
          items.filter((i) => i.entity_type === "token"),
          5
        )
        const protocols = yield* mcp.call("search_ratings", { query: "bulk", entity_type: "protocol" })
        assert.lengthOf((protocols.structured as Json).items, 10)
        const ours = yield* mcp.call("search_ratings", { query: "bulk", entity_type: "protocol", limit: 25 })
        assert.lengthOf((ours.structured as Json).items, 25)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "get_recent_incidents takes since, slug, min_status and limit: 25 by default, 200 at most, 201 refused saying why",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (let i = 1; i <= 27; i++) yield* ingestIncident(`Drained Finance ${i}`)
        yield* ingestIncident("Protocol Alpha")
        const mcp = yield* session
        const byDefault = yield* mcp.call("get_recent_incidents", { min_status: "rumored" })
        assert.isFalse(byDefault.isError, byDefault.text)
        assert.isAtLeast((byDefault.structured as Json).total, 28)
        assert.lengthOf((byDefault.structured as Json).items, 25)
        const most = yield* mcp.call("get_recent_incidents", { min_status: "rumored", limit: 200 })
        assert.isFalse(most.isError, most.text)
        assert.lengthOf((most.structured as Json).items, (most.structured as Json).total)
        const over = yield* mcp.call("get_recent_incidents", { limit: 201 })
        assert.isTrue(over.isError)
        assert.strictEqual(over.text, "invalid arguments: limit: Expected a value between 1 and 200")
        const args = { since: "2026-01-01T00:00:00Z", slug: "protocol-alpha", min_status: "rumored" }
        const one = yield* mcp.call("get_recent_incidents", args)
        const api = yield* server.get(
          "/api/v1/incidents?since=2026-01-01T00:00:00Z&slug=protocol-alpha&min_status=rumored&limit=25",
          { caller: "pro" }
        )
        assert.strictEqual(api.status, 200, api.text)
        assert.strictEqual((one.structured as Json).total, (api.json as Json).total)
        assert.deepStrictEqual(
          (one.structured as Json).items.map((i: Json) => i.incident_id),
          (api.json as Json).items.map((i: Json) => i.incident_id)
        )
        assert.isAtLeast((one.structured as Json).total, 1)
        assert.isBelow((one.structured as Json).total, (byDefault.structured as Json).total)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "get_methodology takes no argument, quantum_readiness takes chain, request_coverage takes entity_name, entity_type, contact_email and note",
    () =>
      Effect.gen(function* () {
        const mcp = yield* session
        const methodology = yield* mcp.call("get_methodology", {})
        assert.isFalse(methodology.isError, methodology.text)
        assert.include(methodology.text, "Grade scale")
        const league = yield* mcp.call("quantum_readiness", {})
        assert.isFalse(league.isError, league.text)
        const chain = yield* mcp.call("quantum_readiness", { chain: "ethereum" })
        assert.isFalse(chain.isError, chain.text)
        assert.include(chain.text, "ethereum")
        const coverage = yield* mcp.call("request_coverage", {
          entity_name: "Aave V4",
          entity_type: "protocol",
          contact_email: "agent@example.com",
          note: "asked by an agent"
        })
        assert.isFalse(coverage.isError, coverage.text)
        assert.strictEqual((coverage.structured as Json).status, "open")
        const missing = yield* mcp.call("request_coverage", {
          entity_name: "Aave V4",
          entity_type: "protocol"
        })
        assert.isTrue(missing.isError)
        assert.include(missing.text, "contact_email")
      }).pipe(Effect.scoped)
  )
})
