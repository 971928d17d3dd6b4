/**
 * Fuzzing /mcp (fuzz/Mcp.ts): malformed JSON-RPC bodies, wrong headers and
 * wild tool arguments, over the in-memory stores and over Postgres, so that
 * what the tools read back is fuzzed too: at its full size (FUZZ_SIZE=full,
 * `npm run test:fuzz`) 3,000 requests over memory and 1,000 over Postgres,
 * at the quick size of `npm test` 800 and 300. The seed is fixed (FUZZ_SEED
 * replays another, as the API's campaign, adapters-http Fuzz.test.ts).
 *
 * Slow and oversized requests to /mcp on raw connections too (adapters-http
 * fuzz/SlowClients.ts with /mcp mounted), over memory with short request
 * timeouts: 60 cases at the full size, 15 at the quick one.
 */
import { assert, describe, layer } from "@effect/vitest"
import { CallerNames, Seed } from "@ratings/adapters-http/test/fixtures"
import { fuzzSlowClients, type SlowTimeouts } from "@ratings/adapters-http/test/fuzz/SlowClients"
import { TestServer } from "@ratings/adapters-http/test/TestServer"
import { Cause, Effect, Formatter, Logger } from "effect"
import { MaxMcpBodyBytes } from "../src/McpEndpoint.ts"
import { fuzzMcp, IdKinds } from "./fuzz/Mcp.ts"
import { McpTestServer } from "./McpTestServer.ts"

const FuzzSize = process.env.FUZZ_SIZE ?? "quick"
if (FuzzSize !== "quick" && FuzzSize !== "full")
  throw new Error(`FUZZ_SIZE must be quick or full, got ${FuzzSize}`)

/** Requests to /mcp over each backend. */
const McpSizes = {
  full: { memory: 3_000, postgres: 1_000 },
  quick: { memory: 800, postgres: 300 }
}[FuzzSize]

/** Slow and oversized requests on raw connections, over memory only: it is the transport that is fuzzed. */
const SlowSizes = { full: 60, quick: 15 }[FuzzSize]

/** The slow-client server's timeouts: short, so that a case waits a second or two. */
const ShortTimeouts: SlowTimeouts = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 }

const FuzzSeed = Number(process.env.FUZZ_SEED ?? 20_260_801)
if (!Number.isSafeInteger(FuzzSeed))
  throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`)

/**
 * The server's log, kept out of the test output (refusals are logged at
 * info); what it logged at Error or above is checked after each run.
 */
const serverErrors: Array<string> = []
const serverLog = Logger.make(({ logLevel, message, cause }) => {
  if (logLevel === "Error" || logLevel === "Fatal")
    serverErrors.push(
      `${logLevel}: ${Formatter.format(message)}${Cause.hasFails(cause) || Cause.hasDies(cause) ? ` ${Cause.pretty(cause)}` : ""}`
    )
})

/** /mcp with malformed JSON-RPC, wrong headers and wild tool arguments (fuzz/Mcp.ts). */
const fuzzMcpEndpoint = (label: string, total: number) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    serverErrors.splice(0)
    const report = yield* fuzzMcp(
      server.baseUrl,
      {
        identifiers: Seed.entities.flatMap((e) => [e.record.slug, e.record.id]),
        authorizations: CallerNames.flatMap((c) => {
          const bearer = server.bearerFor(c)
          return bearer === undefined ? [] : [bearer]
        })
      },
      { seed: FuzzSeed, total, concurrency: 8 }
    )
    console.log(
      `mcp fuzz ${label}: ${report.requests} requests, ${report.toolAnswers} tool answers, statuses ${JSON.stringify(Object.fromEntries(report.statuses))}, ids answered ${JSON.stringify(Object.fromEntries(report.idsEchoed))}`
    )
    const logged = serverErrors.splice(0)
    assert.deepStrictEqual(logged, [], "the server logged no error")
    assert.strictEqual(report.requests, total)
    assert.isAtLeast(report.toolAnswers, total / 10, "tool calls reached the tools")
    // JSON-RPC ids of every kind were sent and answered exactly as written (non-finite ones refused).
    for (const kind of IdKinds)
      assert.isAbove(report.idsEchoed.get(kind) ?? 0, 0, `ids of kind ${kind} were answered`)
    if (report.violations.length > 0) assert.fail(report.violations.join("\n"))
  })

const McpTestName =
  "issue 17: /mcp, fuzzed with malformed JSON-RPC bodies, wrong headers and wild tool arguments, always " +
  "answers, never with a 5xx or a JSON-RPC internal error, and no tool fails unexpectedly; ids of every kind " +
  "(non-finite, unsafe integers, fractions, strings, null) are refused when beyond a double and else echoed exactly"

/** Slow and oversized requests to /mcp (and /health and an unknown path beside it). */
const fuzzSlow = (total: number) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    serverErrors.splice(0)
    const report = yield* fuzzSlowClients(server.baseUrl, [], [], {
      seed: FuzzSeed,
      total,
      concurrency: 10,
      mounted: [{ method: "POST", target: "/mcp", limit: MaxMcpBodyBytes, ownAnswers: true }],
      ...ShortTimeouts
    })
    console.log(
      `slow-client fuzz of /mcp: ${report.cases} cases ${JSON.stringify(Object.fromEntries(report.kinds))}, statuses ${JSON.stringify(Object.fromEntries(report.statuses))}`
    )
    const logged = serverErrors.splice(0)
    assert.deepStrictEqual(logged, [], "the server logged no error")
    assert.strictEqual(report.cases, total)
    for (const kind of ["declared-over", "trickled-headers"] as const)
      assert.isAbove(report.kinds.get(kind) ?? 0, 0, `${kind} cases were sent`)
    if (report.violations.length > 0) assert.fail(report.violations.join("\n"))
  })

const SlowTestName =
  "slow and oversized requests to /mcp on raw connections get a JSON 413 at once or a JSON 408 within the " +
  "timeouts and are closed; requests sent within the timeouts are answered; never a 5xx"

layer(McpTestServer.layerMemory(Seed, { logger: serverLog }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("memory", (it) => {
  describe("fuzzing /mcp", () => {
    it.effect(McpTestName, () => fuzzMcpEndpoint("memory", McpSizes.memory), { timeout: 180_000 })
  })
})

layer(McpTestServer.layerMemory(Seed, { logger: serverLog, connections: ShortTimeouts }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("memory, short request timeouts", (it) => {
  describe("fuzzing slow and oversized requests to /mcp", () => {
    it.effect(SlowTestName, () => fuzzSlow(SlowSizes), { timeout: 180_000 })
  })
})

layer(McpTestServer.layerPostgres(Seed, { logger: serverLog }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("postgres", (it) => {
  describe("fuzzing /mcp", () => {
    it.effect(McpTestName, () => fuzzMcpEndpoint("postgres", McpSizes.postgres), { timeout: 180_000 })
  })
})
