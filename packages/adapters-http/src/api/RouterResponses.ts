/**
 * The answers the router gives on every route, documented on every operation
 * of the OpenAPI document (server/RouterFallbacks.ts produces them): 404
 * `{"detail": "not found"}` when no route matches the path as sent (a
 * malformed or over-long segment, a raw `;`), and on operations with a request
 * body, 415 when the body is not application/json in UTF-8 and 413 when it is over 1 MiB.
 */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is plain JSON here
type Json = Record<string, any>

const NotFoundDoc = {
  description:
    "Not found: no such record, or no route matches the path as sent (for example a segment that is not " +
    "valid percent-encoded UTF-8, longer than 1024 characters, or containing a raw ';')",
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["detail"],
        properties: { detail: { type: "string", enum: ["not found"] } },
        additionalProperties: false
      },
      example: { detail: "not found" }
    }
  }
}

const DetailSchema = {
  type: "object",
  required: ["detail"],
  properties: { detail: { type: "string" } },
  additionalProperties: false
}

const UnsupportedMediaTypeDoc = {
  description:
    "Unsupported media type: the request body must be application/json, in UTF-8 (charset=utf-8 or none)",
  content: {
    "application/json": {
      schema: DetailSchema,
      example: { detail: 'unsupported content-type "text/plain": send the body as application/json' }
    }
  }
}

const ContentTooLargeDoc = {
  description: "Content too large: the request body is over 1 MiB (1,048,576 bytes)",
  content: {
    "application/json": {
      schema: DetailSchema,
      example: { detail: "request body too large: at most 1048576 bytes (1 MiB)" }
    }
  }
}

export const documentRouterResponses = (spec: Json): Json => {
  const notFound =
    spec.components?.schemas?.NotFoundBody === undefined
      ? NotFoundDoc
      : {
          description: NotFoundDoc.description,
          content: { "application/json": { schema: { $ref: "#/components/schemas/NotFoundBody" } } }
        }
  for (const item of Object.values((spec.paths ?? {}) as Json)) {
    for (const op of Object.values(item as Json)) {
      if (typeof op !== "object" || op === null || typeof op.responses !== "object") continue
      const responses = op.responses as Json
      if (responses["404"] === undefined) responses["404"] = notFound
      if (op.requestBody !== undefined && responses["415"] === undefined)
        responses["415"] = UnsupportedMediaTypeDoc
      if (op.requestBody !== undefined && responses["413"] === undefined)
        responses["413"] = ContentTooLargeDoc
    }
  }
  return spec
}
