/**
 * One fuzzing run against a live server: plans how many requests each
 * documented operation gets (weighted by how much it takes as input, never
 * fewer than a floor), samples them with fast-check from a fixed seed (each
 * operation from its own seed derived from its id, so adding a route does not
 * reshuffle the others), sends them concurrently, and holds every response to
 * the document (ResponseOracle). Violations are collected, never thrown one by
 * one, so a run reports everything it found.
 *
 * Before the run, each operation that creates something is called with valid
 * bodies as each fixture caller, and the ids the server hands back join the
 * path hints: routes that take the id of a created record (rules, deliveries)
 * then reach real records, not only 404s.
 */
import { Effect } from "effect"
import * as fc from "fast-check"
import type { OpenApiDocument, Operation } from "./Document.ts"
import type { KnownBug } from "./Known.ts"
import { type Credentials, type FuzzRequest, type Hints, requestsOf } from "./Requests.ts"
import { ResponseOracle } from "./ResponseOracle.ts"
import { type RawResponse, Transport } from "./Transport.ts"

/** What the campaign needs of the server under test. */
export interface Target {
  readonly baseUrl: string
  /** The `Authorization` value of a fixture caller (undefined for anonymous). */
  readonly bearerFor: (caller: string) => string | undefined
  /** A new API key of a tier, on a new account, in clear. */
  readonly freshKey: (tier: string) => Effect.Effect<string>
}

export interface CampaignOptions {
  readonly seed: number
  /** Requests in all, spread over the operations by weight. */
  readonly total: number
  /** No operation gets fewer. */
  readonly floor: number
  readonly concurrency: number
  /** Valid creations per fixture caller before the run (see the header). */
  readonly warmUp: number
  /** Reported server bugs whose responses are counted, not failed (Known.ts). */
  readonly known: ReadonlyArray<KnownBug>
  /** An operationId whose every request and response is printed (to see what the fuzzer sends). */
  readonly trace?: string | undefined
}

export interface OperationStats {
  readonly op: Operation
  readonly sent: number
  readonly statuses: ReadonlyMap<string, number>
  /** Requests whose body held a number beyond a double (`1e400`). */
  readonly nonFinite: number
  /** Requests with a body and no credentials at all. */
  readonly anonymousWithBody: number
}

export interface Violation {
  readonly op: Operation
  readonly request: string
  readonly response: string
  readonly problems: ReadonlyArray<string>
}

export interface CampaignReport {
  readonly seed: number
  readonly requests: number
  readonly millis: number
  /** Of which generating the requests (the rest is warm-up, sending and checking). */
  readonly generationMillis: number
  readonly stats: ReadonlyArray<OperationStats>
  readonly violations: ReadonlyArray<Violation>
  /** Responses excused by each known bug, by its id. */
  readonly excused: ReadonlyMap<string, number>
  readonly uncheckedFormats: ReadonlyArray<string>
}

/** FNV-1a: a stable 32-bit hash of an operation id, to derive its seed. */
const hash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

export const seedOf = (seed: number, op: Operation): number => (seed ^ hash(op.id)) | 0

/** How much input an operation takes: its parameters (credentials aside) and its body. */
const weightOf = (op: Operation): number =>
  1 +
  0.25 * op.parameters.filter((p) => p.in !== "header" || p.name.toLowerCase() !== "authorization").length +
  (op.requestBody === undefined ? 0 : 1)

/** Requests per operation: proportional to weight, at least `floor`, summing to at least `total`. */
export const plan = (ops: ReadonlyArray<Operation>, total: number, floor: number): ReadonlyArray<number> => {
  const sum = ops.reduce((acc, op) => acc + weightOf(op), 0)
  return ops.map((op) => Math.max(floor, Math.ceil((total * weightOf(op)) / sum)))
}

/** Whether the operation's 429 can be a quota (exports): those get many fresh keys, so a quota is a documented 429. */
const hasQuota = (op: Operation): boolean => /quota/i.test(JSON.stringify(op.responses["429"] ?? {}))

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`)

const describeCredentials = (c: Credentials): string => {
  switch (c._tag) {
    case "None":
      return "no Authorization"
    case "Caller":
      return `as ${c.caller}`
    case "FreshKey":
      return `fresh ${c.tier} key`
    case "Mangled":
      return `${c.caller}'s credential, ${c.how}`
    case "Raw":
      return `Authorization: ${JSON.stringify(cut(c.value, 60))}`
  }
}

const describeRequest = (req: FuzzRequest): string =>
  [
    `${req.method} ${cut(req.target, 240)}`,
    describeCredentials(req.credentials),
    ...Object.entries(req.headers).map(([k, v]) => `${k}: ${JSON.stringify(cut(v, 60))}`),
    ...(req.body === undefined
      ? []
      : [
          `body (${req.body.note}, content-type ${req.body.contentType ?? "none"}): ${JSON.stringify(cut(req.body.body, 160))}`
        ])
  ].join(" | ")

const describeResponse = (r: RawResponse): string =>
  r._tag === "TransportError"
    ? `transport error: ${r.message}`
    : `${r.status} ${r.contentType ?? "(no content-type)"} ${JSON.stringify(cut(r.text, 300))}`

const isConditional = (req: FuzzRequest): boolean =>
  Object.keys(req.headers).some((h) => /^if-(none-match|modified-since|match|unmodified-since)$/i.test(h))

const UuidLike = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids (`id`, `*_id`) in a 2xx body, one level deep. */
const idsIn = (text: string): ReadonlyArray<string> => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return []
  }
  const out: Array<string> = []
  const visit = (v: unknown, depth: number) => {
    if (depth > 2 || typeof v !== "object" || v === null) return
    if (Array.isArray(v)) for (const x of v.slice(0, 5)) visit(x, depth + 1)
    else
      for (const [k, x] of Object.entries(v)) {
        if ((k === "id" || k.endsWith("_id")) && typeof x === "string" && UuidLike.test(x)) out.push(x)
        else visit(x, depth + 1)
      }
  }
  visit(body, 0)
  return out
}

const MangledPrefix = /^Bearer /

const authorizationOf = (
  target: Target,
  c: Credentials
): Effect.Effect<string | ReadonlyArray<string> | undefined> => {
  switch (c._tag) {
    case "None":
      return Effect.succeed(undefined)
    case "Caller":
      return Effect.succeed(target.bearerFor(c.caller))
    case "FreshKey":
      return Effect.map(target.freshKey(c.tier), (key) => `Bearer ${key}`)
    case "Raw":
      return Effect.succeed(c.value)
    case "Mangled": {
      const bearer = target.bearerFor(c.caller) ?? target.bearerFor("pro") ?? "Bearer x"
      const token = bearer.replace(MangledPrefix, "")
      switch (c.how) {
        case "lower-case scheme":
          return Effect.succeed(`bearer ${token}`)
        case "upper-case scheme":
          return Effect.succeed(`BEARER ${token}`)
        case "no scheme":
          return Effect.succeed(token)
        case "double space":
          return Effect.succeed(`Bearer  ${token}`)
        case "trailing space":
          return Effect.succeed(`${bearer} `)
        case "truncated":
          return Effect.succeed(bearer.slice(0, -3))
        case "extra token":
          return Effect.succeed(`${bearer} extra`)
        case "sent twice":
          return Effect.succeed([bearer, bearer])
      }
    }
  }
}

export const runCampaign = (
  doc: OpenApiDocument,
  operations: ReadonlyArray<Operation>,
  target: Target,
  baseHints: Hints,
  options: CampaignOptions
): Effect.Effect<CampaignReport> =>
  Effect.acquireUseRelease(
    Effect.sync(() => new Transport(target.baseUrl, options.concurrency)),
    (transport) => campaign(doc, operations, target, baseHints, options, transport),
    (transport) => Effect.sync(() => transport.close())
  )

const campaign = (
  doc: OpenApiDocument,
  operations: ReadonlyArray<Operation>,
  target: Target,
  baseHints: Hints,
  options: CampaignOptions,
  transport: Transport
): Effect.Effect<CampaignReport> =>
  Effect.gen(function* () {
    const oracle = new ResponseOracle(doc)
    const started = Date.now()
    const statuses = new Map<Operation, Map<string, number>>()
    const nonFinite = new Map<Operation, number>()
    const anonymousWithBody = new Map<Operation, number>()
    const violations: Array<Violation> = []
    const excused = new Map<string, number>(options.known.map((k) => [k.id, 0]))
    let requests = 0

    const run = (op: Operation, req: FuzzRequest) =>
      Effect.gen(function* () {
        const authorization = yield* authorizationOf(target, req.credentials)
        const headers: { [name: string]: string | ReadonlyArray<string> } = { ...req.headers }
        if (authorization !== undefined) headers.authorization = authorization
        if (req.body?.contentType !== undefined) headers["content-type"] = req.body.contentType
        const response = yield* Effect.promise(() =>
          transport.send({ method: req.method, target: req.target, headers, body: req.body?.body })
        )
        requests++
        if (options.trace === op.id)
          console.log(`${describeRequest(req)}\n  -> ${describeResponse(response)}`)
        const key = response._tag === "Response" ? String(response.status) : "error"
        const counts = statuses.get(op) ?? new Map<string, number>()
        counts.set(key, (counts.get(key) ?? 0) + 1)
        statuses.set(op, counts)
        if (req.body?.nonFinite) nonFinite.set(op, (nonFinite.get(op) ?? 0) + 1)
        if (req.body !== undefined && req.credentials._tag === "None")
          anonymousWithBody.set(op, (anonymousWithBody.get(op) ?? 0) + 1)
        const problems =
          response._tag === "Response"
            ? [
                ...oracle.check(op, response, { conditional: isConditional(req) }),
                ...(req.body?.nonFinite && response.status < 400
                  ? [`a body holding a number beyond a double was accepted (${response.status})`]
                  : [])
              ]
            : [`no response: ${response.message}`]
        if (problems.length > 0) {
          const known = options.known.find((k) => k.excuses(req, response))
          if (known !== undefined) excused.set(known.id, (excused.get(known.id) ?? 0) + 1)
          else
            violations.push({
              op,
              request: describeRequest(req),
              response: describeResponse(response),
              problems
            })
        }
        return response
      })

    // Warm-up: valid creations by each fixture caller, sequential so the ids learnt are the same every run.
    const learned: Array<string> = []
    for (const op of operations) {
      if (op.requestBody === undefined || options.warmUp === 0) continue
      const samples = fc.sample(requestsOf(doc, op, baseHints, { freshKeyWeight: 0 }), {
        seed: seedOf(options.seed, op) ^ 0x5eed,
        numRuns: options.warmUp * 50
      })
      // Creations on a route without path parameters: the ones whose ids other routes take.
      const valid = samples.filter((r) => r.body?.note === "valid body" && r.target.split("?")[0] === op.path)
      for (const caller of baseHints.callers)
        for (const req of valid.slice(0, options.warmUp)) {
          const response = yield* run(op, { ...req, credentials: { _tag: "Caller", caller }, headers: {} })
          if (response._tag === "Response" && response.status < 300)
            for (const id of idsIn(response.text)) if (!learned.includes(id)) learned.push(id)
        }
    }
    const hints: Hints = { ...baseHints, learnedIds: [...baseHints.learnedIds, ...learned.slice(0, 50)] }

    const planned = Date.now()
    const counts = plan(operations, options.total, options.floor)
    const batch = operations.flatMap((op, i) =>
      fc
        .sample(requestsOf(doc, op, hints, { freshKeyWeight: hasQuota(op) ? 10 : 1 }), {
          seed: seedOf(options.seed, op),
          numRuns: counts[i]!
        })
        .map((req) => [op, req] as const)
    )
    const generated = Date.now()
    // Interleaved, so that concurrent requests hit different routes (and different stores) at once.
    const order = fc.sample(fc.shuffledSubarray(batch, { minLength: batch.length }), {
      seed: options.seed,
      numRuns: 1
    })[0]!
    yield* Effect.forEach(order, ([op, req]) => run(op, req), {
      concurrency: options.concurrency,
      discard: true
    })

    return {
      seed: options.seed,
      requests,
      millis: Date.now() - started,
      generationMillis: generated - planned,
      stats: operations.map((op) => {
        const s = statuses.get(op) ?? new Map<string, number>()
        return {
          op,
          sent: [...s.values()].reduce((a, b) => a + b, 0),
          statuses: s,
          nonFinite: nonFinite.get(op) ?? 0,
          anonymousWithBody: anonymousWithBody.get(op) ?? 0
        }
      }),
      violations,
      excused,
      uncheckedFormats: oracle.uncheckedFormats
    }
  })

/** The run as printed: the seed to replay it, and per operation the requests sent and the statuses met. */
export const formatSummary = (label: string, report: CampaignReport): string => {
  const width = Math.max(...report.stats.map((s) => `${s.op.method} ${s.op.path}`.length))
  const lines = report.stats.map((s) => {
    const statuses = [...s.statuses.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}×${n}`)
      .join(" ")
    const bodies =
      s.op.requestBody === undefined
        ? ""
        : `  (bodies holding 1e400: ${s.nonFinite}, bodies without credentials: ${s.anonymousWithBody})`
    return `  ${`${s.op.method} ${s.op.path}`.padEnd(width)} ${String(s.sent).padStart(5)}  ${statuses}${bodies}`
  })
  return [
    `fuzz ${label}: seed ${report.seed} (set FUZZ_SEED to replay another), ${report.requests} requests over ${report.stats.length} operations in ${(report.millis / 1000).toFixed(1)} s (${(report.generationMillis / 1000).toFixed(1)} s generating), ${report.violations.length} violations`,
    ...[...report.excused].map(([id, n]) => `  excused as KNOWN ${id} (fuzz/Known.ts): ${n}`),
    ...(report.uncheckedFormats.length > 0
      ? [`  formats not checked: ${report.uncheckedFormats.join(", ")}`]
      : []),
    ...lines
  ].join("\n")
}

/**
 * The violations as a readable list, capped: one entry per distinct
 * (operation, status, first problem), with how often it happened.
 */
export const formatViolations = (violations: ReadonlyArray<Violation>, cap = 20): string => {
  const groups = new Map<string, { first: Violation; count: number }>()
  for (const v of violations) {
    const key = `${v.op.id}|${v.response.split(" ")[0]}|${(v.problems[0] ?? "").replace(/\{.*\}/, "")}`
    const g = groups.get(key)
    if (g === undefined) groups.set(key, { first: v, count: 1 })
    else g.count++
  }
  const entries = [...groups.values()]
  return [
    `${violations.length} responses broke the document (${entries.length} distinct):`,
    ...entries
      .slice(0, cap)
      .map(({ first, count }, i) =>
        [
          `${i + 1}. ${first.op.id} (${first.op.method} ${first.op.path}) ×${count}`,
          `   request:  ${first.request}`,
          `   response: ${first.response}`,
          ...first.problems.map((p) => `   - ${p}`)
        ].join("\n")
      ),
    ...(entries.length > cap ? [`… and ${entries.length - cap} more distinct violations`] : [])
  ].join("\n")
}
