/**
 * Fuzzing how the server meets slow and oversized requests (issue 23 point
 * 3), on raw TCP connections (../RawClient.ts), for every operation of the
 * served document, /health, an unknown path, and the routes mounted beside
 * the API that read a body (the MCP endpoint's campaign gives /mcp). Cases
 * are drawn with fast-check from a fixed seed:
 *
 * - declared-over: a Content-Length past the route's limit (by 1 byte to a
 *   gigabyte), a few bytes of body or none, sometimes `Expect: 100-continue`,
 *   sometimes more bytes trickled after;
 * - chunked-over: a chunked body past the limit, sent as fast as it goes;
 * - trickled-headers: the head sent a byte or a line at a time, forever;
 * - idle: a connection that sends nothing;
 * - trickled-body: a small declared body sent a byte at a time, too slowly;
 * - slow-in-time: a whole request sent in pieces, within the timeouts.
 *
 * The oracle: a body over the limit is a JSON 413 at once, never a 100
 * Continue, and the connection is closed; a request not received in time is
 * a JSON 408 and closed within the timeout (plus the server's checking
 * interval and some slack), never before it; a request sent within the
 * timeouts is answered as usual, never 408; nothing is ever a 5xx.
 */
import { MaxRequestBodyBytes } from "../../src/server/RouterFallbacks.ts"
import { Effect } from "effect"
import * as fc from "fast-check"
import { type Exchange, exchange, firstResponse, head, type Step } from "../RawClient.ts"
import type { Operation } from "./Document.ts"

export interface SlowTimeouts {
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
}

export interface Target {
  readonly method: string
  readonly target: string
  /** The most body bytes its route takes. */
  readonly limit: number
  /** Its answers are its own protocol's (JSON-RPC at /mcp), not held to the API's JSON detail. */
  readonly ownAnswers?: boolean | undefined
}

type SlowCase =
  | {
      readonly kind: "declared-over"
      readonly to: Target
      readonly over: number
      readonly sent: string
      readonly expectContinue: boolean
      readonly trickleAfter: boolean
    }
  /** To a route that reads a body: one that does not answers without reading it. */
  | { readonly kind: "chunked-over"; readonly to: Target }
  | {
      readonly kind: "trickled-headers"
      readonly to: Target
      readonly byLine: boolean
      readonly everyMs: number
    }
  | { readonly kind: "idle" }
  | {
      readonly kind: "trickled-body"
      readonly to: Target
      readonly declared: number
      readonly everyMs: number
    }
  | { readonly kind: "slow-in-time"; readonly to: Target; readonly pieces: number; readonly body: boolean }

export type SlowKind = SlowCase["kind"]

/** What the server may add to a timeout: its checks run every quarter of the shorter one; and a loaded machine. */
const slackOf = (t: SlowTimeouts) => Math.min(t.headersTimeoutMs, t.requestTimeoutMs) / 4 + 1_500

/**
 * The documented operations as targets (path parameters filled with fixture
 * identifiers), and the others; with `takingBody`, only those that read a
 * body (the operations that take one, and the mounted routes, which all do).
 * Without operations (a campaign of mounted routes only), the others alone.
 */
const targetsOf = (
  allOperations: ReadonlyArray<Operation>,
  identifiers: ReadonlyArray<string>,
  mounted: ReadonlyArray<Target>,
  takingBody: boolean
) => {
  const operations = takingBody ? allOperations.filter((op) => op.requestBody !== undefined) : allOperations
  const others: ReadonlyArray<Target> = takingBody
    ? mounted
    : [
        ...mounted,
        { method: "GET", target: "/health", limit: MaxRequestBodyBytes },
        { method: "POST", target: "/no/such/path", limit: MaxRequestBodyBytes }
      ]
  if (operations.length === 0) return fc.constantFrom(...others)
  const fromOperations = fc.tuple(fc.constantFrom(...operations), fc.constantFrom(...identifiers)).map(
    ([op, id]): Target => ({
      method: op.method.toUpperCase(),
      target: op.path.replace(/\{[^}]+\}/g, encodeURIComponent(id)),
      limit: MaxRequestBodyBytes
    })
  )
  return others.length === 0
    ? fromOperations
    : fc.oneof({ weight: 6, arbitrary: fromOperations }, { weight: 1, arbitrary: fc.constantFrom(...others) })
}

const caseOf = (
  operations: ReadonlyArray<Operation>,
  identifiers: ReadonlyArray<string>,
  mounted: ReadonlyArray<Target>
) => {
  const to = targetsOf(operations, identifiers, mounted, false)
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("declared-over" as const),
        to,
        over: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 1_000_000_000 })),
        sent: fc.oneof(fc.constant(""), fc.constant("{}"), fc.string({ maxLength: 64 })),
        expectContinue: fc.boolean(),
        trickleAfter: fc.boolean()
      })
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("chunked-over" as const),
        to: targetsOf(operations, identifiers, mounted, true)
      })
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("trickled-headers" as const),
        to,
        byLine: fc.boolean(),
        everyMs: fc.integer({ min: 30, max: 200 })
      })
    },
    { weight: 1, arbitrary: fc.constant({ kind: "idle" as const }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("trickled-body" as const),
        to,
        declared: fc.integer({ min: 100, max: 2_000 }),
        everyMs: fc.integer({ min: 30, max: 200 })
      })
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("slow-in-time" as const),
        to,
        pieces: fc.integer({ min: 2, max: 8 }),
        body: fc.boolean()
      })
    }
  )
}

/** What to send for a case: the first steps, more steps for as long as the connection is open, and how long to wait. */
const planOf = (c: SlowCase, t: SlowTimeouts) => {
  const slack = slackOf(t)
  const forever = (bytes: string, everyMs: number) => () => ({ bytes, afterMs: everyMs })
  switch (c.kind) {
    case "declared-over": {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "content-length": String(c.to.limit + c.over)
      }
      if (c.expectContinue) headers.expect = "100-continue"
      return {
        steps: [{ bytes: head(c.to.method, c.to.target, headers) + c.sent }],
        more: c.trickleAfter ? forever("x", 100) : undefined,
        waitMs: 5_000
      }
    }
    case "chunked-over": {
      const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`
      return {
        steps: [
          {
            bytes: head(c.to.method, c.to.target, {
              "content-type": "application/json",
              "transfer-encoding": "chunked"
            })
          }
        ],
        more: forever(chunk, 2),
        waitMs: 10_000
      }
    }
    case "trickled-headers": {
      const start = `${c.to.method} ${c.to.target} HTTP/1.1\r\nHost: 127.0.0.1\r\n`
      const steps: ReadonlyArray<Step> = c.byLine
        ? [{ bytes: start }]
        : [...start].map((ch) => ({ bytes: ch, afterMs: c.everyMs }))
      let line = 0
      return {
        steps,
        more: () => ({ bytes: c.byLine ? `X-Slow-${line++}: a\r\n` : "X", afterMs: c.everyMs }),
        waitMs: t.headersTimeoutMs + slack + 2_000
      }
    }
    case "idle":
      return { steps: [], more: undefined, waitMs: t.headersTimeoutMs + slack + 2_000 }
    case "trickled-body":
      return {
        steps: [
          {
            bytes: head(c.to.method, c.to.target, {
              "content-type": "application/json",
              "content-length": String(c.declared)
            })
          }
        ],
        more: forever("a", c.everyMs),
        waitMs: t.requestTimeoutMs + slack + 2_000
      }
    case "slow-in-time": {
      const body = c.body ? '{"name":"slow"}' : ""
      const wire =
        head(c.to.method, c.to.target, {
          ...(c.body ? { "content-type": "application/json", "content-length": String(body.length) } : {}),
          accept: "application/json, text/event-stream",
          connection: "close"
        }) + body
      // The whole request within a third of the shorter timeout.
      const everyMs = Math.floor(Math.min(t.headersTimeoutMs, t.requestTimeoutMs) / 3 / c.pieces)
      const size = Math.ceil(wire.length / c.pieces)
      const steps = Array.from({ length: c.pieces }, (_, i) => ({
        bytes: wire.slice(i * size, (i + 1) * size),
        afterMs: i === 0 ? 0 : everyMs
      })).filter((s) => s.bytes !== "")
      return { steps, more: undefined, waitMs: 10_000 }
    }
  }
}

/** Every status line the server sent, in order. */
const statusesOf = (answer: string): ReadonlyArray<number> =>
  [...answer.matchAll(/(?:^|\r\n)HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))

/** The last response the server sent, split. */
const lastResponseOf = (answer: string) => {
  const at = answer.lastIndexOf("HTTP/1.1 ")
  return firstResponse(at === -1 ? answer : answer.slice(at))
}

/** The `detail` of a JSON error body (a string, or the API's structured detail of a 401 or 422); undefined: none. */
const jsonDetailOf = (body: string): unknown => {
  try {
    return (JSON.parse(body) as { detail?: unknown }).detail
  } catch {
    return undefined
  }
}

/** What is wrong with the server's answer to a case. */
export const problemsOf = (c: SlowCase, e: Exchange, t: SlowTimeouts): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const statuses = statusesOf(e.answer)
  const slack = slackOf(t)
  if (statuses.some((s) => s >= 500)) problems.push(`a 5xx: ${statuses.join(", ")}`)
  const last = lastResponseOf(e.answer)
  const isHead = "to" in c && c.to.method === "HEAD"
  const expectJson = (status: number, detail: RegExp) => {
    if (last.status !== status)
      problems.push(`expected a ${status}, got ${statuses.join(", ") || "no answer"}`)
    else if (!isHead && !detail.test(String(jsonDetailOf(last.body))))
      problems.push(`the ${status} has no JSON detail matching ${detail}: ${last.body.slice(0, 200)}`)
  }
  const closedWithin = (ms: number) => {
    if (e.closedMs === undefined) problems.push(`not closed within ${ms.toFixed(0)} ms`)
    else if (e.closedMs > ms)
      problems.push(`closed after ${e.closedMs.toFixed(0)} ms, more than ${ms.toFixed(0)}`)
  }
  switch (c.kind) {
    case "declared-over":
    case "chunked-over":
      if (c.kind === "declared-over" && e.answer.includes("100 Continue"))
        problems.push("a 100 Continue was sent")
      expectJson(413, /^request body too large/)
      if (c.kind === "declared-over") {
        if ((e.firstByteMs ?? Number.POSITIVE_INFINITY) > 1_500)
          problems.push(`the 413 took ${e.firstByteMs?.toFixed(0)} ms`)
        if (last.headers.connection !== "close") problems.push("the 413 does not say Connection: close")
        closedWithin(3_000)
      } else closedWithin(8_000)
      break
    case "trickled-headers":
    case "idle":
      expectJson(408, /^request not received in time$/)
      closedWithin(t.headersTimeoutMs + slack)
      if ((e.closedMs ?? 0) < t.headersTimeoutMs - 100)
        problems.push(`closed after ${e.closedMs?.toFixed(0)} ms, before the headers timeout`)
      break
    case "trickled-body":
      expectJson(408, /^request not received in time$/)
      closedWithin(t.requestTimeoutMs + slack)
      if ((e.closedMs ?? 0) < t.requestTimeoutMs - 100)
        problems.push(`closed after ${e.closedMs?.toFixed(0)} ms, before the request timeout`)
      break
    case "slow-in-time":
      if (last.status === undefined) problems.push("no answer")
      else if (last.status === 408) problems.push("a 408 though the request came within the timeouts")
      // The shapes of a mounted protocol's own answers are its own fuzz's to hold (adapters-mcp's for /mcp).
      else if (
        last.status >= 400 &&
        !isHead &&
        c.to.ownAnswers !== true &&
        jsonDetailOf(last.body) === undefined
      )
        problems.push(`the ${last.status} has no JSON detail: ${last.body.slice(0, 200)}`)
      break
  }
  return problems
}

export interface SlowFuzzReport {
  readonly cases: number
  readonly kinds: ReadonlyMap<SlowKind, number>
  readonly statuses: ReadonlyMap<number, number>
  readonly violations: ReadonlyArray<string>
}

/**
 * Sends `total` drawn cases, `concurrency` at once, to the server at
 * `baseUrl` with the given timeouts; `mounted`: the routes beside the API's
 * that read a body, with their limits.
 */
export const fuzzSlowClients = (
  baseUrl: string,
  operations: ReadonlyArray<Operation>,
  identifiers: ReadonlyArray<string>,
  options: {
    readonly seed: number
    readonly total: number
    readonly concurrency: number
    readonly mounted?: ReadonlyArray<Target> | undefined
  } & SlowTimeouts
) =>
  Effect.gen(function* () {
    const port = Number(new URL(baseUrl).port)
    const cases = fc.sample(caseOf(operations, identifiers, options.mounted ?? []), {
      seed: options.seed,
      numRuns: options.total
    })
    const kinds = new Map<SlowKind, number>()
    const statuses = new Map<number, number>()
    const violations: Array<string> = []
    yield* Effect.forEach(
      cases,
      (c) =>
        Effect.promise(async () => {
          const plan = planOf(c, options)
          const e = await exchange(port, plan.steps, { waitMs: plan.waitMs, keepSending: plan.more })
          kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1)
          for (const status of statusesOf(e.answer)) statuses.set(status, (statuses.get(status) ?? 0) + 1)
          const problems = problemsOf(c, e, options)
          if (problems.length > 0 && violations.length < 20)
            violations.push(
              `${problems.join("; ")}\n  ${JSON.stringify(c)}\n  -> first byte ${e.firstByteMs?.toFixed(0)} ms, closed ${e.closedMs?.toFixed(0)} ms: ${JSON.stringify(e.answer.slice(0, 400))}`
            )
        }),
      { concurrency: options.concurrency, discard: true }
    )
    const report: SlowFuzzReport = { cases: cases.length, kinds, statuses, violations }
    return report
  })
