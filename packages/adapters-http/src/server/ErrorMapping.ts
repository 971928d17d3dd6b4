/**
 * How failures become responses, in one place: the domain's read errors map to
 * the contract's error classes (404, 401, 403, 503), and every decode failure
 * of a parameter, path segment, header or body becomes one 422 with a
 * FastAPI-style body through the ValidationErrors middleware. Decode failures
 * would otherwise be an empty 400; bad input is never a 500.
 */
import type { InsufficientTier, MissingKey } from "@ratings/domain/access/Capabilities"
import type { ValidationIssue } from "@ratings/domain/model/ErrorBodies"
import { NonFiniteNumberMessage, nonFiniteNumbers } from "@ratings/domain/model/JsonNumbers"
import type { StoreError } from "@ratings/domain/ports/StoreError"
import type { NotFound } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer, type SchemaAST, SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import {
  FiniteNumbers,
  InsufficientTierError,
  MissingKeyError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
  ValidationErrors
} from "../api/Errors.ts"
import { type ValidationRule, validationRuleOf } from "../api/Parameters.ts"

export type ReadError = NotFound | MissingKey | InsufficientTier | StoreError
export type ReadHttpError = NotFoundError | MissingKeyError | InsufficientTierError | ServiceUnavailableError

/**
 * A domain read error as the contract's error. A store failure is logged with
 * its message here and answered 503 with a body that says nothing of it.
 */
export const toHttpError = (error: ReadError): Effect.Effect<never, ReadHttpError> => {
  switch (error._tag) {
    case "NotFound":
      return Effect.fail(NotFoundError.instance)
    case "MissingKey":
      return Effect.fail(MissingKeyError.instance)
    case "InsufficientTier":
      return Effect.fail(
        new InsufficientTierError({
          detail: { error: "insufficient_tier", required_tier: error.required_tier, tier: error.tier }
        })
      )
    case "StoreError":
      return Effect.logError("Store failure answered 503", error.message).pipe(
        Effect.andThen(Effect.fail(ServiceUnavailableError.instance))
      )
  }
}

/** The contract error each domain read error becomes; other errors stay as they are. */
export type HttpErrorOf<E> = E extends NotFound
  ? NotFoundError
  : E extends MissingKey
    ? MissingKeyError
    : E extends InsufficientTier
      ? InsufficientTierError
      : E extends StoreError
        ? ServiceUnavailableError
        : E

/** Maps the read errors of a use case, so a route declares exactly the errors its use case can give. */
export const mapReadErrors = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, HttpErrorOf<E>, R> =>
  Effect.catchIf(
    effect as Effect.Effect<A, unknown, R>,
    isReadError,
    (e) => toHttpError(e),
    (e) => Effect.fail(e)
  ) as Effect.Effect<A, HttpErrorOf<E>, R>

const readErrorTags = new Set(["NotFound", "MissingKey", "InsufficientTier", "StoreError"])

const isReadError = (e: unknown): e is ReadError =>
  typeof e === "object" && e !== null && readErrorTags.has((e as { readonly _tag?: unknown })._tag as string)

/** FastAPI's name for each request slot, the first element of `loc`. */
const SlotOf = {
  Params: "path",
  Query: "query",
  Headers: "header",
  Payload: "body"
} as const

type Slot = (typeof SlotOf)[keyof typeof SlotOf]

interface Found {
  readonly rule: ValidationRule
  readonly msg: string
}

const messageOf = (annotations: unknown): string | undefined => {
  const message = (annotations as { readonly message?: unknown } | undefined)?.message
  return typeof message === "string" ? message : undefined
}

const ruleOf = (annotations: unknown): Found | undefined => {
  const rule = validationRuleOf(annotations)
  return rule === undefined ? undefined : { rule, msg: messageOf(annotations) ?? rule.type }
}

interface Located {
  readonly path: ReadonlyArray<PropertyKey>
  readonly type: string
  readonly msg: string
  readonly ctx?: { readonly [key: string]: unknown } | undefined
}

/** A built-in check's own wording of what it expected (`isMaxLength`: "a value with a length of at most 200"). */
const expectedOf = (annotations: unknown): string | undefined => {
  const expected = (annotations as { readonly expected?: unknown } | undefined)?.expected
  return typeof expected === "string" ? `Expected ${expected}` : undefined
}

/** How the schema itself words a failure (a union of literals: `Expected "a" | "b"`). */
const schemaMessageOf = (issue: SchemaIssue.Issue): string | undefined =>
  SchemaIssue.makeFormatterStandardSchemaV1()(issue).issues[0]?.message

/** pydantic's "a, b or c". */
const orList = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`

/**
 * A value no member of a union accepts: for a union of literals (an enumeration
 * such as an event kind), pydantic's `literal_error` listing the values; else a
 * `type_error` in the schema's words (`Expected string | null`).
 */
const noMemberMatched = (node: SchemaIssue.AnyOf, path: ReadonlyArray<PropertyKey>): Located => {
  const members = node.ast.types
  if (members.length > 0 && members.every((m) => m._tag === "Literal")) {
    const expected = orList(
      members.map((m) => JSON.stringify((m as SchemaAST.Literal).literal).replaceAll('"', "'"))
    )
    return { path, type: "literal_error", msg: `Input should be ${expected}`, ctx: { expected } }
  }
  return { path, type: "type_error", msg: schemaMessageOf(node) ?? "Input does not match any allowed shape" }
}

/**
 * Walks an issue tree to one entry per failure, innermost location first. Our
 * parameter rules carry their FastAPI type; anything else (a body schema of
 * the domain) still gets a clear message from the issue itself: the check's
 * own message, else what the check expected, else the schema's wording.
 */
export const locateIssues = (issue: SchemaIssue.Issue, body = false): Array<Located> => {
  const out: Array<Located> = []
  const walk = (
    node: SchemaIssue.Issue,
    path: ReadonlyArray<PropertyKey>,
    found: Found | undefined,
    expected: string | undefined
  ): void => {
    switch (node._tag) {
      case "Pointer":
        walk(node.issue, [...path, ...node.path], found, expected)
        return
      case "Encoding":
        walk(node.issue, path, found, expected)
        return
      case "Filter":
        walk(
          node.issue,
          path,
          ruleOf(node.filter.annotations) ?? found,
          expectedOf(node.filter.annotations) ?? expected
        )
        return
      case "Composite":
        for (const inner of node.issues) walk(inner, path, found, expected)
        return
      case "AnyOf":
        if (node.issues.length > 0) {
          for (const inner of node.issues) walk(inner, path, found, expected)
          return
        }
        out.push(noMemberMatched(node, path))
        return
      case "MissingKey":
        out.push({ path, type: "missing", msg: "Field required" })
        return
      case "InvalidValue": {
        const own = ruleOf(node.annotations) ?? found
        if (own !== undefined) {
          out.push({ path, type: own.rule.type, msg: own.msg, ctx: own.rule.ctx })
          return
        }
        out.push({
          path,
          type: "value_error",
          msg:
            messageOf(node.annotations) ?? expected ?? schemaMessageOf(node) ?? "Input is not a valid value"
        })
        return
      }
      case "InvalidType":
        out.push(
          found === undefined
            ? {
                path,
                type: "type_error",
                // A parameter of the wrong type was sent more than once; a body value's type is the schema's to say.
                msg:
                  (body ? schemaMessageOf(node) : undefined) ??
                  "Input should be a single value of the documented type"
              }
            : { path, type: found.rule.type, msg: found.msg, ctx: found.rule.ctx }
        )
        return
      case "UnexpectedKey":
        out.push({ path, type: "extra_forbidden", msg: "Extra inputs are not permitted" })
        return
      case "Forbidden":
      case "OneOf":
        out.push({ path, type: "value_error", msg: schemaMessageOf(node) ?? "Input is not a valid value" })
        return
    }
  }
  walk(issue, [], undefined, undefined)
  return out
}

/** The value the client sent at a location, as FastAPI echoes it (null when it was missing). */
const rawAt = (source: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value: unknown = source
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return null
    value = (value as { readonly [key: PropertyKey]: unknown })[key]
  }
  return echoable(value ?? null)
}

/** Deepest nesting of a sent value that is echoed back as `input`. */
const MaxEchoDepth = 16

/**
 * The value as `input` echoes it: as sent, unless it nests deeper than
 * MaxEchoDepth (a body can nest thousands deep), or holds a number JSON
 * cannot carry (±Infinity; FiniteNumbers refuses those bodies first): then
 * null, so the error answer stays small, cheap to write and encodable
 * whatever was sent.
 */
const echoable = (value: unknown): unknown => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v === "number" && !Number.isFinite(v)) return null
    if (typeof v !== "object" || v === null) continue
    if (depth >= MaxEchoDepth) return null
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return value
}

/** The FastAPI-style entries of one failed slot. */
export const toValidationIssues = (
  slot: Slot,
  issue: SchemaIssue.Issue,
  sent: unknown
): Array<ValidationIssue> =>
  locateIssues(issue, slot === "body").map((located) => {
    const loc = [slot, ...located.path.map((k) => (typeof k === "number" ? k : String(k)))]
    const entry = { type: located.type, loc, msg: located.msg, input: rawAt(sent, located.path) }
    return located.ctx === undefined ? entry : { ...entry, ctx: located.ctx }
  })

/**
 * The server side of the ValidationErrors middleware. Request decode failures
 * become a 422; a response that fails to encode is a bug of ours, so it stays
 * the builder's 500 (and is reported).
 */
export const ValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(ValidationErrors, (error) => {
  if (error.kind === "Body" || error.kind === "ResponseHeaders") return Effect.fail(error)
  const slot = SlotOf[error.kind]
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const sent: unknown =
      slot === "query"
        ? yield* HttpServerRequest.ParsedSearchParams
        : slot === "path"
          ? (yield* HttpRouter.RouteContext).params
          : slot === "header"
            ? request.headers
            : // The body was read and parsed to be decoded; reading it again reads the cached bytes.
              yield* Effect.orElseSucceed(request.json, () => null)
    return yield* new ValidationError({ detail: toValidationIssues(slot, error.cause.issue, sent) })
  })
})

/** Steps of a location reported at most: a number can sit half a million arrays deep in a 1 MiB body. */
const MaxLocDepth = 32

/**
 * The 422 entries of a JSON body's numbers that parse to ±Infinity: type
 * `finite_number` at each (up to 20), `input` the number as written (`"1e400"`,
 * a string: the value has no JSON form), null when nested too deep to recover.
 */
export const nonFiniteIssues = (text: string): Array<ValidationIssue> =>
  nonFiniteNumbers(text).map(({ path, text: written }) => {
    const cut = path.length > MaxLocDepth
    return {
      type: "finite_number",
      loc: ["body", ...path.slice(0, MaxLocDepth)],
      msg: cut
        ? `${NonFiniteNumberMessage} (nested ${path.length} deep; the location shows the first ${MaxLocDepth} steps)`
        : NonFiniteNumberMessage,
      input: written
    }
  })

/** FastAPI's media type of a body the builder decodes as JSON: application/json, or none at all. */
const isJsonBody = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * The server side of FiniteNumbers: on a route that takes a JSON body, reads
 * the body (the builder decodes the same cached text next) and answers 422
 * when a number in it parses to ±Infinity. A body that cannot be read, or is
 * not JSON, is left to the builder, which says so.
 */
export const FiniteNumbersLive = Layer.succeed(
  FiniteNumbers,
  FiniteNumbers.of((httpEffect, { endpoint }) =>
    endpoint.payload.size === 0
      ? httpEffect
      : Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!isJsonBody(request.headers["content-type"])) return yield* httpEffect
          const text = yield* Effect.orElseSucceed(request.text, () => "")
          const issues = nonFiniteIssues(text)
          if (issues.length > 0) return yield* new ValidationError({ detail: issues })
          return yield* httpEffect
        })
  )
)
