/**
 * ChainBrief: the short chain reference embedded in entity records (`chain` on
 * tokens, `chains` on every type). Clients read `slug` and `name` (api-facts);
 * `id` is optional so that a brief can be built from a slug-only source.
 */
import { Schema } from "effect"
import { Slug, Uuid } from "./Primitives.ts"

export const ChainBrief = Schema.Struct({
  id: Schema.optionalKey(Uuid),
  slug: Slug,
  name: Schema.String
}).annotate({
  identifier: "ChainBrief",
  description: "Short reference to a chain: its slug and display name, optionally its UUID id"
})
export type ChainBrief = typeof ChainBrief.Type
