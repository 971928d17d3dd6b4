/**
 * Examples in the OpenAPI document, taken from the demo dataset: each
 * operation's parameters, request body and responses get an `example` (the
 * OpenAPI field of a parameter and of a media type), so /docs shows
 * `aave-v4`, `ethereum` and real demo ids instead of `string`, and "Try it"
 * starts from a request that answers. Set by an operation's OpenApi transform
 * annotation (the generator has no annotation for either field); the values
 * live in ./examples. A test validates each against its schema and resolves
 * every GET path on a server with the demo imported.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"
import { ExampleEntities } from "./examples/ExampleEntities.ts"

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is plain JSON here
type Json = Record<string, any>

export interface OperationExamples {
  /** By parameter name (path, query or header). */
  readonly parameters?: { readonly [name: string]: unknown }
  /** The request body's example. */
  readonly request?: unknown
  /** By response status. */
  readonly responses?: { readonly [status: number]: unknown }
}

const withContentExample = (holder: Json | undefined, example: unknown): Json | undefined => {
  if (holder?.content === undefined) return holder
  const content: Json = {}
  for (const [type, media] of Object.entries(holder.content as Json)) content[type] = { ...media, example }
  return { ...holder, content }
}

/** An OpenAPI `transform` for an operation: its examples written where OpenAPI reads them. */
export const documentExamples =
  (examples: OperationExamples) =>
  (operation: { readonly [key: string]: unknown }): { readonly [key: string]: unknown } => {
    const op: Json = { ...operation }
    const parameters = examples.parameters ?? {}
    if (Array.isArray(op.parameters))
      op.parameters = op.parameters.map((p: Json) =>
        Object.hasOwn(parameters, p.name) ? { ...p, example: parameters[p.name] } : p
      )
    if (examples.request !== undefined) op.requestBody = withContentExample(op.requestBody, examples.request)
    if (examples.responses !== undefined && op.responses !== undefined) {
      const responses: Json = { ...op.responses }
      for (const [status, example] of Object.entries(examples.responses))
        responses[status] = withContentExample(responses[status], example)
      op.responses = responses
    }
    return op
  }

/** Two transforms of an operation, one after the other. */
export const both =
  (
    a: (op: { readonly [key: string]: unknown }) => { readonly [key: string]: unknown },
    b: (op: { readonly [key: string]: unknown }) => { readonly [key: string]: unknown }
  ) =>
  (op: { readonly [key: string]: unknown }) =>
    b(a(op))

/** The parameters of the per-entity routes of `type`, filled with its demo entity. */
export const entityParameters = (type: EntityType) => {
  const entity = ExampleEntities[type]
  return {
    identifier: entity.slug,
    id_or_slug: entity.id,
    slug: entity.slug,
    scorecard_id: entity.scorecard_id,
    status: "published",
    search: entity.slug,
    category: [entity.category],
    chain: entity.chain,
    curator_id: ExampleEntities.organisation.id,
    skip: 0,
    limit: 10,
    include_inactive: false,
    include_frameworks: false
  }
}
