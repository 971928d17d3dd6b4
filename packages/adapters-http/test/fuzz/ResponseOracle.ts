/**
 * Holds a live response to the served OpenAPI document: the status is one the
 * operation documents (or a documented class or default), the content type is
 * the documented one, the body validates against the documented schema
 * (compiled with ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it), a 5xx never
 * happens, every 4xx says why in a JSON `detail`, no error may be stored and
 * no answer sniffed (`headerProblems`). The schemas are the
 * document's own, so what is checked is what a client generated from
 * /openapi.json would be promised.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js"
import {
  documentedResponse,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
  type ResponseSpec
} from "./Document.ts"

/** What came back for one request. */
export interface Received {
  readonly status: number
  readonly contentType: string | undefined
  readonly text: string
  /** The response's headers, names lower-cased (as node:http gives them). */
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
}

const directivesOf = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  (typeof value === "string" ? [value] : (value ?? []))
    .flatMap((v) => v.split(","))
    .map((d) => d.trim().toLowerCase())

/**
 * What the headers of any answer must say, whatever the route: every answer
 * that is not a success (a 304 aside: it confirms a stored 200 and carries
 * its caching) is `Cache-Control: no-store`, and every answer is
 * `X-Content-Type-Options: nosniff`.
 */
export const headerProblems = (received: Pick<Received, "status" | "headers">): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const { status, headers } = received
  if (status >= 300 && status !== 304 && !directivesOf(headers["cache-control"]).includes("no-store"))
    problems.push(`${status} without Cache-Control: no-store (got ${String(headers["cache-control"])})`)
  if (directivesOf(headers["x-content-type-options"]).join() !== "nosniff")
    problems.push(`no X-Content-Type-Options: nosniff (got ${String(headers["x-content-type-options"])})`)
  return problems
}

/** The base the document's `#/components/...` references are rewritten against. */
const RootId = "urn:ratings:openapi"

const Uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/

/** RFC 3339 date-time (JSON Schema's `date-time`), calendar included: 2026-02-30 is not a date. */
const isDateTime = (s: string): boolean => {
  const m = DateTime.exec(s)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const zone = m[9] === undefined ? true : Number(m[9]) <= 23 && Number(m[10]) <= 59
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 60 && zone
  )
}

/** The formats the fuzzer knows; a format it does not know is reported, never silently waved through. */
const Formats: { readonly [format: string]: (s: string) => boolean } = {
  uuid: (s) => Uuid.test(s),
  "date-time": isDateTime,
  date: (s) => isDateTime(`${s}T00:00:00Z`),
  uri: (s) => URL.canParse(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s)
}

const rewriteRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rewriteRefs)
  if (typeof value !== "object" || value === null) return value
  const out: { [key: string]: unknown } = {}
  for (const [key, inner] of Object.entries(value))
    out[key] =
      key === "$ref" && typeof inner === "string" && inner.startsWith("#/")
        ? RootId + inner
        : rewriteRefs(inner)
  return out
}

const formatsIn = (value: unknown, into: Set<string>): Set<string> => {
  if (Array.isArray(value)) for (const v of value) formatsIn(v, into)
  else if (typeof value === "object" && value !== null)
    for (const [key, inner] of Object.entries(value)) {
      if (key === "format" && typeof inner === "string") into.add(inner)
      formatsIn(inner, into)
    }
  return into
}

/** `type/subtype` lower-cased and its parameters, from a Content-Type value. */
const parseMediaType = (value: string) => {
  const [essence = "", ...rest] = value.split(";")
  const params = new Map<string, string>()
  for (const p of rest) {
    const eq = p.indexOf("=")
    if (eq > 0)
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, "")
          .toLowerCase()
      )
  }
  return { essence: essence.trim().toLowerCase(), params }
}

/** The documented media type a Content-Type matches: same essence, and every documented parameter equal. */
const matchMediaType = (documented: ReadonlyArray<string>, actual: string): string | undefined => {
  const got = parseMediaType(actual)
  return documented.find((key) => {
    const want = parseMediaType(key)
    return (
      want.essence === got.essence &&
      [...want.params].every(([name, value]) => got.params.get(name) === value)
    )
  })
}

const isJsonMediaType = (mediaType: string) => {
  const { essence } = parseMediaType(mediaType)
  return essence === "application/json" || essence.endsWith("+json")
}

/** A `detail` that says something: a non-empty string, array or object. */
const hasDetail = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false
  const detail = (body as { readonly detail?: unknown }).detail
  if (typeof detail === "string") return detail.trim().length > 0
  if (Array.isArray(detail)) return detail.length > 0
  return typeof detail === "object" && detail !== null && Object.keys(detail).length > 0
}

const describeErrors = (errors: ReadonlyArray<ErrorObject> | null | undefined): string =>
  (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
    .join("; ")

export class ResponseOracle {
  private readonly ajv: Ajv2020
  private readonly validators = new Map<JsonSchema, ValidateFunction>()
  /** Formats used by the document that the fuzzer cannot check (printed, so nobody believes they were). */
  readonly uncheckedFormats: ReadonlyArray<string>

  constructor(doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
    const used = formatsIn(doc, new Set())
    for (const [name, check] of Object.entries(Formats))
      this.ajv.addFormat(name, { type: "string", validate: check })
    this.uncheckedFormats = [...used].filter((f) => !(f in Formats))
    for (const f of this.uncheckedFormats) this.ajv.addFormat(f, true)
    this.ajv.addSchema({ $id: RootId, components: rewriteRefs(doc.components ?? {}) })
  }

  private validatorOf(schema: JsonSchema): ValidateFunction {
    let validate = this.validators.get(schema)
    if (validate === undefined) {
      validate = this.ajv.compile(rewriteRefs(schema) as JsonSchema)
      this.validators.set(schema, validate)
    }
    return validate
  }

  /**
   * Everything wrong with a response to the operation; empty when it is as
   * documented. A 304 with no body answers a conditional request (RFC 9110
   * section 13.1): HTTP's own semantics, which an OpenAPI document does not
   * repeat per operation, so it is accepted for a conditional request only.
   */
  check(
    op: Operation,
    received: Received,
    request: { readonly conditional: boolean }
  ): ReadonlyArray<string> {
    const problems: Array<string> = [...headerProblems(received)]
    const { status } = received
    if (status === 304 && request.conditional && documentedResponse(op, 304) === undefined)
      return received.text.length === 0 ? problems : [...problems, "304 with a body"]
    if (status >= 500) problems.push(`server error ${status}`)
    const spec: ResponseSpec | undefined = documentedResponse(op, status)
    if (spec === undefined) {
      problems.push(
        `status ${status} is not documented (documented: ${Object.keys(op.responses).join(", ")})`
      )
    }
    let json: unknown
    let isJson = false
    if (received.contentType !== undefined && isJsonMediaType(received.contentType)) {
      try {
        json = JSON.parse(received.text)
        isJson = true
      } catch {
        problems.push(`Content-Type ${received.contentType} but the body is not JSON`)
      }
    }
    if (spec !== undefined) {
      const content = spec.content ?? {}
      const documented = Object.keys(content)
      if (documented.length === 0) {
        if (received.text.length > 0) problems.push(`status ${status} is documented without a body, got one`)
      } else if (received.contentType === undefined) {
        problems.push(`no Content-Type (documented: ${documented.join(", ")})`)
      } else {
        const matched = matchMediaType(documented, received.contentType)
        if (matched === undefined) {
          problems.push(
            `Content-Type ${received.contentType} is not documented (documented: ${documented.join(", ")})`
          )
        } else {
          const schema = content[matched]?.schema
          if (schema !== undefined && (isJson || !isJsonMediaType(matched))) {
            const validate = this.validatorOf(schema)
            if (!validate(isJsonMediaType(matched) ? json : received.text))
              problems.push(`body does not match the schema: ${describeErrors(validate.errors)}`)
          }
        }
      }
    }
    if (status >= 400 && status < 500 && !(isJson && hasDetail(json)))
      problems.push(`${status} without a JSON body whose detail says why`)
    return problems
  }
}
