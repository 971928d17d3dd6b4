/**
 * How a computed value becomes the bytes of its answer: the endpoint's own
 * success codec, then `JSON.stringify`, exactly as HttpApiBuilder encodes a
 * JSON success, so that a cached answer is byte-identical to the uncached
 * route. A value that does not encode is our bug: a 500, as on that route.
 */
import { type Effect as E, Effect, type Schema as S, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { entityTag } from "../Caching.ts"

export type Encoder = (value: unknown) => E.Effect<Uint8Array>

const encoders = new WeakMap<S.Top, Encoder>()

/** The success codec's encoder, made once per schema. */
export const encoderOf = (schema: S.Top): Encoder => {
  let encoder = encoders.get(schema)
  if (encoder === undefined) {
    const encode = Schema.encodeUnknownEffect(schema) as (value: unknown) => E.Effect<unknown, S.SchemaError>
    encoder = (value) =>
      Effect.map(Effect.orDie(encode(value)), (encoded) => Buffer.from(JSON.stringify(encoded), "utf8"))
    encoders.set(schema, encoder)
  }
  return encoder
}

/** The response a cached body is served as: JSON unless said, with its strong ETag computed once. */
export const encodedResponse = (
  body: Uint8Array,
  contentType = "application/json"
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, { contentType, headers: { etag: entityTag(body) } })
