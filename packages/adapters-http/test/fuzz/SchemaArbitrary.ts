/**
 * fast-check arbitraries of values that a JSON Schema of the served document
 * accepts (`validOf`), and of values it refuses (`invalidOf`: a property of the
 * wrong type, a required one missing, an unexpected one, a huge string, deep
 * nesting). Request bodies are generated from the document's own schemas, so
 * a body field added to the contract is fuzzed without a change here.
 */
import * as fc from "fast-check"
import { deref, type JsonSchema, type OpenApiDocument } from "./Document.ts"

const isObject = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const asSchema = (u: unknown): JsonSchema => (isObject(u) ? (u as JsonSchema) : {})

const numberOr = (u: unknown, fallback: number): number => (typeof u === "number" ? u : fallback)

/**
 * Webhook or other URLs in generated bodies point at `.invalid` (RFC 2606: never
 * resolves), so that a valid body never makes the server call a real host.
 */
const Urls = fc.constantFrom(
  "https://receiver.invalid/hooks/ratings",
  "https://hooks.example.invalid/a?b=c",
  "http://receiver.invalid:8080/x"
)

const isoDateTime = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2035-12-31T23:59:59Z"), noInvalidDate: true })
  .chain((d) =>
    fc.constantFrom(
      d.toISOString(),
      d.toISOString().replace(/\.\d{3}Z$/, "Z"),
      d.toISOString().replace(/\.\d{3}Z$/, "+00:00")
    )
  )

const built = new Map<string, fc.Arbitrary<string>>()

/**
 * A string arbitrary built once per key: fast-check precomputes biased slices
 * when it builds one (a second or more for some units), and the fuzzer would
 * otherwise rebuild the same ones for every operation.
 */
export const once = (key: string, make: () => fc.Arbitrary<string>): fc.Arbitrary<string> => {
  let arbitrary = built.get(key)
  if (arbitrary === undefined) {
    arbitrary = make()
    built.set(key, arbitrary)
  }
  return arbitrary
}

/** Any Unicode scalar value (no lone surrogates, which no UTF-8 request can carry), control characters included. */
export const anyCharacters = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc
    .array(
      fc
        .oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff }))
        .map((c) => String.fromCodePoint(c)),
      { minLength, maxLength }
    )
    .map((cs) => cs.join(""))

const stringOf = (schema: JsonSchema, name: string): fc.Arbitrary<string> => {
  const minLength = numberOr(schema.minLength, 0)
  const maxLength = Math.min(numberOr(schema.maxLength, 40), Math.max(minLength, 40))
  const fits = (s: string) => s.length >= minLength && s.length <= numberOr(schema.maxLength, Infinity)
  if (typeof schema.pattern === "string")
    return once(`pattern:${schema.pattern}`, () =>
      fc.stringMatching(new RegExp(schema.pattern as string, "u"))
    ).filter(fits)
  switch (schema.format) {
    case "uuid":
      return fc.uuid()
    case "date-time":
      return isoDateTime
    case "date":
      return isoDateTime.map((s) => s.slice(0, 10))
    case "uri":
    case "url":
      return Urls
    case "email":
      return fc.emailAddress()
  }
  if (/url|uri|endpoint/i.test(name)) return Urls
  return once(`plain:${minLength}:${maxLength}`, () =>
    fc.oneof(
      fc.string({ minLength, maxLength, unit: "grapheme-ascii" }),
      fc.string({ minLength, maxLength, unit: "grapheme" })
    )
  ).filter(fits)
}

const integerOf = (schema: JsonSchema): fc.Arbitrary<number> => {
  const min = Math.max(numberOr(schema.minimum, -1_000_000), Number.MIN_SAFE_INTEGER)
  const max = Math.min(numberOr(schema.maximum, 1_000_000), Number.MAX_SAFE_INTEGER)
  const lo = typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : min
  const hi = typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : max
  return fc.oneof(
    { arbitrary: fc.integer({ min: lo, max: Math.min(hi, lo + 1000) }), weight: 3 },
    { arbitrary: fc.integer({ min: lo, max: hi }), weight: 1 },
    { arbitrary: fc.constantFrom(lo, hi), weight: 1 }
  )
}

const numberOf = (schema: JsonSchema): fc.Arbitrary<number> => {
  const min = numberOr(schema.minimum, -1e9)
  const max = numberOr(schema.maximum, 1e12)
  return fc.oneof(
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.constantFrom(min, max)
  )
}

/** Values the schema accepts. `name` is the property the value is for (a hint for URLs). */
export const validOf = (doc: OpenApiDocument, raw: unknown, name = "", depth = 0): fc.Arbitrary<unknown> => {
  const schema = asSchema(deref(doc, raw))
  if ("const" in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Array<unknown>))
  const alternatives = (schema.anyOf ?? schema.oneOf) as ReadonlyArray<unknown> | undefined
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s) => validOf(doc, s, name, depth)))
  if (Array.isArray(schema.allOf)) {
    const merged: { [key: string]: unknown } = {}
    for (const part of schema.allOf) Object.assign(merged, asSchema(deref(doc, part)))
    return validOf(doc, merged, name, depth)
  }
  if (Array.isArray(schema.type))
    return fc.oneof(
      ...(schema.type as Array<string>).map((type) => validOf(doc, { ...schema, type }, name, depth))
    )
  switch (schema.type) {
    case "string":
      return stringOf(schema, name)
    case "integer":
      return integerOf(schema)
    case "number":
      return numberOf(schema)
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array": {
      const minLength = numberOr(schema.minItems, 0)
      const maxLength = Math.max(minLength, Math.min(numberOr(schema.maxItems, 4), depth > 3 ? minLength : 4))
      return fc.array(validOf(doc, schema.items, name, depth + 1), { minLength, maxLength })
    }
    case "object":
      return objectOf(doc, schema, depth)
  }
  if (isObject(schema.properties)) return objectOf(doc, schema, depth)
  // Any value: small JSON.
  return fc.jsonValue({ maxDepth: 2 })
}

const objectOf = (doc: OpenApiDocument, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? (schema.required as ReadonlyArray<string>) : []
  const model: { [key: string]: fc.Arbitrary<unknown> } = {}
  for (const [key, sub] of Object.entries(properties)) model[key] = validOf(doc, sub, key, depth + 1)
  return fc.record(model, { requiredKeys: required.filter((k) => k in model) })
}

/** A value of another JSON type than the schema's (as far as the schema names one). */
const wrongTypeOf = (doc: OpenApiDocument, raw: unknown): fc.Arbitrary<unknown> => {
  const schema = asSchema(deref(doc, raw))
  const allowed = new Set<string>()
  const collect = (s: JsonSchema) => {
    if (typeof s.type === "string") allowed.add(s.type)
    if (Array.isArray(s.type)) for (const t of s.type) allowed.add(String(t))
    for (const alt of [...((s.anyOf ?? []) as Array<unknown>), ...((s.oneOf ?? []) as Array<unknown>)])
      collect(asSchema(deref(doc, alt)))
    if (Array.isArray(s.enum)) for (const v of s.enum) allowed.add(v === null ? "null" : typeof v)
  }
  collect(schema)
  if (allowed.has("integer")) allowed.add("number")
  const candidates: Array<[string, unknown]> = [
    ["string", "not-the-right-type"],
    ["number", 12.5],
    ["integer", -7],
    ["boolean", true],
    ["null", null],
    ["array", ["x", 1]],
    ["object", { nested: "object" }]
  ]
  const wrong = candidates.filter(([type]) => !allowed.has(type)).map(([, v]) => v)
  return wrong.length === 0 ? fc.constant(Symbol.for("unrepresentable")) : fc.constantFrom(...wrong)
}

/** A JSON body as sent, with a note on how it breaks the schema (for the failure list). */
export interface BodyCase {
  readonly note: string
  readonly body: string
  readonly contentType: string | undefined
  /** The body holds a JSON number beyond a double (`1e400`): no route may accept it. */
  readonly nonFinite?: true
}

const deeplyNested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)

/**
 * Bodies the schema refuses, derived from a valid one: each mutation names
 * what it breaks. Transport-level oddities (not JSON, wrong content type,
 * empty, huge, deeply nested) are here too.
 */
export const invalidBodyOf = (
  doc: OpenApiDocument,
  raw: unknown,
  mediaType: string
): fc.Arbitrary<BodyCase> => {
  const schema = asSchema(deref(doc, raw))
  const properties = isObject(schema.properties) ? Object.keys(schema.properties) : []
  const required = Array.isArray(schema.required) ? (schema.required as ReadonlyArray<string>) : []
  const valid = validOf(doc, schema)
  const json = (note: string, value: unknown): BodyCase => ({
    note,
    body: JSON.stringify(value),
    contentType: mediaType
  })
  const withObject =
    <A>(f: (o: { [key: string]: unknown }) => A) =>
    (v: unknown) =>
      f({ ...(v as object) })
  const mutations: Array<fc.Arbitrary<BodyCase>> = [
    fc.constantFrom<BodyCase>(
      { note: "not JSON", body: "{", contentType: mediaType },
      { note: "not JSON", body: "nonce=1&protocol_name=x", contentType: mediaType },
      { note: "not JSON", body: "{'single': 'quotes'}", contentType: mediaType },
      { note: "not JSON (trailing comma)", body: '{"a":1,}', contentType: mediaType },
      { note: "empty body", body: "", contentType: mediaType },
      { note: "JSON null", body: "null", contentType: mediaType },
      { note: "JSON array", body: "[]", contentType: mediaType },
      { note: "JSON string", body: '"text"', contentType: mediaType },
      { note: "JSON number", body: "42", contentType: mediaType },
      { note: "invalid UTF-8 escape", body: '{"a":"\\ud800"}', contentType: mediaType },
      { note: "deep nesting (arrays, 5000)", body: deeplyNested(5000), contentType: mediaType },
      { note: "deep nesting (objects, 5000)", body: deepObject(5000), contentType: mediaType }
    ),
    // The right body under the wrong (or no) content type.
    fc
      .tuple(
        valid,
        fc.constantFrom(
          undefined,
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "application/json; charset=utf-16",
          "application/jsonx",
          "*/*",
          "garbage"
        )
      )
      .map(([v, contentType]) => ({
        note: `content type ${contentType ?? "(none)"}`,
        body: JSON.stringify(v),
        contentType
      }))
  ]
  if (required.length > 0)
    mutations.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([v, key]) =>
        withObject((o) => {
          delete o[key]
          return json(`missing required ${key}`, o)
        })(v)
      )
    )
  if (properties.length > 0) {
    const props = schema.properties as { readonly [key: string]: unknown }
    mutations.push(
      fc
        .constantFrom(...properties)
        .chain((key) => fc.tuple(valid, fc.constant(key), wrongTypeOf(doc, props[key])))
        .filter(([, , wrong]) => typeof wrong !== "symbol")
        .map(([v, key, wrong]) =>
          withObject((o) => json(`${key} of the wrong type`, { ...o, [key]: wrong }))(v)
        ),
      fc
        .tuple(valid, fc.constantFrom(...properties), fc.constantFrom(100_000, 1_000_000))
        .map(([v, key, size]) =>
          withObject((o) => json(`${key} a ${size}-character string`, { ...o, [key]: "x".repeat(size) }))(v)
        ),
      fc.tuple(valid, fc.constantFrom(...properties)).map(([v, key]) =>
        withObject((o) => ({
          note: `${key} nested 3000 deep`,
          body: JSON.stringify({ ...o, [key]: 0 }).replace(`"${key}":0`, `"${key}":${deeplyNested(3000)}`),
          contentType: mediaType
        }))(v)
      )
    )
  }
  if (schema.additionalProperties === false)
    mutations.push(
      fc.tuple(valid, fc.constantFrom("unexpected", "__proto__", "constructor", "Nonce")).map(([v, key]) =>
        withObject((o) => ({
          note: `extra key ${key}`,
          body: JSON.stringify(o).replace(
            /^\{/,
            `{${JSON.stringify(key)}:1${Object.keys(o).length > 0 ? "," : ""}`
          ),
          contentType: mediaType
        }))(v)
      )
    )
  return fc.oneof(...mutations)
}

/** JSON numbers that `JSON.parse` reads as ±Infinity, as a client writes them. */
export const NonFiniteNumbers = [
  "1e400",
  "-1e400",
  "1E+999",
  "-1e309",
  "1.5e99999",
  "123456789e301",
  "9".repeat(400),
  "-0.5e500"
] as const

const Placeholder = "__non_finite_number__"

/**
 * Bodies holding a number beyond a double (issue 13: such a body was an empty
 * 500), derived from a valid one: the whole body, in an array, as the value
 * of a property (in place of a valid one, nested in arrays or in an object),
 * as an unexpected key's value, and many at once. `JSON.stringify` cannot
 * write one, so a placeholder string is replaced by the number's text.
 */
export const nonFiniteBodyOf = (
  doc: OpenApiDocument,
  raw: unknown,
  mediaType: string
): fc.Arbitrary<BodyCase> => {
  const schema = asSchema(deref(doc, raw))
  const properties = isObject(schema.properties) ? Object.keys(schema.properties) : []
  const valid = validOf(doc, schema)
  const nf = fc.constantFrom(...NonFiniteNumbers)
  const body = (note: string, value: unknown, n: string): BodyCase => ({
    note: `non-finite number ${n}: ${note}`,
    body: JSON.stringify(value).replaceAll(`"${Placeholder}"`, n),
    contentType: mediaType,
    nonFinite: true
  })
  const placings: Array<readonly [string, (v: unknown, key: string) => unknown]> = [
    ["as a property", (v, key) => ({ ...(v as object), [key]: Placeholder })],
    ["in an array", (v, key) => ({ ...(v as object), [key]: [Placeholder] })],
    ["nested in arrays", (v, key) => ({ ...(v as object), [key]: [1, [[Placeholder], 2]] })],
    ["as an object's value", (v, key) => ({ ...(v as object), [key]: { value: Placeholder } })],
    ["as an unexpected key's value", (v) => ({ ...(v as object), unexpected: Placeholder })]
  ]
  const cases: Array<fc.Arbitrary<BodyCase>> = [
    nf.map((n) => body("the whole body", Placeholder, n)),
    nf.map((n) => body("in a top-level array", [Placeholder, 1], n)),
    nf.map((n) => body("many at once", Array(100).fill(Placeholder), n))
  ]
  if (properties.length > 0)
    cases.push(
      fc
        .tuple(valid, fc.constantFrom(...properties), fc.constantFrom(...placings), nf)
        .map(([v, key, [where, place], n]) => body(`${where} (${key})`, place(v, key), n))
    )
  return fc.oneof(...cases)
}
