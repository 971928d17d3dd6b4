/**
 * The MCP tools (ToolHandlers.ts) given string arguments a caller may
 * send and a URL or a UTF-16 string cannot hold as they are: dot segments
 * (`.`, `..`), characters a URL gives a meaning to (`/`, `%`, `?`, `#`), lone
 * surrogates, NUL and very long strings. Each tool answers as it answers any
 * other argument (what it found, "no rating found", or what is wrong with the
 * argument), never "the tool failed unexpectedly", and nothing is logged at
 * Error for a caller's bad input.
 */
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Formatter, Logger } from "effect"
import { Seed } from "@ratings/adapters-http/test/fixtures"
import { TestServer } from "@ratings/adapters-http/test/TestServer"
import { mcpSession } from "./McpSession.ts"
import { McpTestServer } from "./McpTestServer.ts"

/** What the server logged at Error or above. */
const logged: Array<string> = []
const errorLog = Logger.make(({ logLevel, message, cause }) => {
  if (logLevel === "Error" || logLevel === "Fatal")
    logged.push(`${logLevel}: ${Formatter.format(message)} ${Cause.pretty(cause)}`)
})

const Awkward = [
  ".",
  "..",
  "/",
  "%",
  "?",
  "#",
  "\ud800",
  "a\udfffb",
  "\udc00\ud800",
  "nul\u0000",
  "%2e%2e",
  "a/../b",
  "x".repeat(64)
]

/** Every tool's string arguments, each given `value` (cut to the argument's bound). */
const callsWith = (value: string): ReadonlyArray<readonly [string, Record<string, unknown>]> => {
  const upTo = (n: number) => value.slice(0, n)
  return [
    ["get_rating", { entity_type: "protocol", slug: value }],
    ["get_rating", { entity_type: "chain", id: upTo(64) }],
    ["get_rating_breakdown", { entity_type: "protocol", slug: value }],
    ["get_rating_breakdown", { entity_type: "token", id: upTo(64) }],
    ["get_rating", { entity_type: "vault", identifier: value }],
    ["get_rating", { identifier: value }],
    ["get_rating_breakdown", { entity_type: "bridge", identifier: value }],
    ["get_recent_incidents", { slug: value }],
    ["quantum_readiness", { chain: upTo(100) }],
    ["list_ratings", { chain: upTo(100) }],
    ["list_ratings", { category: upTo(100) }],
    ["search_ratings", { query: upTo(100) }],
    ["search_ratings", { query: upTo(100), entity_type: "organisation" }],
    ["get_recent_incidents", { since: upTo(64) }],
    ["request_coverage", { entity_name: value, entity_type: "protocol", contact_email: "agent@example.com" }],
    ["request_coverage", { entity_name: "X", entity_type: "protocol", contact_email: value }],
    [
      "request_coverage",
      { entity_name: "X", entity_type: "vault", contact_email: "agent@example.com", note: value }
    ]
  ]
}

layer(McpTestServer.layerMemory(Seed, { logger: errorLog }), { excludeTestServices: true })(
  "mcp tools",
  (it) => {
    it.effect(
      "tool arguments crash tools no more: get_rating with slug `..`, `.` or a lone surrogate and quantum_readiness with chain `..` get the tool's ordinary answer (no rating found, or what is wrong with the argument), as every tool's string arguments do, and nothing logs at ERROR",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const mcp = yield* mcpSession(server.baseUrl, server.bearerFor("enterprise"))
          logged.splice(0)

          for (const slug of [".", ".."]) {
            const answer = yield* mcp.call("get_rating", { entity_type: "protocol", slug })
            assert.isFalse(answer.isError, slug)
            assert.strictEqual(answer.text, `no rating found for protocol ${slug}`)
            assert.deepStrictEqual(answer.structured, {
              found: false,
              entity_type: "protocol",
              identifier: slug
            })
          }
          const surrogate = yield* mcp.call("get_rating", { entity_type: "protocol", slug: "a\ud800" })
          assert.isTrue(surrogate.isError)
          assert.strictEqual(
            surrogate.text,
            "invalid arguments: slug: must be well-formed Unicode text: it holds a lone surrogate (U+D800 at character 2), half of a UTF-16 pair"
          )
          const chain = yield* mcp.call("quantum_readiness", { chain: ".." })
          assert.isTrue(chain.isError)
          assert.strictEqual(
            chain.text,
            'invalid arguments: chain: ".." is not a chain slug (a slug is lower-case letters, digits and hyphens)'
          )

          for (const value of Awkward)
            for (const [tool, args] of callsWith(value)) {
              const answer = yield* mcp.call(tool, args)
              const what = `${tool} ${JSON.stringify(args)}: ${answer.text.slice(0, 200)}`
              assert.notInclude(answer.text, "failed unexpectedly", what)
              assert.isAbove(answer.text.length, 0, what)
              if (!value.isWellFormed()) {
                assert.isTrue(answer.isError, what)
                assert.match(answer.text, /^invalid arguments: .*must be well-formed Unicode text/, what)
              }
            }
          assert.deepStrictEqual(logged, [], "nothing was logged at Error")
        }).pipe(Effect.scoped),
      { timeout: 60_000 }
    )
  }
)
