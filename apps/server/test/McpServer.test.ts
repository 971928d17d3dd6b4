/**
 * The MCP server for AI agents (issue 17 point 4, and point 5 for its tools)
 * end to end, as an agent host uses it: a `ratings serve` process with the
 * demo data, and an MCP client (Effect's McpClient) that lists the tools and
 * calls each one over stdio (the real `ratings mcp` process, given the API's
 * URL and a key) and over streamable HTTP (the server's /mcp, given the
 * caller's Authorization), as an anonymous caller and with a Free, Pro and
 * Enterprise key from `ratings keys create`. Every answer is compared with
 * what the API itself serves the same caller.
 *
 * The server trusts one proxy hop (TRUST_PROXY=true), so that tests of the
 * anonymous allowance can call as distinct client addresses (X-Forwarded-For).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ProductionMcpSessionLimits } from "@ratings/adapters-http/server/limits/RateLimit"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import { McpClient, McpProtocol } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { cliEnv, exited, runCli, scratchDatabase, spawnCli, startCli, waitForOutput } from "./CliHarness.ts"
import { callTool, session, type Transport } from "./McpHarness.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
type Json = any

/** The tools of the live service's agent server (api-facts), which agents' prompts name. */
const LiveToolNames = [
  "list_ratings",
  "search_ratings",
  "get_rating",
  "get_rating_breakdown",
  "get_recent_incidents",
  "get_methodology",
  "quantum_readiness",
  "request_coverage"
]

const Tiers = ["anonymous", "free", "pro", "enterprise"] as const
type Caller = (typeof Tiers)[number]

/** A server of the README's agent-host configurations (section "AI agents (MCP)"), the one with `field`. */
const readmeServer = (field: "command" | "url"): Json => {
  const readme = readFileSync(join(import.meta.dirname, "..", "..", "..", "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### AI agents (MCP)"))
  const root = join(import.meta.dirname, "..", "..", "..")
  for (const [, block] of section.matchAll(/```json\n([\s\S]*?)```/g)) {
    const server: Json = Object.values(
      JSON.parse(block!.replaceAll("/path/to/ratings-service", root)).mcpServers
    )[0]
    if (field in server) return server
  }
  throw new Error(`no configuration with ${field} in the README`)
}

let db: { readonly url: string; readonly drop: () => Promise<void> }
let server: ChildProcess
let origin: string
let serverOutput = ""
const keys: Partial<Record<Caller, string>> = {}

/** Coverage requests one address may send an hour on the test server (every tier's run sends two from 127.0.0.1). */
const ContactsPerAddress = 20

/** The address an anonymous HTTP caller of a test calls from (TRUST_PROXY=true reads it). */
const AnonymousHttpAddress = "198.51.100.7"

beforeAll(async () => {
  db = await scratchDatabase()
  const imported = await runCli(["import", DemoDataDir], { DATABASE_URL: db.url })
  assert.strictEqual(imported.code, 0, imported.stderr)
  for (const tier of ["free", "pro", "enterprise"] as const) {
    const created = await runCli(["keys", "create", "--tier", tier, "--name", `mcp ${tier}`], {
      DATABASE_URL: db.url
    })
    assert.strictEqual(created.code, 0, created.stderr)
    keys[tier] = created.stdout.trim()
  }
  const port = await Effect.runPromise(freePort)
  origin = `http://127.0.0.1:${port}`
  server = startCli(["serve"], {
    PORT: String(port),
    DATABASE_URL: db.url,
    TRUST_PROXY: "true",
    RATINGS_CONTACTS_LIMIT: String(ContactsPerAddress)
  })
  server.stdout?.on("data", (d) => (serverOutput += d))
  await waitForOutput(server, /Listening on/, 60_000)
}, 120_000)

afterAll(async () => {
  server?.kill("SIGTERM")
  if (server !== undefined) await exited(server)
  await db?.drop()
})

/** The API's own answer to the same caller (the anonymous HTTP caller's address included). */
const api = async (
  path: string,
  caller: Caller,
  forwardedFor?: string
): Promise<{ status: number; json: Json; headers: Headers }> => {
  const headers: Record<string, string> = {}
  const key = keys[caller]
  if (key !== undefined) headers.authorization = `Bearer ${key}`
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor
  const response = await fetch(`${origin}/api/v1${path}`, { headers })
  return { status: response.status, json: await response.json(), headers: response.headers }
}

const run = <A>(effect: Effect.Effect<A, unknown, import("effect").Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(effect))

const sessionOf = (
  transport: Transport,
  caller: Caller,
  protocol?: McpProtocol.ProtocolAdapter<"2025-11-25" | "2026-07-28">
) =>
  session(transport, {
    origin,
    key: keys[caller],
    forwardedFor: transport === "http" && caller === "anonymous" ? AnonymousHttpAddress : undefined,
    protocol
  })

describe("MCP server: tools/list", () => {
  for (const [transport, protocol] of [
    ["stdio", McpProtocol.v2025_11_25],
    ["stdio", McpProtocol.v2026_07_28],
    ["http", McpProtocol.v2025_11_25],
    ["http", McpProtocol.v2026_07_28]
  ] as const) {
    it(
      `over ${transport} (${protocol.protocolVersion}) it lists the live service's tools, each with a description and an object input schema`,
      () =>
        run(
          Effect.gen(function* () {
            const client = yield* sessionOf(transport, "anonymous", protocol)
            const tools = yield* client.listTools()
            assert.deepStrictEqual(
              tools.map((t) => t.name),
              LiveToolNames
            )
            for (const tool of tools) {
              assert.isAbove((tool.description ?? "").length, 60, tool.name)
              assert.strictEqual(tool.inputSchema.type, "object", tool.name)
              assert.strictEqual(tool.annotations?.readOnlyHint, tool.name !== "request_coverage", tool.name)
            }
            // The live service's arguments (api-facts); our older slug and id are read, not advertised.
            const rating = tools.find((t) => t.name === "get_rating")!
            assert.deepStrictEqual(Object.keys(rating.inputSchema.properties as object), [
              "entity_type",
              "identifier"
            ])
            assert.deepStrictEqual(rating.inputSchema.required, ["identifier"])
            const incidents = tools.find((t) => t.name === "get_recent_incidents")!
            assert.deepStrictEqual(Object.keys(incidents.inputSchema.properties as object), [
              "since",
              "slug",
              "min_status",
              "limit"
            ])
            const coverage = tools.find((t) => t.name === "request_coverage")!
            assert.deepStrictEqual(Object.keys(coverage.inputSchema.properties as object), [
              "entity_name",
              "entity_type",
              "contact_email",
              "note"
            ])
            assert.deepStrictEqual(coverage.inputSchema.required, [
              "entity_name",
              "entity_type",
              "contact_email"
            ])
            assert.strictEqual(client.serverInfo?.name, "defi-risk-ratings")
          })
        ),
      60_000
    )
  }
})

/** Every tool, as `caller` over `transport`, against what the API serves that caller. */
const everyTool = (transport: Transport, caller: Caller) =>
  Effect.gen(function* () {
    const forwardedFor = transport === "http" && caller === "anonymous" ? AnonymousHttpAddress : undefined
    const fromApi = (path: string) => Effect.promise(() => api(path, caller, forwardedFor))
    const client = yield* sessionOf(transport, caller)
    const tools = yield* client.listTools()
    const call = (name: string, args?: Record<string, unknown>) => callTool(client, tools, name, args)
    const attributed = caller === "anonymous" || caller === "free"

    // get_rating: the grade, composite, intrinsic pair and drag hint the scorecard list serves.
    const cards = yield* fromApi("/protocols/aave-v3/scorecards")
    const card = cards.json.items.find((c: Json) => c.status === "published")
    const rating = yield* call("get_rating", { entity_type: "protocol", slug: "aave-v3" })
    assert.isFalse(rating.isError)
    assert.include(rating.text, `Grade: ${card.letter_grade}, composite ${card.composite_score}/100`)
    assert.include(
      rating.text,
      `Intrinsic (before dependency drag): ${card.intrinsic_letter_grade}, composite ${card.intrinsic_composite_score}/100`
    )
    assert.include(rating.text, `Largest dependency drag: ${card.largest_drag_hint}`)
    assert.strictEqual(rating.structured.grade, card.letter_grade)
    assert.strictEqual(rating.structured.composite_score, card.composite_score)
    assert.strictEqual(rating.structured.intrinsic_composite_score, card.intrinsic_composite_score)
    const attribution = cards.headers.get("x-attribution")
    if (attributed) {
      assert.isString(attribution, "the API attributes anonymous and Free answers")
      assert.isTrue(rating.text.endsWith(attribution!), "so does the tool")
      assert.strictEqual(rating.structured.attribution, attribution)
    } else {
      assert.isNull(attribution)
      assert.notInclude(rating.text, "Data source:")
    }
    // By id, the same rating; and under the live service's argument name, by slug or id, typed or not.
    const byId = yield* call("get_rating", { entity_type: "protocol", id: rating.structured.id })
    assert.strictEqual(byId.text, rating.text)
    for (const identifier of ["aave-v3", rating.structured.id]) {
      const live = yield* call("get_rating", { entity_type: "protocol", identifier })
      assert.strictEqual(live.text, rating.text, identifier)
      const untyped = yield* call("get_rating", { identifier })
      assert.strictEqual(untyped.text, rating.text, identifier)
    }
    // 404: a plain answer, not an error.
    const missing = yield* call("get_rating", { entity_type: "protocol", slug: "no-such-protocol" })
    assert.isFalse(missing.isError)
    assert.isTrue(missing.text.startsWith("no rating found for protocol no-such-protocol"), missing.text)

    // get_rating_breakdown: Pro and above get the domain scores; below, which tier and how to get a key.
    const breakdown = yield* call("get_rating_breakdown", { entity_type: "protocol", slug: "aave-v3" })
    assert.isFalse(breakdown.isError, breakdown.text)
    if (caller === "pro" || caller === "enterprise") {
      const domains = yield* fromApi("/protocols/aave-v3/domains")
      assert.strictEqual(domains.status, 200)
      assert.deepStrictEqual(breakdown.structured.domain_scores, domains.json.domain_scores)
      for (const [domain, value] of Object.entries(domains.json.domain_scores))
        assert.include(breakdown.text, `- ${domain}: ${value}`)
    } else {
      assert.include(breakdown.text, "needs a Pro or higher API key")
      assert.include(
        breakdown.text,
        caller === "anonymous" ? "this call was made without a key" : "the key used is a Free key"
      )
      assert.include(breakdown.text, "ratings keys create")
      assert.notInclude(breakdown.text, "security:")
      assert.strictEqual(breakdown.structured.needs_tier, "pro")
    }

    // list_ratings and search_ratings: the API's entities, each with its grade.
    const listed = yield* call("list_ratings", { entity_type: "protocol", category: "lending", limit: 3 })
    const page = yield* fromApi("/protocols?category=lending&limit=3")
    assert.deepStrictEqual(
      listed.structured.items.map((i: Json) => i.slug),
      page.json.items.map((i: Json) => i.slug)
    )
    assert.strictEqual(listed.structured.total, page.json.total)
    assert.match(listed.text, new RegExp(`^${page.json.total} protocols \\(category lending\\)`))
    const found = yield* call("search_ratings", { query: "aave", entity_type: "protocol", limit: 3 })
    assert.include(
      found.text,
      `(protocol aave-v3): ${card.letter_grade}, composite ${card.composite_score}/100`
    )

    // get_recent_incidents: the feed as the API serves it; a bad `since` says what was wrong.
    const feed = yield* fromApi("/incidents?min_status=rumored&limit=5")
    const incidents = yield* call("get_recent_incidents", { min_status: "rumored", limit: 5 })
    assert.strictEqual(incidents.structured.total, feed.json.total)
    assert.deepStrictEqual(
      incidents.structured.items.map((i: Json) => i.incident_id),
      feed.json.items.map((i: Json) => i.incident_id)
    )
    for (const i of feed.json.items) assert.include(incidents.text, `[${i.status}] ${i.protocol_name}`)
    const badSince = yield* call("get_recent_incidents", { since: "yesterday" })
    assert.isTrue(badSince.isError)
    assert.include(badSince.text, "invalid request: since: Input should be a valid datetime")

    // get_methodology: the methodology as served.
    const methodology = yield* fromApi("/methodology")
    const method = yield* call("get_methodology")
    assert.isTrue(method.text.startsWith(`${methodology.json.name}, version ${methodology.json.version}`))
    for (const band of methodology.json.grade_scale)
      assert.include(method.text, `- ${band.grade}: ${band.min_score} or more`)

    // quantum_readiness: a reading without qri, band or stage is "not assessed", never "null".
    const league = yield* fromApi("/quantum-readiness")
    const table = yield* call("quantum_readiness")
    const unassessed = league.json.rows.filter(
      (r: Json) => r.qri === null || r.band === null || r.stage === null
    )
    assert.isAbove(unassessed.length, 0, "the demo sample holds a chain the source has not assessed")
    for (const row of unassessed) assert.include(table.text, `- ${row.name} (${row.slug}): not assessed`)
    assert.notInclude(table.text, "null")
    assert.notInclude(JSON.stringify(table.structured), "null")
    assert.strictEqual(table.structured.rows.length, league.json.rows.length)
    const ethereum = yield* call("quantum_readiness", { chain: "ethereum" })
    const reading = (yield* fromApi("/chains/ethereum/quantum-readiness")).json
    assert.include(ethereum.text, `QRI ${reading.qri}, band ${reading.band}`)
    const unknown = yield* call("quantum_readiness", { chain: "no-such-chain" })
    assert.include(unknown.text, "Quantum readiness of no-such-chain: not assessed")
    assert.notInclude(unknown.text, "null")

    // request_coverage: POST /contacts as this caller; the same request again is answered a receipt of its own.
    const asked = {
      entity_name: `Rated Nowhere ${transport} ${caller}`,
      entity_type: "protocol",
      contact_email: `${caller}@agents.example`,
      note: "Seen in an agent's answer"
    }
    const created = yield* call("request_coverage", asked)
    assert.isFalse(created.isError, created.text)
    assert.strictEqual(created.structured.status, "open")
    assert.strictEqual(created.structured.protocol_name, asked.entity_name)
    assert.strictEqual(created.structured.entity_type, "protocol")
    assert.include(
      created.text,
      `Coverage request received: rate ${asked.entity_name} (protocol). Reference ${created.structured.id}, status open`
    )
    const upper = asked.entity_name.toUpperCase()
    const again = yield* call("request_coverage", { ...asked, entity_name: upper })
    assert.isFalse(again.isError, again.text)
    assert.notStrictEqual(again.structured.id, created.structured.id)
    assert.include(
      again.text,
      `Coverage request received: rate ${upper} (protocol). Reference ${again.structured.id}, status open`
    )
    const queue = yield* Effect.promise(() =>
      runCli(["contacts", "list", "--json"], { DATABASE_URL: db.url })
    )
    const stored = (JSON.parse(queue.stdout) as Array<Json>).filter((r) => r.id === created.structured.id)
    assert.strictEqual(stored.length, 1, "stored once")
    assert.deepStrictEqual(stored[0].receipt_ids, [created.structured.id, again.structured.id])
    assert.strictEqual(stored[0].message, asked.note)
    assert.strictEqual(stored[0].request_type, "rating-request")
    const badEmail = yield* call("request_coverage", { ...asked, contact_email: "agent-at-example" })
    assert.isTrue(badEmail.isError)
    assert.include(badEmail.text, "invalid arguments: contact_email: value is not a valid email address")
    const badType = yield* call("get_rating", { entity_type: "planet", slug: "aave-v3" })
    assert.isTrue(badType.isError)
    assert.isTrue(
      badType.text.startsWith('invalid arguments: entity_type: Expected "protocol"'),
      badType.text
    )
  })

describe("MCP server: every tool at every tier", () => {
  for (const caller of Tiers)
    for (const transport of ["stdio", "http"] as const)
      it(
        `as ${caller === "anonymous" ? "an anonymous caller" : `${caller === "enterprise" ? "an" : "a"} ${caller} key`} over ${transport}, every tool answers what the API serves that caller`,
        () => run(everyTool(transport, caller)),
        90_000
      )

  it(
    "search_ratings searches all seven types when no type is given",
    () =>
      run(
        Effect.gen(function* () {
          const client = yield* sessionOf("http", "pro")
          const tools = yield* client.listTools()
          const found = yield* callTool(client, tools, "search_ratings", { query: "chainlink", limit: 25 })
          const types = new Set(found.structured.items.map((i: Json) => i.entity_type))
          assert.isTrue(types.has("oracle"), found.text)
          for (const item of found.structured.items) {
            const plural = item.entity_type === "organisation" ? "organisations" : `${item.entity_type}s`
            const record = yield* Effect.promise(() => api(`/${plural}/${item.slug}`, "pro"))
            assert.strictEqual(record.status, 200, item.slug)
            assert.include(`${record.json.name} ${record.json.slug}`.toLowerCase(), "chainlink")
          }
        })
      ),
    60_000
  )

  it(
    "a key the API refuses is explained, with how to get one",
    () =>
      run(
        Effect.gen(function* () {
          const client = yield* session("stdio", { origin, key: "rk_not-a-key-the-service-issued" })
          const tools = yield* client.listTools()
          const reply = yield* callTool(client, tools, "get_methodology")
          assert.isTrue(reply.isError)
          assert.include(reply.text, "the API refused the credential sent (401)")
        })
      ),
    60_000
  )
})

describe("ratings mcp process", () => {
  it("the README's stdio configuration starts it; standard output carries JSON-RPC messages only (logs go to stderr), and the process exits 0 when the host closes stdin", async () => {
    const server = readmeServer("command")
    const child = spawn(server.command, server.args, {
      env: cliEnv({ ...server.env, RATINGS_API_URL: `${origin}/api/v1`, RATINGS_API_KEY: keys.pro }),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "host", version: "1" }
        }
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "get_rating", arguments: { entity_type: "protocol", slug: "aave-v3" } }
      },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "get_rating_breakdown", arguments: { entity_type: "protocol", slug: "aave-v3" } }
      }
    ]
    for (const m of messages) child.stdin.write(`${JSON.stringify(m)}\n`)
    // The host waits for its answers, then closes the server's stdin.
    const deadline = Date.now() + 30_000
    while (stdout.split("\n").filter((l) => l.trim() !== "").length < 4 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    child.stdin.end()
    assert.strictEqual(await exited(child), 0)
    const lines = stdout.split("\n").filter((l) => l.trim() !== "")
    assert.strictEqual(lines.length, 4, stdout)
    const answers = lines.map((l) => JSON.parse(l) as Json)
    for (const a of answers) assert.strictEqual(a.jsonrpc, "2.0")
    assert.deepStrictEqual(answers.map((a) => a.id).sort(), [1, 2, 3, 4])
    assert.include(answers.find((a) => a.id === 4).result.content[0].text, "Domain scores (0 to 1):")
  }, 60_000)

  it(
    "the README's HTTP configuration reaches /mcp with the key it names",
    () =>
      run(
        Effect.gen(function* () {
          const server = readmeServer("url")
          assert.strictEqual(server.type, "http")
          const url = new URL(server.url)
          assert.strictEqual(url.pathname, "/mcp")
          const authorization = server.headers.Authorization.replace("rk_your_key", keys.enterprise!)
          const transport = yield* McpClient.http({
            protocol: McpProtocol.v2025_11_25,
            url: `${origin}${url.pathname}`,
            headers: { Authorization: authorization }
          }).pipe(Effect.provide(FetchHttpClient.layer))
          const client = yield* McpClient.make({ name: "readme", version: "1" }).pipe(
            Effect.provideService(McpClient.Transport, transport)
          )
          const tools = yield* client.listTools()
          const breakdown = yield* callTool(client, tools, "get_rating_breakdown", {
            entity_type: "protocol",
            slug: "aave-v3"
          })
          assert.include(breakdown.text, "Domain scores (0 to 1):")
        })
      ),
    60_000
  )
})

describe("ratings mcp configuration", () => {
  it("a RATINGS_API_URL that is not the API's base stops it naming the variable, and nothing is written to stdout", async () => {
    for (const url of ["ftp://example.org/api/v1", "http://127.0.0.1:1/v2", "not a url"]) {
      const result = await spawnCli(["mcp"], { RATINGS_API_URL: url })
      assert.strictEqual(result.code, 1, url)
      assert.include(result.stderr, "RATINGS_API_URL", url)
      assert.strictEqual(result.stdout, "", url)
    }
  }, 60_000)
})

const InitializeParams = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "t", version: "1" }
}

describe("MCP server: rate limits and caching", () => {
  it("an address opens at most 60 MCP sessions an hour at /mcp (behind the trusted proxy, the forwarded address): past it, initialize is a 429 with Retry-After; another address opens its own", async () => {
    const initialize = async (forwardedFor: string) => {
      const response = await fetch(`${origin}/mcp`, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "x-forwarded-for": forwardedFor
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      })
      return { status: response.status, headers: response.headers, text: await response.text() }
    }
    for (let i = 0; i < ProductionMcpSessionLimits[0]!.limit; i++)
      assert.strictEqual((await initialize("198.51.100.160")).status, 200, `session ${i + 1}`)
    const refused = await initialize("198.51.100.160")
    assert.strictEqual(refused.status, 429)
    const retryAfter = Number(refused.headers.get("retry-after"))
    assert.isTrue(retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${retryAfter}`)
    assert.deepStrictEqual(JSON.parse(refused.text), {
      detail: { error: "rate_limited", retry_after: retryAfter }
    })
    assert.strictEqual(refused.headers.get("ratelimit-policy"), "60;w=3600")
    assert.strictEqual((await initialize("198.51.100.161")).status, 200)
  }, 60_000)

  it("refused /mcp requests do not use up the MCP-session allowance: 60 initializes a web page can send cross-site (Origin 403, text/plain 415) and 60 the transport refuses leave the address its whole allowance", async () => {
    const address = "198.51.100.170"
    const initialize = async (headers: Record<string, string>, params: unknown = InitializeParams) => {
      const response = await fetch(`${origin}/mcp`, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          "x-forwarded-for": address,
          ...headers
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params })
      })
      await response.text()
      return { status: response.status, session: response.headers.get("mcp-session-id") }
    }
    const limit = ProductionMcpSessionLimits[0]!.limit
    for (let i = 0; i < limit; i++) {
      assert.strictEqual((await initialize({ origin: "https://evil.example" })).status, 403)
      assert.strictEqual((await initialize({ "content-type": "text/plain" })).status, 415)
      const malformed = await initialize({}, { capabilities: {} })
      assert.isNull(malformed.session, "an initialize refused for its parameters opens no session")
    }
    const opened = await initialize({})
    assert.strictEqual(opened.status, 200)
    assert.isNotNull(opened.session)
  }, 60_000)

  it("/mcp is never answered by the lane of cache hits, and its answers are not cached", async () => {
    const post = () =>
      fetch(`${origin}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/list"
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {}
            }
          }
        })
      })
    for (let i = 0; i < 3; i++) {
      const response = await post()
      assert.strictEqual(response.status, 200)
      assert.isNull(response.headers.get("etag"))
      assert.notMatch(response.headers.get("cache-control") ?? "", /public|max-age=[1-9]/)
      await response.text()
      assert.strictEqual((await fetch(`${origin}/mcp`)).status, 405)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    const lines = serverOutput.split("\n").filter((l) => / \/mcp /.test(l))
    assert.isAtLeast(lines.length, 6, serverOutput.slice(-2000))
    for (const line of lines) assert.notMatch(line, / lane$/, line)
  }, 60_000)

  it(
    "request_coverage past the address's allowance of coverage requests is told when to retry; a receipt never shows another requester's data",
    () =>
      run(
        Effect.gen(function* () {
          const address = "198.51.100.60"
          const client = yield* session("http", { origin, forwardedFor: address })
          const tools = yield* client.listTools()
          const ask = (i: number) =>
            callTool(client, tools, "request_coverage", {
              entity_name: `Allowance Test ${i}`,
              entity_type: "chain",
              contact_email: "limits@agents.example"
            })
          for (let i = 0; i < ContactsPerAddress; i++) assert.isFalse((yield* ask(i)).isError, `request ${i}`)
          const refused = yield* ask(ContactsPerAddress)
          assert.isTrue(refused.isError)
          assert.match(refused.text, /^rate limited, retry after \d+ seconds$/)
          // Another requester asking for the same entity gets a receipt of their own, naming only them.
          const other = yield* session("http", { origin, forwardedFor: "198.51.100.61" })
          const receipt = yield* callTool(other, yield* other.listTools(), "request_coverage", {
            entity_name: "Allowance Test 0",
            entity_type: "chain",
            contact_email: "someone-else@agents.example"
          })
          assert.isFalse(receipt.isError, receipt.text)
          assert.strictEqual(receipt.structured.contact_email, "someone-else@agents.example")
          assert.notInclude(JSON.stringify(receipt), "limits@agents.example")
        })
      ),
    60_000
  )

  it("a caller whose allowance is used is told when to retry, over stdio and HTTP; another caller is not held back", async () => {
    // Use the anonymous allowance of 127.0.0.1 (120 a minute) on the API itself.
    let retryAfter: string | null = null
    for (let i = 0; i < 200 && retryAfter === null; i++) {
      const response = await fetch(`${origin}/api/v1/methodology`)
      await response.text()
      if (response.status === 429) retryAfter = response.headers.get("retry-after")
    }
    assert.isNotNull(retryAfter, "the anonymous allowance ran out")
    await run(
      Effect.gen(function* () {
        for (const transport of ["stdio", "http"] as const) {
          // Anonymous from 127.0.0.1 (no X-Forwarded-For): the tool's API calls are that caller's.
          const client = yield* session(transport, { origin })
          const tools = yield* client.listTools()
          const reply = yield* callTool(client, tools, "get_methodology")
          assert.isTrue(reply.isError, transport)
          const m = /^rate limited, retry after (\d+) seconds$/.exec(reply.text)
          assert.isNotNull(m, reply.text)
          assert.isAtLeast(Number(m![1]), 1)
          assert.isAtMost(Number(m![1]), 60)
          assert.strictEqual(reply.structured.retry_after, Number(m![1]))
        }
        // Another address, and a Pro key, call as themselves.
        for (const other of [
          session("http", { origin, forwardedFor: "198.51.100.99" }),
          session("http", { origin, key: keys.pro }),
          session("stdio", { origin, key: keys.pro })
        ]) {
          const client = yield* other
          const tools = yield* client.listTools()
          const reply = yield* callTool(client, tools, "get_methodology")
          assert.isFalse(reply.isError, reply.text)
        }
      })
    )
  }, 90_000)
})
