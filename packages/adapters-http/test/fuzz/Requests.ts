/**
 * fast-check arbitraries of whole HTTP requests for one documented operation:
 * path segments, query parameters, credentials, Accept and body, each valid or
 * broken in the ways clients really break them (out of range, wrong type,
 * empty, repeated, unicode, very long, a raw `+` against `%2B`, percent-encoding
 * junk, encoded slashes and `..`, garbage Authorization values, wrong content
 * types). Everything is derived from the operation's schemas in the served
 * document, plus hints (fixture slugs and ids, ids the server handed out) so
 * that valid requests reach real records, not only 404s.
 *
 * Requests are plain data: the wire form (`target` is the raw request-target,
 * already percent-encoded) and what credentials to send, resolved when sent.
 */
import * as fc from "fast-check"
import type { JsonSchema, OpenApiDocument, Operation, Parameter } from "./Document.ts"
import {
  anyCharacters,
  type BodyCase,
  invalidBodyOf,
  nonFiniteBodyOf,
  once,
  validOf
} from "./SchemaArbitrary.ts"

/** Who the request claims to be. Fixture callers and fresh keys are resolved to real credentials when sent. */
export type Credentials =
  | { readonly _tag: "None" }
  | { readonly _tag: "Caller"; readonly caller: string }
  | { readonly _tag: "FreshKey"; readonly tier: string }
  /** A fixture caller's credential, mangled (lower-case scheme, no scheme, extra token, sent twice...). */
  | { readonly _tag: "Mangled"; readonly caller: string; readonly how: Mangling }
  | { readonly _tag: "Raw"; readonly value: string }

export const Manglings = [
  "lower-case scheme",
  "upper-case scheme",
  "no scheme",
  "double space",
  "trailing space",
  "truncated",
  "extra token",
  "sent twice"
] as const
export type Mangling = (typeof Manglings)[number]

export interface FuzzRequest {
  readonly method: string
  /** The raw request-target: path and query, percent-encoded as sent (or deliberately not). */
  readonly target: string
  readonly credentials: Credentials
  readonly headers: { readonly [name: string]: string }
  readonly body: BodyCase | undefined
}

/** What the generators draw on besides the schemas. */
export interface Hints {
  /** Fixture entities; `visible` when an anonymous caller may see them (published, active, public). */
  readonly entities: ReadonlyArray<{
    readonly type: string
    readonly slug: string
    readonly id: string
    readonly visible: boolean
  }>
  /** Fixture scorecards, by entity type. */
  readonly scorecards: ReadonlyArray<{
    readonly type: string
    readonly id: string
    readonly published: boolean
  }>
  /** Ids the server handed out when records were created before the run (rules, deliveries...). */
  readonly learnedIds: ReadonlyArray<string>
  /** Other names the fixtures use, not records of their own (the chains entities are deployed on). */
  readonly names: ReadonlyArray<string>
  /** The fixture callers' names (CallerName) and the key tiers a fresh key can have. */
  readonly callers: ReadonlyArray<string>
  readonly tiers: ReadonlyArray<string>
}

const enc = encodeURIComponent

/** Raw fragments that are not valid percent-encoding, or decode to something odd. */
const PercentJunk = [
  "%",
  "%zz",
  "%C0%AF",
  "%FF%FE",
  "%00",
  "%E2%82",
  "%25",
  "%%41",
  "%u0041",
  "%0A",
  "%0d%0a"
]

const Unicode = ["ünïcödé", "名前", "١٢٣", "５０", "🦄", "e\u0301", "\u202Eevil", "\uFEFF1", "ǅ"]

const longOf = (n: number) => fc.constantFrom("a".repeat(n), "9".repeat(n), "é".repeat(n))

/** Words of a parameter's description: where the document lists allowed values (fields, statuses). */
const wordsOf = (description: unknown): ReadonlyArray<string> =>
  typeof description === "string"
    ? [...new Set(description.match(/\b[a-z][a-z0-9_]{2,}\b/g) ?? [])].filter((w) => !StopWords.has(w))
    : []
const StopWords = new Set([
  "the",
  "and",
  "from",
  "with",
  "only",
  "any",
  "for",
  "that",
  "list",
  "this",
  "are",
  "not"
])

const schemaType = (schema: JsonSchema): string | undefined =>
  typeof schema.type === "string"
    ? schema.type
    : Array.isArray(schema.type)
      ? String(schema.type.find((t) => t !== "null"))
      : undefined

/** A value as a query string carries it (before encoding). */
const toQueryValue = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)

/**
 * Plain strings that look like what a client would send. A parameter named
 * for ids or slugs gets fixture names: one, or a list of one type (compare
 * ids); any other gets the words its description lists (fields, statuses),
 * alone or a few joined by commas. Either way, sometimes the other kind, a
 * list longer than any documented maximum, or anything.
 */
const hintedString = (hints: Hints, p: Parameter): fc.Arbitrary<string> => {
  const words = wordsOf(p.description)
  const names = [...hints.entities.flatMap((e) => [e.slug, e.id]), ...hints.names]
  const types = [...new Set(hints.entities.filter((e) => e.visible).map((e) => e.type))]
  const namesFirst = /id|slug/i.test(p.name) || words.length === 0
  const listOfOneType = fc
    .constantFrom(...types)
    .chain((type) =>
      fc.subarray(
        hints.entities.filter((e) => e.type === type && e.visible).flatMap((e) => [e.slug, e.id]),
        { minLength: 1, maxLength: 4 }
      )
    )
    .map((xs) => xs.join(","))
  const options: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: fc.constantFrom(...names), weight: namesFirst ? 4 : 1 },
    {
      arbitrary: fc
        .array(fc.constantFrom(...names), { minLength: 26, maxLength: 30 })
        .map((xs) => xs.join(",")),
      weight: 1
    },
    { arbitrary: once("short", () => fc.string({ maxLength: 12 })), weight: 1 }
  ]
  if (types.length > 0) options.push({ arbitrary: listOfOneType, weight: namesFirst ? 8 : 1 })
  if (words.length > 0)
    options.push(
      { arbitrary: fc.constantFrom(...words), weight: namesFirst ? 1 : 4 },
      {
        arbitrary: fc.subarray([...words], { minLength: 1, maxLength: 3 }).map((xs) => xs.join(",")),
        weight: namesFirst ? 1 : 8
      }
    )
  return fc.oneof(...options)
}

/** Query fragments (`name=value`, raw) for a valid value of the parameter. */
const validQuery = (doc: OpenApiDocument, p: Parameter, hints: Hints) => {
  const type = schemaType(p.schema)
  const plain =
    type === "string" &&
    p.schema.enum === undefined &&
    p.schema.pattern === undefined &&
    p.schema.format === undefined
  const values: fc.Arbitrary<unknown> = plain
    ? hintedString(hints, p)
    : type === "array" && schemaType((p.schema.items ?? {}) as JsonSchema) === "string"
      ? fc.array(hintedString(hints, p), { minLength: 1, maxLength: 3 })
      : validOf(doc, p.schema, p.name)
  return values.map((v) =>
    (Array.isArray(v) ? v : [v]).map((x) => `${enc(p.name)}=${enc(toQueryValue(x))}`).join("&")
  )
}

/** Query fragments for a value the parameter's schema refuses, or an odd way of sending it. */
const invalidQuery = (p: Parameter) => {
  const name = enc(p.name)
  const schema = p.schema
  const type = schemaType(schema)
  const raw = (values: ReadonlyArray<string>) => fc.constantFrom(...values).map((v) => `${name}=${v}`)
  const encoded = (values: fc.Arbitrary<string>) => values.map((v) => `${name}=${enc(v)}`)
  const typed: Array<fc.Arbitrary<string>> = []
  if (type === "integer" || type === "number") {
    const min = typeof schema.minimum === "number" ? schema.minimum : undefined
    const max = typeof schema.maximum === "number" ? schema.maximum : undefined
    typed.push(
      raw([
        ...(min === undefined ? [] : [String(min), String(min - 1)]),
        ...(max === undefined ? [] : [String(max), String(max + 1), String(max * 10)]),
        "-1",
        "0",
        "1.5",
        "1e2",
        "1e400",
        "0x10",
        "99999999999999999999999",
        "-9007199254740993",
        "NaN",
        "Infinity",
        "-0",
        "abc",
        "true",
        "null",
        "%20%201",
        "1%20",
        "+1",
        "%2B1",
        "1,2",
        "%EF%BC%95"
      ])
    )
  }
  if (type === "boolean")
    typed.push(raw(["TRUE", "True", "1", "0", "yes", "on", "truee", "t", "null", "%20true", "true%00"]))
  if (Array.isArray(schema.enum))
    typed.push(
      encoded(
        fc
          .constantFrom(...schema.enum.map(String))
          .chain((v) =>
            fc.constantFrom(v.toUpperCase(), ` ${v}`, `${v} `, `${v}s`, `${v},${v}`, v.slice(0, -1))
          )
      ),
      raw(["bogus", "%00"])
    )
  if (typeof schema.pattern === "string" || schema.format === "uuid")
    typed.push(
      raw([
        "not-a-uuid",
        "00000000-0000-0000-0000-00000000000",
        "00000000000040008000000000000001",
        "UPPER-Case",
        "a%2Fb",
        "..",
        "%20"
      ])
    )
  if (schema.format === "date-time")
    typed.push(
      raw([
        "2026-01-01T00:00:00+00:00",
        "2026-01-01T00:00:00%2B00:00",
        "2026-01-01T00:00:00%2B00%3A00",
        "2026-01-01",
        "2026-01-01T00:00:00",
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00.123456789Z",
        "2026-01-01T00:00Z",
        "20260101T000000Z",
        "yesterday",
        "1700000000",
        "-000001-01-01T00:00:00Z",
        "%2B275760-09-13T00:00:00Z"
      ])
    )
  const generic: Array<fc.Arbitrary<string>> = [
    raw(["", "%20", "+", "%2B", "a+b", "a%2Bb", "null", "undefined", "[]", "{}", "%5B%5D"]),
    fc.constant(name),
    raw(PercentJunk),
    encoded(fc.constantFrom(...Unicode)),
    encoded(once("graphemes:0:20", () => fc.string({ unit: "grapheme", maxLength: 20 }))),
    encoded(longOf(2000)),
    encoded(anyCharacters(0, 10))
  ]
  return fc.oneof(...typed, ...typed, ...generic)
}

/**
 * The query string of a request: each parameter omitted, valid, invalid or
 * repeated; sometimes unknown ones. A clean query has only valid parameters
 * (and every required one).
 */
const queryOf = (doc: OpenApiDocument, op: Operation, hints: Hints, clean: boolean): fc.Arbitrary<string> => {
  const params = op.parameters.filter((p) => p.in === "query")
  const parts = params.map((p) => {
    const valid = validQuery(doc, p, hints)
    if (clean)
      return p.required
        ? valid
        : fc.oneof({ arbitrary: fc.constant(""), weight: 1 }, { arbitrary: valid, weight: 2 })
    return fc.oneof(
      { arbitrary: fc.constant(""), weight: p.required ? 1 : 4 },
      { arbitrary: valid, weight: 12 },
      { arbitrary: invalidQuery(p), weight: 3 },
      { arbitrary: fc.tuple(valid, valid).map(([a, b]) => `${a}&${b}`), weight: 1 },
      {
        arbitrary: valid.map((v) => v.replace(/^[^=]*/, (n) => n.toUpperCase())),
        weight: 1
      }
    )
  })
  const unknown = fc.oneof(
    { arbitrary: fc.constant(""), weight: 12 },
    {
      arbitrary: fc.constantFrom(
        "foo=bar",
        "__proto__=1",
        "&&&",
        "=",
        "=x",
        "a=1&a=2",
        "%zz=1",
        "x".repeat(1000) + "=1"
      ),
      weight: 1
    }
  )
  return fc
    .tuple(fc.tuple(...parts), clean ? fc.constant("") : unknown, fc.boolean())
    .chain(([fragments, extra, shuffle]) => {
      const all = [...fragments, extra].filter((f) => f !== "")
      return (shuffle ? fc.shuffledSubarray(all, { minLength: all.length }) : fc.constant(all)).map((xs) =>
        xs.length === 0 ? "" : `?${xs.join("&")}`
      )
    })
}

/**
 * A path segment (raw, as sent) for a path parameter. Valid ones name real
 * records of the route's type where the path says which (`/protocols/...`,
 * `/chain-scorecards/...`), mostly visible ones, so that success paths are
 * fuzzed as much as refusals.
 */
const segmentOf = (
  doc: OpenApiDocument,
  op: Operation,
  p: Parameter,
  hints: Hints,
  clean: boolean
): fc.Arbitrary<string> => {
  const ofRoute = <A extends { readonly type: string }>(xs: ReadonlyArray<A>) => {
    const related = xs.filter((x) => op.path.includes(`/${x.type}`))
    return related.length > 0 ? related : xs
  }
  const entities = ofRoute(hints.entities)
  const name = p.name.toLowerCase()
  const slugOnly = name.includes("slug") && !name.includes("id")
  const namesOf = (es: ReadonlyArray<Hints["entities"][number]>) =>
    es.flatMap((e) => (slugOnly ? [e.slug] : [e.slug, e.id]))
  const visible = namesOf(entities.filter((e) => e.visible))
  const hidden = namesOf(entities.filter((e) => !e.visible))
  const cards = ofRoute(hints.scorecards)
  const fixtures = [...hints.entities.flatMap((e) => [e.slug, e.id]), ...hints.scorecards.map((c) => c.id)]
  const options: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: fc.constantFrom(...fixtures), weight: 1 },
    { arbitrary: validOf(doc, p.schema, p.name).map((v) => enc(toQueryValue(v))), weight: 1 },
    { arbitrary: fc.uuid(), weight: 1 }
  ]
  if (visible.length > 0)
    options.push({ arbitrary: fc.constantFrom(...visible), weight: name.includes("scorecard") ? 1 : 6 })
  if (hidden.length > 0) options.push({ arbitrary: fc.constantFrom(...hidden), weight: 2 })
  const published = cards.filter((c) => c.published).map((c) => c.id)
  if (name.includes("scorecard") && published.length > 0)
    options.push({ arbitrary: fc.constantFrom(...published), weight: 6 })
  if (name.includes("scorecard") && cards.length > 0)
    options.push({ arbitrary: fc.constantFrom(...cards.map((c) => c.id)), weight: 2 })
  if (hints.learnedIds.length > 0)
    options.push({ arbitrary: fc.constantFrom(...hints.learnedIds), weight: 4 })
  const valid = fc.oneof(...options).filter((segment) => segment !== "")
  if (clean) return valid
  const invalid = fc.oneof(
    fc.constantFrom(
      "..",
      ".",
      "%2e%2e",
      "%2E",
      "a%2Fb",
      "%2F",
      "..%2F..%2Fetc%2Fpasswd",
      "%5C..%5C",
      "%20",
      "+",
      "%2B",
      ";",
      "a;b=c",
      "*",
      "'",
      "%27%20OR%201%3D1--",
      "%3Cscript%3E",
      "%23",
      "%3F",
      "null",
      "undefined",
      "00000000-0000-0000-0000-000000000000",
      "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
      "00000000-0000-4000-8000-00000000100",
      "00000000000040008000000000001001",
      "{00000000-0000-4000-8000-000000001001}",
      "UPPER-CASE",
      "trailing-",
      "-leading",
      "double--dash",
      "under_score"
    ),
    fc.constantFrom(...PercentJunk),
    fc.constantFrom(...fixtures).map((f) => f.toUpperCase()),
    fc.constantFrom(99, 100, 101, 255).map((n) => "a".repeat(n)),
    fc.constantFrom(...fixtures).map((f) => `${f}%20`),
    fc.constantFrom(...fixtures).map((f) => `${f}%2F..`),
    fc.constantFrom(...Unicode).map(enc),
    once("graphemes:1:30", () => fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 })).map(enc),
    anyCharacters(1, 10).map(enc),
    longOf(1000).map(enc)
  )
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: invalid, weight: 1 })
}

/** A fixture caller's credential or a fresh key of a tier: credentials that work. */
const fixtureCredentialsOf = (hints: Hints, freshWeight: number): fc.Arbitrary<Credentials> =>
  fc.oneof(
    {
      arbitrary: fc.constantFrom(...hints.callers).map((caller): Credentials => ({ _tag: "Caller", caller })),
      weight: 3
    },
    {
      arbitrary: fc.constantFrom(...hints.tiers).map((tier): Credentials => ({ _tag: "FreshKey", tier })),
      weight: Math.max(1, freshWeight / 2)
    }
  )

const credentialsOf = (hints: Hints, freshWeight: number): fc.Arbitrary<Credentials> =>
  fc.oneof(
    { arbitrary: fc.constant<Credentials>({ _tag: "None" }), weight: 3 },
    {
      arbitrary: fc.constantFrom(...hints.callers).map((caller): Credentials => ({ _tag: "Caller", caller })),
      weight: 10
    },
    {
      arbitrary: fc.constantFrom(...hints.tiers).map((tier): Credentials => ({ _tag: "FreshKey", tier })),
      weight: freshWeight
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...hints.callers), fc.constantFrom(...Manglings))
        .map(([caller, how]): Credentials => ({ _tag: "Mangled", caller, how })),
      weight: 1
    },
    {
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            "",
            " ",
            "Bearer",
            "Bearer ",
            "Bearer  ",
            "Basic dXNlcjpwYXNz",
            "Digest username=x",
            "Token abc",
            "Bearer null",
            "Bearer undefined",
            "Bearer rk_",
            "Bearer rk_live_0000",
            "Bearer a.b.c",
            "Bearer eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ.",
            "Bearer eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJl",
            "Bearer ..",
            "Bearer \u00ff\u00fe\u00e9",
            "Bearer rk_\u00e9\u00e9"
          ),
          once("ascii:0:60", () => fc.string({ unit: "grapheme-ascii", maxLength: 60 })).map(
            (s) => `Bearer ${s}`
          ),
          once("key-shaped", () => fc.stringMatching(/^rk_[A-Za-z0-9_-]{10,60}$/)).map((s) => `Bearer ${s}`),
          fc.constantFrom(1000, 4000).map((n) => `Bearer ${"A".repeat(n)}`)
        )
        .map((value): Credentials => ({ _tag: "Raw", value: value.replace(/[\r\n]/g, "") })),
      weight: 2
    }
  )

const acceptOf = fc.oneof(
  { arbitrary: fc.constant<string | undefined>("application/json"), weight: 6 },
  { arbitrary: fc.constant<string | undefined>(undefined), weight: 3 },
  {
    arbitrary: fc.constantFrom<string | undefined>(
      "*/*",
      "text/csv",
      "text/html",
      "application/xml",
      "",
      "garbage/",
      ";;;",
      "application/json;q=0",
      "text/*",
      "application/*;q=0.1, text/csv",
      "image/png",
      "application/problem+json"
    ),
    weight: 3
  }
)

/** Headers beside Authorization, Accept and Content-Type that clients and proxies send. */
const extraHeadersOf = fc.oneof(
  { arbitrary: fc.constant({}), weight: 12 },
  {
    arbitrary: fc.constantFrom<{ readonly [name: string]: string }>(
      { origin: "https://evil.example" },
      { "x-forwarded-for": "not-an-ip, 999.1.1.1" },
      { "if-none-match": "*" },
      { "if-modified-since": "garbage" },
      { range: "bytes=0-10" },
      { "accept-encoding": "gzip, br" },
      { "accept-language": "\u00e9\u00e9" },
      { cookie: "session=abc; x" },
      { "x-api-key": "rk_wrong" }
    ),
    weight: 1
  }
)

/**
 * Header parameters the document declares besides Authorization (which
 * `credentialsOf` covers): omitted, valid, or junk that Node still lets through.
 */
const headerParamsOf = (
  doc: OpenApiDocument,
  op: Operation
): fc.Arbitrary<{ readonly [name: string]: string }> => {
  const params = op.parameters.filter((p) => p.in === "header" && p.name.toLowerCase() !== "authorization")
  const sendable = (v: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)
  return fc
    .tuple(
      ...params.map((p) =>
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: p.required ? 1 : 3 },
          { arbitrary: validOf(doc, p.schema, p.name).map(toQueryValue).filter(sendable), weight: 6 },
          { arbitrary: fc.constantFrom("", " ", "\u00ff", "x".repeat(2000), "null", "-1"), weight: 2 }
        )
      )
    )
    .map((values) => {
      const headers: { [name: string]: string } = {}
      values.forEach((v, i) => {
        if (v !== undefined) headers[params[i]!.name.toLowerCase()] = v
      })
      return headers
    })
}

/** How many fresh-key credentials to draw, relative to the others: many for the quota'd export routes. */
export interface RequestOptions {
  readonly freshKeyWeight: number
}

/** Every way of calling one operation. */
export const requestsOf = (
  doc: OpenApiDocument,
  op: Operation,
  hints: Hints,
  options: RequestOptions
): fc.Arbitrary<FuzzRequest> => {
  const jsonMediaType = op.requestBody
    ? (Object.keys(op.requestBody.content).find((m) => /json/i.test(m)) ??
      Object.keys(op.requestBody.content)[0])
    : undefined
  const bodySchema = jsonMediaType === undefined ? undefined : op.requestBody?.content[jsonMediaType]?.schema
  const validBody =
    jsonMediaType === undefined
      ? fc.constant(undefined)
      : validOf(doc, bodySchema ?? {}).map(
          (v): BodyCase => ({ note: "valid body", body: JSON.stringify(v), contentType: jsonMediaType })
        )
  const anyBody: fc.Arbitrary<BodyCase | undefined> =
    jsonMediaType === undefined
      ? fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 30 },
          {
            arbitrary: fc.constantFrom<BodyCase>(
              { note: "unexpected JSON body", body: '{"a":1}', contentType: "application/json" },
              { note: "unexpected body, not JSON", body: "{", contentType: "application/json" },
              {
                note: "unexpected JSON body, non-finite number",
                body: '{"a":[1e400,-1E+999]}',
                contentType: "application/json"
              }
            ),
            weight: 1
          }
        )
      : fc.oneof(
          { arbitrary: validBody, weight: 5 },
          { arbitrary: invalidBodyOf(doc, bodySchema ?? {}, jsonMediaType), weight: 4 },
          { arbitrary: nonFiniteBodyOf(doc, bodySchema ?? {}, jsonMediaType), weight: 2 },
          ...(op.requestBody?.required
            ? [{ arbitrary: fc.constant<BodyCase | undefined>(undefined), weight: 1 }]
            : [])
        )
  const requestOf = (clean: boolean) =>
    fc
      .record({
        path: fc
          .tuple(
            ...op.parameters
              .filter((p) => p.in === "path")
              .map((p) => segmentOf(doc, op, p, hints, clean).map((v) => [p.name, v] as const))
          )
          .map((pairs) => pairs.reduce((acc, [name, value]) => acc.replace(`{${name}}`, value), op.path)),
        query: queryOf(doc, op, hints, clean),
        credentials: clean
          ? fixtureCredentialsOf(hints, options.freshKeyWeight)
          : credentialsOf(hints, options.freshKeyWeight),
        accept: clean ? fc.constantFrom<string | undefined>("application/json", undefined) : acceptOf,
        extra: clean ? fc.constant({}) : extraHeadersOf,
        declared: headerParamsOf(doc, op),
        body: clean ? validBody : anyBody
      })
      .map(({ path, query, credentials, accept, extra, declared, body }) => ({
        method: op.method,
        target: path + query,
        credentials,
        headers: { ...extra, ...declared, ...(accept === undefined ? {} : { accept }) },
        body
      }))
  // A body sent with no credentials at all (issue 13: an anonymous body could make a 500), valid or not.
  const anonymousWithBody = requestOf(false).map(
    (req): FuzzRequest => ({ ...req, credentials: { _tag: "None" } })
  )
  // One request in three is clean (every input valid, a real caller), so success paths get their share.
  // Node refuses a request head above 16 KiB (a bare 431 before the application sees it), so targets stay below.
  return fc
    .oneof(
      { arbitrary: requestOf(false), weight: 2 },
      { arbitrary: requestOf(true), weight: 1 },
      ...(jsonMediaType === undefined ? [] : [{ arbitrary: anonymousWithBody, weight: 1 }])
    )
    .filter((req) => req.target.length <= MaxTarget)
}

/** With at most 4 KiB of Authorization, a head under Node's 16 KiB limit. */
const MaxTarget = 10_000
