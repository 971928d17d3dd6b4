/**
 * The methodology tables: which domains each entity type is scored on and the
 * base percentage-point weights of each. An entity's
 * own `domain_weights` (per entity, not per type) starts from these and
 * keeps only the domains that fired for it, renormalised to 100.
 */
import type { EntityType } from "../model/EntityType.ts"
import type { DomainWeightMap } from "./Composite.ts"
import { renormalise } from "./Renormalise.ts"

export const MethodologyName = "DeFi Risk Ratings Methodology"
export const MethodologyVersion = "1.0"

/** Base domain weights per type, in canonical domain order; each table sums to 100. */
export const BaseDomainWeights: { readonly [T in EntityType]: DomainWeightMap } = {
  protocol: {
    security: 25,
    technology: 15,
    governance: 15,
    economic: 15,
    operational: 10,
    transparency: 10,
    dependencies: 10
  },
  chain: {
    security: 25,
    decentralization: 20,
    technology: 15,
    governance: 15,
    operational: 15,
    ecosystem: 10
  },
  token: {
    security: 20,
    economic: 20,
    liquidity: 20,
    governance: 15,
    transparency: 15,
    compliance: 10
  },
  oracle: {
    security: 25,
    data_quality: 25,
    decentralization: 20,
    operational: 15,
    governance: 15
  },
  vault: {
    security: 25,
    strategy: 25,
    curator: 20,
    liquidity: 15,
    transparency: 15
  },
  organisation: {
    governance: 25,
    operational: 25,
    track_record: 20,
    transparency: 15,
    security: 15
  },
  // Bridges: the four universal domains. Category domains are added per bridge (BridgeRubric.ts).
  bridge: {
    security: 30,
    validator_set: 25,
    operational: 25,
    governance: 20
  }
}

/**
 * Stablecoin tokens and LST/LRT vaults carry one extra domain. The extra
 * domain takes `weight` points and the type's base weights are scaled by
 * (100 - weight) / 100, so the set still sums to 100.
 */
export interface ExtraDomain {
  readonly domain: string
  readonly weight: number
  /** Category values (lowercase) that switch the extra domain on. */
  readonly categories: ReadonlyArray<string>
}

export const ExtraDomains: { readonly [T in EntityType]?: ExtraDomain } = {
  token: { domain: "peg_stability", weight: 20, categories: ["stablecoin"] },
  vault: { domain: "staking", weight: 20, categories: ["lst", "lrt"] }
}

const hasAny = (categories: ReadonlyArray<string>, wanted: ReadonlyArray<string>): boolean => {
  for (const c of categories) if (wanted.includes(c.toLowerCase())) return true
  return false
}

/** Whether the extra domain (stablecoins, LST/LRT vaults) applies to an entity of this type with these categories. */
export const extraDomainFor = (
  type: EntityType,
  categories: ReadonlyArray<string>
): ExtraDomain | undefined => {
  const extra = ExtraDomains[type]
  return extra !== undefined && hasAny(categories, extra.categories) ? extra : undefined
}

/**
 * The default domain weights for a non-bridge entity of this type and these
 * categories (bridges: see `bridgeDomainWeights`). Always sums to 100.
 */
export const typeDomainWeights = (type: EntityType, categories: ReadonlyArray<string>): DomainWeightMap => {
  const base = BaseDomainWeights[type]
  const extra = extraDomainFor(type, categories)
  if (extra === undefined) return base
  const scale = (100 - extra.weight) / 100
  const out: Record<string, number> = {}
  for (const domain of Object.keys(base)) out[domain] = base[domain]! * scale
  out[extra.domain] = extra.weight
  return renormalise(out)
}

/** Every domain a type can be scored on, in canonical order (for the methodology endpoint). */
export const domainsOfType = (
  type: EntityType,
  extraCategoryDomains: ReadonlyArray<string> = []
): string[] => {
  const list = Object.keys(BaseDomainWeights[type])
  const extra = ExtraDomains[type]
  if (extra !== undefined) list.push(extra.domain)
  for (const d of extraCategoryDomains) if (!list.includes(d)) list.push(d)
  return list
}
