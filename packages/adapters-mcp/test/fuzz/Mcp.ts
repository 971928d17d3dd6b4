/**
 * Fuzzing the MCP endpoint /mcp: it is JSON-RPC, not an operation
 * of the OpenAPI document, so it has generators and an oracle of its own.
 * Requests are drawn with fast-check from a fixed seed: bodies that are not
 * JSON, truncated, empty, deeply nested, batches, JSON-RPC messages with
 * every field wrong (version, id, method, params), and well-formed tool calls
 * with wild arguments (dot segments, URL delimiters and lone surrogates among
 * them), in both kinds of MCP session (the sessionless
 * 2026-07-28 revision, and real sessions opened before the run), with wrong,
 * missing and mismatched headers (content type, accept, protocol version,
 * method and name routing headers, session id, origin, credentials).
 *
 * Requests whose id is written as text of its own (ids no JSON.stringify
 * writes: numbers beyond a double such as 1e400, integers past 2^53 such as
 * 9007199254740993, fractions and other forms such as 1.0, -0 and 1e2, besides
 * safe integers, strings and null) go alone and in batches, in sessions and
 * without.
 *
 * The oracle: an answer always comes, never a 5xx, never a JSON-RPC internal
 * error (-32603), and a tool call never ends in the tools' own "failed
 * unexpectedly" answer: bad input is the caller's fault, and says so. A POST
 * whose id is beyond a double is a JSON-RPC invalid request (-32600, id null);
 * any other id is answered exactly as it was written, or with null in an
 * error that could not read it.
 * Its headers are checked as every answer's are (adapters-http fuzz/ResponseOracle.ts `headerProblems`).
 */
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { headerProblems } from "@ratings/adapters-http/test/fuzz/ResponseOracle"
import { type RawRequest, type RawResponse, Transport } from "@ratings/adapters-http/test/fuzz/Transport"
import { RatingsToolkit, type RatingsToolName } from "../../src/RatingsTools.ts"
import { Effect } from "effect"
import * as fc from "fast-check"

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

/** Strings no URL path segment or UTF-16 text holds as they are: dot segments, URL delimiters, lone surrogates. */
const Awkward = fc.constantFrom(".", "..", "/", "%", "?", "#", "\ud800", "a\udc00", "%2e%2e", "a/../b")

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
            Awkward,
            wild
          ),
          id: fc.oneof(fc.uuid(), fc.constantFrom(...hints.identifiers), Awkward, wild),
          identifier: fc.oneof(fc.constantFrom(...hints.identifiers), fc.uuid(), Awkward, wild),
          query: fc.oneof(fc.constantFrom("alpha", "a", "%", "\u0000", " "), Awkward, wild),
          limit: fc.oneof(fc.integer({ min: -5, max: 300 }), fc.double(), wild),
          category: fc.oneof(fc.constantFrom("lending", "DEX", ""), wild),
          chain: fc.oneof(fc.constantFrom("ethereum", "arbitrum", "no-such-chain"), Awkward, wild),
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

/** The kinds of JSON-RPC id, as the oracle counts the ones answered. */
export const IdKinds = ["safe", "unsafe", "fractional", "non-finite", "string", "null"] as const
export type IdKind = (typeof IdKinds)[number]

/** An id as written in a body, of every kind; the texts JSON.stringify never writes are written here. */
const idText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.integer().map(String) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom("9007199254740993", "-9007199254740993", "18446744073709551617", "9007199254740992"),
      fc
        .bigInt({ min: -(2n ** 80n), max: 2n ** 80n })
        .filter((n) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER))
        .map(String)
    )
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom("1.0", "-0", "1e2", "0.1", "1.5", "0.30000000000000000001", "1E-7", "2.50"),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d))
    )
  },
  { weight: 1, arbitrary: fc.constantFrom("1e400", "-1e400", "1E+999", "9".repeat(400)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map((t) => JSON.stringify(t)) },
  { weight: 1, arbitrary: fc.constant("null") }
)

export const idKindOf = (text: string): IdKind => {
  if (text === "null") return "null"
  if (text.startsWith('"')) return "string"
  if (!Number.isFinite(Number(text))) return "non-finite"
  if (/[.eE]/.test(text) || text === "-0") return "fractional"
  return Number.isSafeInteger(Number(text)) ? "safe" : "unsafe"
}

/** A JSON-RPC request text with `id` written as given (the rest as JSON.stringify writes it). */
const withId = (id: string, rest: { readonly method: string; readonly params?: unknown }) =>
  `{"jsonrpc":"2.0","id":${id},${JSON.stringify(rest).slice(1)}`

/** A tool call's id: mostly a plain one, sometimes of any kind. */
const callId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1 }).map(String) },
  { weight: 1, arbitrary: idText }
)

/** A well-formed tool call of the sessionless revision, with wild arguments: it reaches the tools. */
const modernToolCall = (hints: McpHints) =>
  fc.tuple(fc.constantFrom(...ToolNames), toolArguments(hints), callId).map(
    ([name, args, id]): Draft => ({
      headers: { "mcp-method": "tools/call", "mcp-name": name, "mcp-protocol-version": "2026-07-28" },
      body: withId(id, { method: "tools/call", params: { name, arguments: args, _meta: modernMeta } }),
      ids: [id]
    })
  )

/** The same in an open session of an earlier revision. */
const sessionToolCall = (hints: McpHints, sessions: ReadonlyArray<Session>) =>
  fc.tuple(fc.constantFrom(...sessions), fc.constantFrom(...ToolNames), toolArguments(hints), callId).map(
    ([session, name, args, id]): Draft => ({
      headers: { "mcp-session-id": session.id, "mcp-protocol-version": session.version },
      body: withId(id, { method: "tools/call", params: { name, arguments: args } }),
      ids: [id]
    })
  )

/**
 * Requests whose ids are of every kind: a ping or tools/list in a session, or
 * a batch of them (the revisions that take batches answer each), or an
 * initialize of its own.
 */
const idRequests = (sessions: ReadonlyArray<Session>) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...sessions), idText, fc.constantFrom("ping", "tools/list")).map(
      ([session, id, method]): Draft => ({
        headers: { "mcp-session-id": session.id, "mcp-protocol-version": session.version },
        body: withId(id, { method }),
        ids: [id]
      })
    ),
    fc.tuple(fc.constantFrom(...sessions), fc.array(idText, { minLength: 1, maxLength: 4 })).map(
      ([session, ids]): Draft => ({
        headers: { "mcp-session-id": session.id, "mcp-protocol-version": session.version },
        body: `[${ids.map((id) => withId(id, { method: "ping" })).join(",")}]`,
        ids
      })
    ),
    idText.map(
      (id): Draft => ({
        headers: {},
        body: withId(id, {
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "fuzz", version: "1" }
          }
        }),
        ids: [id]
      })
    )
  )

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
  /** The ids of its requests as written, when the oracle is to check how they are answered. */
  readonly ids?: ReadonlyArray<string>
}

/** A request to send, with the ids its body's requests were written with. */
export interface McpRequest extends RawRequest {
  readonly ids: ReadonlyArray<string> | undefined
}

const request = (hints: McpHints, sessions: ReadonlyArray<Session>): fc.Arbitrary<McpRequest> =>
  fc
    .tuple(
      fc.oneof(
        {
          weight: 4,
          arbitrary: message(hints).map((m): Draft => ({ headers: {}, body: JSON.stringify(m) }))
        },
        { weight: 3, arbitrary: modernToolCall(hints) },
        { weight: 3, arbitrary: sessionToolCall(hints, sessions) },
        { weight: 2, arbitrary: idRequests(sessions) },
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
        body: method === "GET" || method === "HEAD" ? undefined : draft.body,
        ids: draft.ids
      }
    })

/** A JSON-RPC message of an answer, and its id as written (undefined when it has none). */
interface Answered {
  readonly message: unknown
  readonly id: string | undefined
}

/** The JSON-RPC messages of an answer (a JSON body, or the data lines of an event stream). */
const messagesOf = (r: Extract<RawResponse, { _tag: "Response" }>): ReadonlyArray<Answered> => {
  const texts = (r.contentType ?? "").startsWith("text/event-stream")
    ? r.text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
    : (r.contentType ?? "").startsWith("application/json") && r.text !== ""
      ? [r.text]
      : []
  return texts.flatMap((t) => {
    // Each message's id as it was written: JSON.parse gives the source text of each primitive.
    const written = new WeakMap<object, string>()
    const reviver = function (
      this: object,
      key: string,
      value: unknown,
      context?: { readonly source?: string }
    ) {
      if (key === "id" && context?.source !== undefined) written.set(this, context.source)
      return value
    }
    try {
      const parsed: unknown = JSON.parse(t, reviver as (key: string, value: unknown) => unknown)
      return (Array.isArray(parsed) ? parsed : [parsed]).map((message) => ({
        message,
        id: typeof message === "object" && message !== null ? written.get(message) : undefined
      }))
    } catch {
      return [{ message: { unparsable: t }, id: undefined }]
    }
  })
}

const isError = (message: unknown) => typeof message === "object" && message !== null && "error" in message

/**
 * What is wrong with the ids of an answer to a request whose ids were
 * written as `sent`, if anything, and the kinds of the ids seen answered
 * exactly (the one answered with the invalid request of a non-finite number
 * among them).
 */
const idProblemsOf = (
  request: McpRequest,
  r: Extract<RawResponse, { _tag: "Response" }>,
  answered: ReadonlyArray<Answered>
): { readonly problems: ReadonlyArray<string>; readonly echoed: ReadonlyArray<IdKind> } => {
  const sent = request.ids
  if (sent === undefined || request.method !== "POST") return { problems: [], echoed: [] }
  if (sent.some((id) => idKindOf(id) === "non-finite")) {
    const refused =
      r.status === 400 &&
      answered.length === 1 &&
      answered[0]!.id === "null" &&
      JSON.stringify(answered[0]!.message).includes('"code":-32600')
    return refused
      ? { problems: [], echoed: ["non-finite"] }
      : {
          problems: ["a number beyond a double was not refused as an invalid request (-32600, id null)"],
          echoed: []
        }
  }
  const problems: Array<string> = []
  const echoed: Array<IdKind> = []
  for (const { message, id } of answered) {
    if (id === undefined || typeof message !== "object" || message === null || "method" in message) continue
    if (id === "null" && (isError(message) || sent.includes("null"))) {
      if (sent.includes("null")) echoed.push("null")
      continue
    }
    if (sent.includes(id)) echoed.push(idKindOf(id))
    else
      problems.push(
        `id answered as ${id.slice(0, 40)}, sent as ${sent.map((s) => s.slice(0, 40)).join(" or ")}`
      )
  }
  return { problems, echoed }
}

/** What is wrong with an answer, if anything. */
export const problemsOf = (
  r: RawResponse,
  answered: ReadonlyArray<Answered> = r._tag === "Response" ? messagesOf(r) : []
): ReadonlyArray<string> => {
  if (r._tag === "TransportError") return [`no answer: ${r.message}`]
  const problems: Array<string> = [...headerProblems(r)]
  if (r.status >= 500) problems.push(`status ${r.status}`)
  for (const { message: m } of answered) {
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
  /** Ids answered exactly as written (non-finite ones: refused as an invalid request), by kind. */
  readonly idsEchoed: ReadonlyMap<IdKind, number>
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
    const idsEchoed = new Map<IdKind, number>()
    const violations: Array<string> = []
    let toolAnswers = 0
    yield* Effect.forEach(
      requests,
      (req) =>
        Effect.promise(() => transport.send(req)).pipe(
          Effect.map((response) => {
            const problems: Array<string> = []
            if (response._tag === "Response") {
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
              if (/"result":\{[\s\S]*"content":\[/.test(response.text)) toolAnswers++
              const answered = messagesOf(response)
              problems.push(...problemsOf(response, answered))
              const ids = idProblemsOf(req, response, answered)
              problems.push(...ids.problems)
              for (const kind of ids.echoed) idsEchoed.set(kind, (idsEchoed.get(kind) ?? 0) + 1)
            } else problems.push(...problemsOf(response))
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
    const report: McpFuzzReport = { requests: requests.length, statuses, toolAnswers, idsEchoed, violations }
    return report
  })
