/**
 * Query and path parameters of the read API (spec part 4 "List query
 * parameters", part 2 "Identifiers"), as string codecs with FastAPI-style
 * failures, and their OpenAPI description. Each rule carries the FastAPI
 * error `type`, message and context under {@link ValidationRuleKey}, so the
 * one central mapping (server/ErrorMapping.ts) turns any decode failure into
 * `{"detail": [{type, loc, msg, input}]}`. Parameters are optional on the
 * wire; defaults are applied once, in {@link toListRequest}. A parameter the
 * spec's table does not give a type is ignored for that type, as FastAPI
 * ignores unknown query parameters (docs/adr/0005-http-contract.md).
 */
import type { ListRequest } from "@ratings/domain/services/RatingsReader"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { SlugPattern } from "@ratings/domain/model/Primitives"
import { Effect, Schema, type SchemaAST, SchemaIssue, SchemaTransformation } from "effect"

/** Annotation key of the FastAPI error a parameter rule reports. */
export const ValidationRuleKey = "ratings/validation-rule"

export interface ValidationRule {
  readonly type: string
  readonly ctx?: { readonly [key: string]: unknown } | undefined
}

/** Annotations of a rule: the FastAPI message, and the type and context the error mapping reads. */
const rule = (type: string, msg: string, ctx?: { readonly [key: string]: unknown }) => ({
  message: msg,
  [ValidationRuleKey]: ctx === undefined ? { type } : { type, ctx }
})

/** Reads the rule a failed check or transformation carried, if it was one of ours. */
export const validationRuleOf = (annotations: unknown): ValidationRule | undefined => {
  if (typeof annotations !== "object" || annotations === null) return undefined
  const value = (annotations as { readonly [key: string]: unknown })[ValidationRuleKey]
  return typeof value === "object" && value !== null && typeof (value as ValidationRule).type === "string"
    ? (value as ValidationRule)
    : undefined
}

/**
 * The issue a parameter check returns when its message depends on the input
 * (the central mapping reads its FastAPI type and this message).
 */
export const invalidParameter = (type: string, msg: string, input: string): SchemaIssue.InvalidValue =>
  new SchemaIssue.InvalidValue({ message: msg, [ValidationRuleKey]: { type } }, input, { reportInput: true })

// Digits only (FastAPI's int parsing): no fractions, exponents or hex, so "1.5", "5e1" and "0x10" are rejected.
const INTEGER_TEXT = /^[+-]?\d+$/

const integerFromString = SchemaTransformation.transformEffect<number, string>({
  decode: (text, options) =>
    INTEGER_TEXT.test(text)
      ? Effect.succeed(Number(text))
      : Effect.fail(
          new SchemaIssue.InvalidValue(
            rule("int_parsing", "Input should be a valid integer, unable to parse string as an integer"),
            text,
            options
          )
        ),
  encode: (n) => Effect.succeed(String(n))
})

/** An integer parameter within inclusive bounds, parsed from its query-string text. */
export const IntegerParam = (bounds: { readonly minimum?: number; readonly maximum?: number }) => {
  const checks: Array<SchemaAST.Check<number>> = []
  if (bounds.minimum !== undefined) {
    checks.push(
      Schema.isGreaterThanOrEqualTo(
        bounds.minimum,
        rule("greater_than_equal", `Input should be greater than or equal to ${bounds.minimum}`, {
          ge: bounds.minimum
        })
      )
    )
  }
  if (bounds.maximum !== undefined) {
    checks.push(
      Schema.isLessThanOrEqualTo(
        bounds.maximum,
        rule("less_than_equal", `Input should be less than or equal to ${bounds.maximum}`, {
          le: bounds.maximum
        })
      )
    )
  }
  const [first, ...rest] = checks
  const target = first === undefined ? Schema.Int : Schema.Int.check(first, ...rest)
  return Schema.String.pipe(Schema.decodeTo(target, integerFromString))
}

// The spellings pydantic (and so FastAPI) accepts for a boolean, case-insensitively.
const TRUE_TEXT = new Set(["true", "1", "yes", "on", "t", "y"])
const FALSE_TEXT = new Set(["false", "0", "no", "off", "f", "n"])

const booleanFromString = SchemaTransformation.transformEffect<boolean, string>({
  decode: (text, options) => {
    const lower = text.toLowerCase()
    if (TRUE_TEXT.has(lower)) return Effect.succeed(true)
    if (FALSE_TEXT.has(lower)) return Effect.succeed(false)
    return Effect.fail(
      new SchemaIssue.InvalidValue(
        rule("bool_parsing", "Input should be a valid boolean, unable to interpret input"),
        text,
        options
      )
    )
  },
  encode: (b) => Effect.succeed(b ? "true" : "false")
})

/** A boolean parameter: true/false (and FastAPI's 1/0, yes/no, on/off); anything else is a 422. */
export const BooleanParam = Schema.String.pipe(Schema.decodeTo(Schema.Boolean, booleanFromString))

/**
 * Free text (a search, a chain slug, an id or slug): any string but one holding
 * a NUL character (U+0000). No stored name, slug or status can hold one
 * (PostgreSQL text cannot), so it is refused as the bad input it is, with a
 * message saying so, before it reaches a store.
 */
export const TextParam = Schema.String.check(
  Schema.makeFilter((text: string) =>
    text.includes("\u0000")
      ? invalidParameter("string_nul_character", "String should not contain a NUL character (U+0000)", text)
      : undefined
  )
)

/** A UUID parameter; the pattern and `format: uuid` reach the OpenAPI document. */
export const UuidParam = Schema.String.check(
  Schema.isUUID(undefined, rule("uuid_parsing", "Input should be a valid UUID"))
)

/** A kebab-case slug parameter (the per-entity data routes take the slug, spec part 2 Identifiers rule 2). */
export const SlugParam = Schema.String.check(
  Schema.isPattern(
    SlugPattern,
    rule("string_pattern_mismatch", `String should match pattern '${SlugPattern.source}'`, {
      pattern: SlugPattern.source
    })
  )
)

/**
 * What the OpenAPI document says of one parameter: its codec (the decoded side
 * is documented, so bounds, formats and patterns show), prose, and default.
 */
export interface ParameterDoc<S extends Schema.Top = Schema.Top> {
  readonly schema: S
  readonly description: string
  readonly default?: unknown
}

const param = <S extends Schema.Top>(
  schema: S,
  description: string,
  defaultValue?: unknown
): ParameterDoc<S> =>
  defaultValue === undefined ? { schema, description } : { schema, description, default: defaultValue }

/** Defaults of spec part 4's table, applied by {@link toListRequest} and published in the document. */
export const ListDefaults = {
  skip: 0,
  limit: 50,
  include_inactive: false,
  include_frameworks: false
} as const

export const MaxListLimit = 200

/** Every list parameter of spec part 4, whichever types take it. */
export const ListParameterDocs = {
  status: param(TextParam, "Only records with this status (draft, scoring, approved, published)"),
  search: param(TextParam, "Case-insensitive substring of the name or slug (and symbol, for tokens)"),
  category: param(
    Schema.Array(TextParam),
    "Category filter, repeatable (?category=a&category=b). Chains, tokens, bridges, vaults and " +
      "organisations: every value must match (AND). Protocols and oracles: single-select, a record " +
      "matches any value sent."
  ),
  chain: param(TextParam, "Chain slug: only records deployed on that chain"),
  curator_id: param(UuidParam, "UUID of an organisation: only vaults it curates"),
  skip: param(IntegerParam({ minimum: 0 }), "Number of matches to skip", ListDefaults.skip),
  limit: param(
    IntegerParam({ minimum: 1, maximum: MaxListLimit }),
    "Page size, 1 to 200",
    ListDefaults.limit
  ),
  include_inactive: param(
    BooleanParam,
    "Admin bypass: show inactive records. Honoured only for an admin bearer JWT; silently ignored otherwise.",
    ListDefaults.include_inactive
  ),
  include_frameworks: param(
    BooleanParam,
    "Admin bypass: list framework-tier vaults alongside instances. Honoured only for an admin bearer JWT; " +
      "silently ignored otherwise.",
    ListDefaults.include_frameworks
  )
}

type Docs = typeof ListParameterDocs
type QueryFieldsOf<K extends keyof Docs> = { readonly [P in K]: Schema.optionalKey<Docs[P]["schema"]> }
type AlwaysTaken = "category" | "skip" | "limit" | "include_inactive"

const queryFields = <K extends keyof Docs>(names: ReadonlyArray<K>): QueryFieldsOf<K> => {
  const fields: Record<string, Schema.Top> = {}
  for (const name of names) fields[name] = Schema.optionalKey(ListParameterDocs[name].schema)
  return fields as unknown as QueryFieldsOf<K>
}

const common = ["category", "skip", "limit", "include_inactive"] as const

/**
 * The list query of each type: exactly the "Applies to" column of spec part 4
 * (held against the domain's `ListParameters` table by a test).
 */
export const ListQueryFields = {
  protocol: queryFields([...common, "status", "search", "chain"]),
  chain: queryFields([...common, "status", "search"]),
  token: queryFields([...common, "status", "search", "chain"]),
  oracle: queryFields([...common, "status", "search", "chain"]),
  vault: queryFields([...common, "chain", "curator_id", "include_frameworks"]),
  organisation: queryFields([...common]),
  bridge: queryFields([...common, "status", "search", "chain"])
} as const satisfies { readonly [T in EntityType]: QueryFieldsOf<AlwaysTaken> }

export type ListQuery = Partial<{
  readonly [K in keyof Docs]: Docs[K]["schema"]["Type"]
}>

/** The list request of the domain from a decoded query, with the table's defaults applied. */
export const toListRequest = (entity_type: EntityType, query: ListQuery): ListRequest => ({
  entity_type,
  status: query.status,
  search: query.search,
  categories: query.category ?? [],
  chain: query.chain,
  curator_id: query.curator_id,
  skip: query.skip ?? ListDefaults.skip,
  limit: query.limit ?? ListDefaults.limit,
  include_inactive: query.include_inactive ?? ListDefaults.include_inactive,
  include_frameworks: query.include_frameworks ?? ListDefaults.include_frameworks
})

/** Detail endpoints: optional include_inactive (spec part 4). */
export const DetailQueryFields = queryFields(["include_inactive"])

/** Path parameters of the per-entity routes. */
export const PathParameterDocs = {
  identifier: param(TextParam, "UUID id or slug; a UUID parse is tried first, then a slug lookup"),
  id_or_slug: param(TextParam, "UUID id or slug; a UUID parse is tried first, then a slug lookup"),
  slug: param(SlugParam, "The entity's slug (kebab-case). Slugs can change on rename; ids do not."),
  scorecard_id: param(UuidParam, "UUID of the scorecard")
}

export type ParameterDocs = { readonly [name: string]: ParameterDoc }

interface OperationParameter {
  readonly name: string
  readonly in: string
  readonly schema?: unknown
  readonly description?: string
  readonly required?: boolean
}

const documentedSchema = (doc: ParameterDoc): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(Schema.toType(doc.schema))
  const schema: Record<string, unknown> = { ...(document.schema as Record<string, unknown>) }
  if (doc.default !== undefined) schema.default = doc.default
  return schema
}

/**
 * An OpenAPI `transform` for an operation: the generated document describes a
 * parameter by its wire text (a string), so bounds such as `limit` 1..200 would
 * be lost. This documents the decoded value instead (type, minimum, maximum,
 * format, pattern), with the default and a description, as FastAPI does.
 */
export const documentParameters =
  (docs: ParameterDocs) =>
  (operation: { readonly [key: string]: unknown }): { readonly [key: string]: unknown } => {
    const parameters = (operation.parameters ?? []) as ReadonlyArray<OperationParameter>
    return {
      ...operation,
      parameters: parameters.map((p) => {
        const doc = docs[p.name]
        if (doc === undefined) return p
        return { ...p, description: doc.description, schema: documentedSchema(doc) }
      })
    }
  }
