/**
 * `ratings mcp` (the stdio MCP server) as an agent host meets it when
 * something is off: an API that does not answer is named by the URL tried in
 * each tool's answer, a RATINGS_API_URL it cannot use stops it at start with
 * one line on stderr naming the variable and the problem, and its serverInfo
 * follows the operator's branding (RATINGS_SERVICE_NAME). No API server is
 * started: nothing listens at the URL these processes are given.
 */
import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect, type Scope } from "effect"
import { spawnCli } from "./CliHarness.ts"
import { callTool, session } from "./McpHarness.ts"

const run = <A>(effect: Effect.Effect<A, unknown, Scope.Scope>) => Effect.runPromise(Effect.scoped(effect))

/** An origin nothing listens at: a port found free and left unbound. */
const deadOrigin = Effect.map(freePort, (port) => `http://127.0.0.1:${port}`)

describe("ratings mcp when the API does not answer", () => {
  it(
    "each tool's answer names the URL it tried and why it got no answer, never a bare 'fetch failed'",
    () =>
      run(
        Effect.gen(function* () {
          const origin = yield* deadOrigin
          const client = yield* session("stdio", { origin })
          const tools = yield* client.listTools()
          const methodology = yield* callTool(client, tools, "get_methodology")
          assert.isTrue(methodology.isError)
          assert.match(
            methodology.text,
            new RegExp(
              `^the ratings API could not be reached at ${origin}/api/v1/methodology \\(fetch failed: .*ECONNREFUSED.*\\); ` +
                "check the API URL \\(RATINGS_API_URL for `ratings mcp`\\)"
            ),
            methodology.text
          )
          assert.deepStrictEqual(methodology.structured, {
            unreachable: true,
            url: `${origin}/api/v1/methodology`
          })
          const rating = yield* callTool(client, tools, "get_rating", {
            entity_type: "protocol",
            identifier: "aave-v4"
          })
          assert.isTrue(rating.isError)
          assert.include(rating.text, `could not be reached at ${origin}/api/v1/protocols/aave-v4 (`)
        })
      ),
    60_000
  )
})

describe("ratings mcp configuration at start", () => {
  it("an invalid RATINGS_API_URL is refused with one line on stderr naming the variable and what is wrong, a non-zero exit and nothing on stdout", async () => {
    const cases = [
      ["ftp://example.org/api/v1", "must be an http or https URL"],
      ["not a url", "Expected a valid URL string"],
      [
        "http://127.0.0.1:1/v2",
        "must be the API's base URL ending in /api/v1, such as http://localhost:8080/api/v1 (no query, fragment or credentials)"
      ],
      ["http://user:secret@127.0.0.1:1/api/v1", "must be the API's base URL ending in /api/v1"]
    ] as const
    for (const [url, problem] of cases) {
      const result = await spawnCli(["mcp"], { RATINGS_API_URL: url })
      assert.notStrictEqual(result.code, 0, url)
      assert.strictEqual(result.stdout, "", url)
      const lines = result.stderr.trim().split("\n")
      assert.lengthOf(lines, 1, result.stderr)
      assert.match(lines[0]!, /^ratings mcp: invalid setting RATINGS_API_URL: /, url)
      assert.include(lines[0]!, problem, url)
      assert.include(lines[0]!, "the MCP server was not started", url)
      assert.notInclude(result.stderr, "secret", "the URL's password is not echoed")
    }
  }, 60_000)

  it("an invalid RATINGS_SERVICE_NAME is refused at start the same way", async () => {
    const result = await spawnCli(["mcp"], { RATINGS_SERVICE_NAME: "Risk\u0007Desk" })
    assert.notStrictEqual(result.code, 0)
    assert.strictEqual(result.stdout, "")
    assert.match(
      result.stderr.trim(),
      /^ratings mcp: invalid setting RATINGS_SERVICE_NAME: must be printable ASCII/
    )
  }, 60_000)
})

describe("ratings mcp serverInfo", () => {
  it(
    "names the service by default, and follows the operator's branding: RATINGS_SERVICE_NAME and RATINGS_SITE_URL",
    () =>
      run(
        Effect.gen(function* () {
          const origin = yield* deadOrigin
          const plain = yield* session("stdio", { origin })
          assert.strictEqual(plain.serverInfo?.name, "defi-risk-ratings")
          const branded = yield* session("stdio", {
            origin,
            env: { RATINGS_SERVICE_NAME: "Acme Risk Desk", RATINGS_SITE_URL: "https://risk.acme.example" }
          })
          assert.strictEqual(branded.serverInfo?.name, "acme-risk-desk")
          assert.strictEqual(branded.serverInfo?.websiteUrl, "https://risk.acme.example")
          assert.include(branded.serverInfo?.description ?? "", "Acme Risk Desk")
        })
      ),
    60_000
  )
})
