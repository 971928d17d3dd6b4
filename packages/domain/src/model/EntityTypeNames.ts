/**
 * The seven rated entity types as plain data, without their wire schema, so
 * the scoring core can name and check them without loading Schema (it bundles
 * into a browser page). `EntityType.ts` adds the schema and the route names.
 */
export const EntityTypes = [
  "protocol",
  "chain",
  "token",
  "oracle",
  "vault",
  "organisation",
  "bridge"
] as const
export type EntityType = (typeof EntityTypes)[number]

export const isEntityType = (value: unknown): value is EntityType =>
  typeof value === "string" && (EntityTypes as ReadonlyArray<string>).includes(value)
