/**
 * Fuzzing the MCP endpoint /mcp (issue 17): it is JSON-RPC, not an operation
 * of the OpenAPI document, so it has generators and an oracle of its own.
 * Requests are drawn with fast-check from a fixed seed: bodies that are not
 * JSON, truncated, empty, deeply nested, batches, JSON-RPC messages with
 * every field wrong (version, id, method, params), and well-formed tool calls
 * with wild arguments, in both kinds of MCP session (the sessionless
 * 2026-07-28 revision, and real sessions opened before the run), with wrong,
 * missing and mismatched headers (content type, accept, protocol version,
 * method and name routing headers, session id, origin, credentials).
 *
 * The oracle: an answer always comes, never a 5xx, never a JSON-RPC internal
 * error (-32603), and a tool call never ends in the tools' own "failed
 * unexpectedly" answer: bad input is the caller's fault, and says so; the
 * headers as for every answer (ResponseOracle.ts `headerProblems`).
 */
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { RatingsToolkit, type RatingsToolName } from "../../src/mcp/RatingsTools.ts"
import { Effect } from "effect"
import * as fc from "fast-check"
import { headerProblems } from "./ResponseOracle.ts"
import { type RawRequest, type RawResponse, Transport } from "./Transport.ts"

/** The server's own tool names (the toolkit the server registers), so the fuzz follows the tool list. */
const ToolNames = Object.keys(RatingsToolkit.tools) as ReadonlyArray<RatingsToolName>

const Methods = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "logging/setLevel",
  "completion/complete",
  "server/discover",
  "subscriptions/listen",
  "notifications/initialized",
  "notifications/cancelled",
  "tools/nonsense"
] as const

const Versions = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

export interface McpHints {
  /** Slugs and ids of fixture entities, so that some calls reach real records. */
  readonly identifiers: ReadonlyArray<string>
  /** Authorization values of the fixture callers. */
  readonly authorizations: ReadonlyArray<string>
}

const wild = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(""),
  fc.constant("x".repeat(5_000)),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 })
)

/** Mostly absent; present one time in `odds` + 1. */
const rarely = <A>(arb: fc.Arbitrary<A>, odds = 6) =>
  fc.oneof({ weight: odds, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb })

/** Arguments of a tool: mostly of the right names, with values right, nearly right or wild. */
const toolArguments = (hints: McpHints) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          entity_type: fc.oneof(fc.constantFrom(...EntityTypes), fc.constantFrom("Protocol", "planet"), wild),
          slug: fc.oneof(
            fc.constantFrom(...hints.identifiers),
            fc.constantFrom("no-such-thing", "Aave V3"),
            wild
          ),
          id: fc.oneof(fc.uuid(), fc.constantFrom(...hints.identifiers), wild),
          query: fc.oneof(fc.constantFrom("alpha", "a", "%", "\u0000", " "), wild),
          limit: fc.oneof(fc.integer({ min: -5, max: 300 }), fc.double(), wild),
          category: fc.oneof(fc.constantFrom("lending", "DEX", ""), wild),
          chain: fc.oneof(fc.constantFrom("ethereum", "arbitrum", "no-such-chain"), wild),
          since: fc.oneof(
            fc.constantFrom(
              "2026-01-01T00:00:00Z",
              "2026-01-01T00:00:00+00:00",
              "2026-01-01T00:00:00 00:00",
              "yesterday",
              "9999-99-99T99:99:99Z"
            ),
            wild
          ),
          min_status: fc.oneof(fc.constantFrom("rumored", "corroborated", "confirmed", "CONFIRMED"), wild),
          entity_name: fc.oneof(fc.constantFrom("Aave V4", " ", "a\u202Eb", "x".repeat(201)), wild),
          contact_email: fc.oneof(
            fc.constantFrom("agent@example.com", "a@b", "@example.com", "a@@b.com"),
            wild
          ),
          note: fc.oneof(fc.constantFrom("please rate it", "line\nbreak", "nul\u0000"), wild)
        },
        { requiredKeys: [] }
      )
    },
    { weight: 1, arbitrary: fc.oneof(wild, fc.anything()) }
  )

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** A JSON-RPC message with any of its parts wrong. */
const message = (hints: McpHints) =>
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("2.0"), fc.constantFrom("1.0", 2, null)),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.double(), wild),
      method: fc.oneof(fc.constantFrom(...Methods), wild),
      params: fc.oneof(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom(...ToolNames), wild),
            arguments: toolArguments(hints),
            _meta: fc.oneof(fc.constant(modernMeta), wild),
            protocolVersion: fc.oneof(fc.constantFrom(...Versions), wild),
            capabilities: fc.oneof(fc.constant({}), wild),
            clientInfo: fc.oneof(fc.constant({ name: "fuzz", version: "1" }), wild)
          },
          { requiredKeys: [] }
        ),
        wild
      )
    },
    { requiredKeys: [] }
  )

/** A well-formed tool call of the sessionless revision, with wild arguments: it reaches the tools. */
const modernToolCall = (hints: McpHints) =>
  fc
    .tuple(fc.constantFrom(...ToolNames), toolArguments(hints), fc.integer({ min: 1 }))
    .map(([name, args, id]) => ({
      headers: { "mcp-method": "tools/call", "mcp-name": name, "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args, _meta: modernMeta }
      })
    }))

/** The same in an open session of an earlier revision. */
const sessionToolCall = (hints: McpHints, sessions: ReadonlyArray<Session>) =>
  fc
    .tuple(
      fc.constantFrom(...sessions),
      fc.constantFrom(...ToolNames),
      toolArguments(hints),
      fc.integer({ min: 1 })
    )
    .map(([session, name, args, id]) => ({
      headers: { "mcp-session-id": session.id, "mcp-protocol-version": session.version },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })
    }))

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

const brokenBody = (hints: McpHints) =>
  fc.oneof(
    fc.string(),
    fc.constantFrom("", "null", "[]", "{}", "{", '{"jsonrpc":"2.0"', "1e400", '{"id":1e400}', nested(5_000)),
    message(hints).map((m) => JSON.stringify(m).slice(0, 20)),
    fc.array(message(hints), { minLength: 0, maxLength: 4 }).map((ms) => JSON.stringify(ms))
  )

export interface Session {
  readonly id: string
  readonly version: string
}

interface Draft {
  readonly headers: Record<string, string>
  readonly body: string
}

const request = (hints: McpHints, sessions: ReadonlyArray<Session>): fc.Arbitrary<RawRequest> =>
  fc
    .tuple(
      fc.oneof(
        {
          weight: 4,
          arbitrary: message(hints).map((m): Draft => ({ headers: {}, body: JSON.stringify(m) }))
        },
        { weight: 3, arbitrary: modernToolCall(hints) },
        { weight: 3, arbitrary: sessionToolCall(hints, sessions) },
        { weight: 2, arbitrary: brokenBody(hints).map((body): Draft => ({ headers: {}, body })) }
      ),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant("POST") },
        { weight: 1, arbitrary: fc.constantFrom("GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD") }
      ),
      fc.record({
        "content-type": fc.oneof(
          { weight: 8, arbitrary: fc.constant("application/json") },
          {
            weight: 1,
            arbitrary: fc.constantFrom("text/plain", "application/json; charset=utf-8", "", "a/b/c")
          }
        ),
        accept: fc.oneof(
          { weight: 8, arbitrary: fc.constant("application/json, text/event-stream") },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              "application/json",
              "*/*",
              "application/json;q=0, text/event-stream",
              ""
            )
          }
        ),
        authorization: fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(...hints.authorizations),
          fc.constantFrom("Bearer rk_nope", "Basic x")
        ),
        "mcp-protocol-version": rarely(
          fc.oneof(fc.constantFrom(...Versions), fc.constantFrom("1999-01-01", ""))
        ),
        "mcp-session-id": rarely(fc.oneof(fc.uuid(), fc.constantFrom("", "not-a-session"))),
        "mcp-method": rarely(fc.oneof(fc.constantFrom(...Methods), fc.string({ maxLength: 10 }))),
        origin: rarely(fc.constantFrom("https://evil.example", "null"), 20)
      }),
      fc.boolean()
    )
    .map(([draft, method, extra, keepDraftHeaders]) => {
      // The draft's routing headers usually win (well-formed calls stay well-formed); sometimes the noise does.
      const headers = keepDraftHeaders ? { ...extra, ...draft.headers } : { ...draft.headers, ...extra }
      const clean: Record<string, string> = {}
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v
      return {
        method,
        target: "/mcp",
        headers: clean,
        body: method === "GET" || method === "HEAD" ? undefined : draft.body
      }
    })

/** The JSON-RPC messages of an answer (a JSON body, or the data lines of an event stream). */
const messagesOf = (r: Extract<RawResponse, { _tag: "Response" }>): ReadonlyArray<unknown> => {
  const texts = (r.contentType ?? "").startsWith("text/event-stream")
    ? r.text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
    : (r.contentType ?? "").startsWith("application/json") && r.text !== ""
      ? [r.text]
      : []
  return texts.flatMap((t) => {
    try {
      const parsed: unknown = JSON.parse(t)
      return Array.isArray(parsed) ? parsed : [parsed]
    } catch {
      return [{ unparsable: t }]
    }
  })
}

/** What is wrong with an answer, if anything. */
export const problemsOf = (r: RawResponse): ReadonlyArray<string> => {
  if (r._tag === "TransportError") return [`no answer: ${r.message}`]
  const problems: Array<string> = [...headerProblems(r)]
  if (r.status >= 500) problems.push(`status ${r.status}`)
  for (const m of messagesOf(r)) {
    const text = JSON.stringify(m)
    if (text.includes("unparsable")) problems.push("a message that is not JSON")
    if (/"code":-32603/.test(text)) problems.push("a JSON-RPC internal error")
    if (text.includes("the tool failed unexpectedly")) problems.push("a tool failed unexpectedly")
  }
  return problems
}

/** Opens sessions of the earlier revisions (initialize, then initialized), for tool calls inside them. */
const openSessions = (baseUrl: string, authorization: string | undefined) =>
  Effect.forEach(
    Versions.filter((v) => v !== "2026-07-28"),
    (version) =>
      Effect.promise(async (): Promise<Session> => {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization })
        }
        const init = await fetch(`${baseUrl}/mcp`, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } }
          })
        })
        await init.text()
        const id = init.headers.get("mcp-session-id")
        if (id === null) throw new Error(`initialize ${version} opened no session (${init.status})`)
        const sessionHeaders = { ...headers, "mcp-session-id": id, "mcp-protocol-version": version }
        const initialized = await fetch(`${baseUrl}/mcp`, {
          method: "POST",
          headers: sessionHeaders,
          body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
        })
        await initialized.text()
        return { id, version }
      })
  )

export interface McpFuzzReport {
  readonly requests: number
  readonly statuses: ReadonlyMap<number, number>
  /** Tool calls that reached a tool and got its answer (a result with content). */
  readonly toolAnswers: number
  readonly violations: ReadonlyArray<string>
}

/** Sends `total` generated requests to /mcp, `concurrency` at once, and holds each answer to the oracle. */
export const fuzzMcp = (
  baseUrl: string,
  hints: McpHints,
  options: { readonly seed: number; readonly total: number; readonly concurrency: number }
) =>
  Effect.gen(function* () {
    const sessions = yield* openSessions(baseUrl, hints.authorizations[0])
    const requests = fc.sample(request(hints, sessions), { seed: options.seed, numRuns: options.total })
    const transport = new Transport(baseUrl, options.concurrency)
    const statuses = new Map<number, number>()
    const violations: Array<string> = []
    let toolAnswers = 0
    yield* Effect.forEach(
      requests,
      (req) =>
        Effect.promise(() => transport.send(req)).pipe(
          Effect.map((response) => {
            if (response._tag === "Response") {
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
              if (/"result":\{[\s\S]*"content":\[/.test(response.text)) toolAnswers++
            }
            const problems = problemsOf(response)
            if (problems.length > 0 && violations.length < 20)
              violations.push(
                `${problems.join(", ")}\n  ${req.method} /mcp ${JSON.stringify(req.headers)} ${JSON.stringify((req.body ?? "").slice(0, 300))}\n  -> ${
                  response._tag === "Response"
                    ? `${response.status} ${response.text.slice(0, 300)}`
                    : response.message
                }`
              )
            return problems.length
          })
        ),
      { concurrency: options.concurrency, discard: true }
    )
    transport.close()
    const report: McpFuzzReport = { requests: requests.length, statuses, toolAnswers, violations }
    return report
  })
