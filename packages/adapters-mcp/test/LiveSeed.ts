/**
 * The HTTP tests' seed with what the live-argument tests of the MCP tools
 * need beside it: more protocols and tokens than a tool answers by default
 * (so that defaults and bounds show), one slug that an oracle and an
 * organisation share, and one that a public protocol shares with a private
 * chain.
 */
import { entityId, Seed, uuid } from "@ratings/adapters-http/test/fixtures"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { StoredEntity } from "@ratings/domain/ports/EntityRepository"

/** Protocols and tokens whose names and slugs hold "bulk". */
export const BulkProtocols = 30
export const BulkTokens = 12

/** The slug of a public oracle and a public organisation. */
export const TwinSlug = "twin-feed"
/** The slug of a public protocol and a private chain. */
export const HalfHiddenSlug = "half-hidden"

let next = 70_000

/** A copy of a seeded record of `type` and `kind` under a new id, slug and name. */
const copyOf = (
  type: EntityType,
  kind: "beta" | "private",
  slug: string,
  name: string,
  extra: Record<string, unknown> = {}
): StoredEntity => {
  const source = Seed.entities.find((e) => e.record.id === entityId(type, kind))
  if (source === undefined) throw new Error(`no seeded ${type} ${kind}`)
  return {
    entity_type: type,
    record: { ...source.record, id: uuid(++next), slug, name, ...extra }
  } as StoredEntity
}

const numbered = (n: number) => String(n).padStart(2, "0")

export const LiveSeed: Seed = {
  ...Seed,
  entities: [
    ...Seed.entities,
    ...Array.from({ length: BulkProtocols }, (_, i) =>
      copyOf("protocol", "beta", `bulk-protocol-${numbered(i + 1)}`, `Bulk Protocol ${numbered(i + 1)}`)
    ),
    ...Array.from({ length: BulkTokens }, (_, i) =>
      copyOf("token", "beta", `bulk-token-${numbered(i + 1)}`, `Bulk Token ${numbered(i + 1)}`, {
        symbol: `BLK${numbered(i + 1)}`
      })
    ),
    copyOf("oracle", "beta", TwinSlug, "Twin Feed Oracle"),
    copyOf("organisation", "beta", TwinSlug, "Twin Feed Labs"),
    copyOf("protocol", "beta", HalfHiddenSlug, "Half Hidden Protocol"),
    copyOf("chain", "private", HalfHiddenSlug, "Half Hidden Chain")
  ]
}

/** The id of a record LiveSeed added, by type and slug. */
export const liveIdOf = (type: EntityType, slug: string): string => {
  const found = LiveSeed.entities.find((e) => e.entity_type === type && e.record.slug === slug)
  if (found === undefined) throw new Error(`no ${type} ${slug} in LiveSeed`)
  return found.record.id
}
