/**
 * The OpenAPI 3.1 document as the fuzzer reads it: the operations it lists
 * (method, path template, parameters, request body, responses), with `$ref`s
 * to the document's components resolved. The fuzzer is driven by whatever the
 * served document contains, never by a fixed list of routes, so that routes
 * added later are fuzzed without a change here.
 */

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it), read loosely. */
export type JsonSchema = { readonly [keyword: string]: unknown }

export interface OpenApiDocument {
  readonly openapi: string
  readonly paths: { readonly [path: string]: { readonly [key: string]: unknown } }
  readonly components?: { readonly [section: string]: { readonly [name: string]: unknown } }
}

export type ParameterLocation = "path" | "query" | "header" | "cookie"

export interface Parameter {
  readonly name: string
  readonly in: ParameterLocation
  readonly required: boolean
  readonly schema: JsonSchema
  readonly description: string | undefined
}

export interface MediaType {
  readonly schema?: JsonSchema | undefined
}

export interface ResponseSpec {
  readonly content?: { readonly [mediaType: string]: MediaType } | undefined
}

export interface RequestBodySpec {
  readonly required: boolean
  readonly content: { readonly [mediaType: string]: MediaType }
}

export interface Operation {
  /** operationId, or `METHOD path` when the document gives none. */
  readonly id: string
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<Parameter>
  readonly requestBody: RequestBodySpec | undefined
  readonly responses: { readonly [status: string]: ResponseSpec }
}

const Methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const

const isObject = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Follows a local `#/...` reference (and references to references) to what it names. */
export const deref = (doc: OpenApiDocument, value: unknown): unknown => {
  let current = value
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    const ref = current.$ref
    if (hops > 32 || !ref.startsWith("#/")) throw new Error(`unresolvable $ref ${ref}`)
    let target: unknown = doc
    for (const token of ref.slice(2).split("/")) {
      const key = token.replace(/~1/g, "/").replace(/~0/g, "~")
      target = isObject(target) ? target[key] : undefined
    }
    if (target === undefined) throw new Error(`dangling $ref ${ref}`)
    current = target
  }
  return current
}

const parameterOf = (doc: OpenApiDocument, raw: unknown): Parameter => {
  const p = deref(doc, raw)
  if (!isObject(p) || typeof p.name !== "string" || typeof p.in !== "string")
    throw new Error(`malformed parameter ${JSON.stringify(raw)}`)
  return {
    name: p.name,
    in: p.in as ParameterLocation,
    required: p.required === true || p.in === "path",
    schema: isObject(p.schema) ? (p.schema as JsonSchema) : {},
    description: typeof p.description === "string" ? p.description : undefined
  }
}

/** Every operation of the document, in document order. */
export const operationsOf = (doc: OpenApiDocument): ReadonlyArray<Operation> => {
  const operations: Array<Operation> = []
  for (const [path, rawItem] of Object.entries(doc.paths)) {
    const item = deref(doc, rawItem)
    if (!isObject(item)) continue
    const shared = Array.isArray(item.parameters) ? item.parameters.map((p) => parameterOf(doc, p)) : []
    for (const method of Methods) {
      const op = item[method]
      if (!isObject(op)) continue
      const own = Array.isArray(op.parameters) ? op.parameters.map((p) => parameterOf(doc, p)) : []
      // An operation's parameter overrides a path-level one of the same name and location.
      const parameters = [
        ...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)),
        ...own
      ]
      const body = op.requestBody === undefined ? undefined : deref(doc, op.requestBody)
      const responses: { [status: string]: ResponseSpec } = {}
      if (isObject(op.responses))
        for (const [status, response] of Object.entries(op.responses))
          responses[status] = deref(doc, response) as ResponseSpec
      operations.push({
        id: typeof op.operationId === "string" ? op.operationId : `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        requestBody: isObject(body)
          ? {
              required: body.required === true,
              content: (isObject(body.content) ? body.content : {}) as RequestBodySpec["content"]
            }
          : undefined,
        responses
      })
    }
  }
  return operations
}

/** The documented response for a status: exact, then its class (`4XX`), then `default`. */
export const documentedResponse = (op: Operation, status: number): ResponseSpec | undefined =>
  op.responses[String(status)] ??
  op.responses[`${Math.floor(status / 100)}XX`] ??
  op.responses[`${Math.floor(status / 100)}xx`] ??
  op.responses.default
