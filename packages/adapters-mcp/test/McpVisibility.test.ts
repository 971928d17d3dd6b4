/**
 * What the MCP tools show a caller, over /mcp on each backend: never a record
 * the caller may not see (a hidden record's slug or id is answered exactly
 * like an unknown one, by every reading tool), and never another person's
 * coverage request (request_coverage answers a repeat as it answers a new
 * request, with only what its caller sent).
 */
import { assert, describe } from "@effect/vitest"
import { Seed, entityId, HiddenKinds, hasKind } from "@ratings/adapters-http/test/fixtures"
import {
  flagSets,
  holds,
  isVisible,
  UnknownId,
  UnknownSlug,
  UuidShape
} from "@ratings/adapters-http/test/HiddenRecords"
import { type Response, TestServer } from "@ratings/adapters-http/test/TestServer"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { Effect } from "effect"
import { mcpSession } from "./McpSession.ts"
import { onEachBackendWithMcp } from "./McpTestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const json = (r: Response): Json => r.json as Json

/** A coverage request posted to the API (as its caller's first request). */
const post = (sent: unknown) =>
  Effect.flatMap(TestServer, (server) => server.request("/api/v1/contacts", { method: "POST", body: sent }))

/** The fields of a coverage request's receipt (the API's ContactReceipt). */
const ReceiptKeys = [
  "contact_email",
  "created_at",
  "entity_type",
  "id",
  "protocol_name",
  "request_type",
  "status"
]

onEachBackendWithMcp((it) => {
  describe("what the MCP tools show", () => {
    // One test per caller, each with its own time budget (many calls each on a busy machine).
    for (const caller of ["anonymous", "free", "pro", "enterprise"] as const)
      it.effect(
        `the MCP tools never show a hidden record: over /mcp, as ${caller}, list_ratings, search_ratings, get_rating and get_rating_breakdown answer a hidden record's slug or id exactly like an unknown one`,
        () =>
          Effect.scoped(
            Effect.gen(function* () {
              const server = yield* TestServer
              const mcp = yield* mcpSession(server.baseUrl, server.bearerFor(caller))
              for (const type of EntityTypes) {
                const listed = yield* mcp.call("list_ratings", { entity_type: type, limit: 25 })
                const byType = yield* mcp.call("search_ratings", { query: type, limit: 25 })
                assert.isFalse(listed.isError, listed.text)
                assert.isAbove((listed.structured as Json).items.length, 0, `${type} as ${caller}`)
                /** The tool's whole answer (text and data) for `arg`, as for an unknown one in its place. */
                const alikeUnknown = (
                  tool: string,
                  args: Record<string, unknown>,
                  arg: string,
                  value: string
                ) =>
                  Effect.gen(function* () {
                    const unknown = UuidShape.test(value) ? UnknownId : UnknownSlug
                    const answer = JSON.stringify(yield* mcp.call(tool, { ...args, [arg]: value }))
                    const alike = JSON.stringify(yield* mcp.call(tool, { ...args, [arg]: unknown }))
                    assert.strictEqual(answer, alike.replaceAll(unknown, value), `${tool} ${value}`)
                    return answer
                  })
                for (const kind of HiddenKinds.filter((k) => hasKind(type, k))) {
                  const record = Seed.entities.find((e) => e.record.id === entityId(type, kind))!.record
                  const what = (tool: string) => `${tool}: ${type} ${kind} as ${caller}`
                  for (const trace of [record.slug, record.id, record.name]) {
                    assert.notInclude(JSON.stringify(listed), trace, what("list_ratings"))
                    assert.notInclude(JSON.stringify(byType), trace, what("search_ratings by type"))
                  }
                  const searched = yield* alikeUnknown("search_ratings", {}, "query", record.slug)
                  assert.notInclude(searched, record.id, what("search_ratings"))
                  if (isVisible(kind, "detail", caller, flagSets(type)[0])) continue
                  for (const identifier of [record.slug, record.id])
                    for (const tool of ["get_rating", "get_rating_breakdown"]) {
                      const answer = yield* alikeUnknown(tool, { entity_type: type }, "slug", identifier)
                      for (const trace of [record.slug, record.id, record.name].filter(
                        (t) => t !== identifier
                      ))
                        assert.notInclude(answer, trace, what(tool))
                      if (tool === "get_rating" || holds(caller, "domains") || identifier === record.id)
                        assert.include(answer, `no rating found for ${type} ${identifier}`, what(tool))
                    }
                }
              }
            })
          ),
        { timeout: 120_000 }
      )

    it.effect(
      "a repeated coverage request does not return another person's receipt over MCP: request_coverage answers a repeat as it answers a new request, with only what its caller sent",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const run = crypto.randomUUID().slice(0, 8)
          const victim = `victim.${run}@example.com`
          const first = yield* post({
            protocol_name: `Obscure Protocol ${run}`,
            contact_email: victim,
            request_type: "correction",
            entity_type: "oracle"
          })
          assert.strictEqual(first.status, 201, first.text)
          const mcp = yield* mcpSession(server.baseUrl, undefined)
          const ask = (entity_name: string) =>
            mcp.call("request_coverage", {
              entity_name,
              entity_type: "protocol",
              contact_email: `victim.${run}@EXAMPLE.com`,
              note: "a guess"
            })
          const repeat = yield* ask(`obscure  PROTOCOL ${run}`)
          const fresh = yield* ask(`obscure  PROTOCOL ${run}-new`)
          assert.isFalse(repeat.isError, repeat.text)
          // The receipt and the attribution every answer carries, nothing more.
          const { attribution: _, ...structured } = repeat.structured as Json
          assert.deepStrictEqual(Object.keys(structured).sort(), ReceiptKeys)
          assert.deepStrictEqual(
            Object.keys(fresh.structured as Json).sort(),
            [...ReceiptKeys, "attribution"].sort()
          )
          assert.deepStrictEqual(
            { ...structured, id: "", created_at: "" },
            {
              id: "",
              protocol_name: `obscure  PROTOCOL ${run}`,
              entity_type: "protocol",
              contact_email: `victim.${run}@EXAMPLE.com`,
              request_type: "rating-request",
              status: "open",
              created_at: ""
            }
          )
          const masked = (r: { readonly text: string; readonly structured: unknown }) => {
            const receipt = r.structured as Json
            return r.text
              .replace(receipt.id, "<id>")
              .replace(receipt.created_at, "<time>")
              .replace(receipt.protocol_name, "<name>")
          }
          assert.strictEqual(masked(repeat), masked(fresh), "one wording, new or repeat")
          for (const secret of [
            json(first).id,
            json(first).created_at,
            victim,
            "Obscure Protocol",
            "correction",
            "oracle"
          ])
            assert.notInclude(JSON.stringify(repeat), secret)
          assert.notInclude(repeat.text, "already open")
        }).pipe(Effect.scoped)
    )
  })
})
