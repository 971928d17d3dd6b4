/**
 * The seven rated entity types and the route segments the spec gives them
 * of the HTTP API. Every other module keys on `EntityType`.
 */
import { Schema } from "effect"
import { EntityTypes } from "./EntityTypeNames.ts"

export { EntityTypes }
export type EntityType = (typeof EntityTypes)[number]
export const EntityType = Schema.Literals(EntityTypes).annotate({
  description: "Entity type: protocol, chain, token, oracle, vault, organisation or bridge"
})

/** List-path segment per type (British spelling for organisations). */
export const PluralOf: { readonly [T in EntityType]: string } = {
  protocol: "protocols",
  chain: "chains",
  token: "tokens",
  oracle: "oracles",
  vault: "vaults",
  organisation: "organisations",
  bridge: "bridges"
}

export const EntityPlurals = EntityTypes.map((t) => PluralOf[t])

/** Scorecard-by-id path segment per type (`/scorecards/{id}`, `/chain-scorecards/{id}`, ...). */
export const ScorecardByIdSegment: { readonly [T in EntityType]: string } = {
  protocol: "scorecards",
  chain: "chain-scorecards",
  token: "token-scorecards",
  oracle: "oracle-scorecards",
  vault: "vault-scorecards",
  organisation: "organisation-scorecards",
  bridge: "bridge-scorecards"
}

const byPlural = new Map<string, EntityType>(EntityTypes.map((t) => [PluralOf[t], t]))

/** Accepts the singular or the plural name (the export route's `entity` parameter accepts both). */
export const entityTypeFromName = (name: string): EntityType | undefined => {
  const lower = name.toLowerCase()
  if ((EntityTypes as ReadonlyArray<string>).includes(lower)) return lower as EntityType
  return byPlural.get(lower)
}
