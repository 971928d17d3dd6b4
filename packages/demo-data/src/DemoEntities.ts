/**
 * Turns the hand-written entity specs into import-format entity records of
 * the seven types. Ids are v5 UUIDs of each entity's key, chain references
 * become ChainBriefs and organisation references embedded `{id, slug, name}`
 * refs, and every description ends with the demo notice.
 */
import type { ChainBrief } from "@ratings/domain/model/ChainBrief"
import type { Token } from "@ratings/domain/model/Entity"
import type { ImportEntity } from "@ratings/domain/import/ImportFile"
import type { DomainWeightMap } from "@ratings/domain/scoring/Composite"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"
import { type ChainSpec, DemoNotice, type EntitySpec, keyOf, type OrganisationSpec } from "./DemoSpec.ts"
import { Bridges } from "./entities/Bridges.ts"
import { Chains } from "./entities/Chains.ts"
import { Oracles } from "./entities/Oracles.ts"
import { Organisations } from "./entities/Organisations.ts"
import { Protocols } from "./entities/Protocols.ts"
import { Tokens } from "./entities/Tokens.ts"
import { Vaults } from "./entities/Vaults.ts"
import { uuidV5 } from "./StableIds.ts"

/** Every demo entity, in the order the entities file lists them (referenced types first). */
export const DemoSpecs: ReadonlyArray<EntitySpec> = [
  ...Chains,
  ...Organisations,
  ...Oracles,
  ...Tokens,
  ...Protocols,
  ...Vaults,
  ...Bridges
]

export const idOf = (spec: EntitySpec): string => uuidV5(keyOf(spec))

export const specOf = (type: string, slug: string): EntitySpec => {
  const spec = DemoSpecs.find((s) => s.type === type && s.slug === slug)
  if (spec === undefined) throw new Error(`the demo has no ${type} with slug ${slug}`)
  return spec
}

/** The domain weights the entity is scored on: its own, or the methodology default for its type and categories. */
export const weightsOf = (spec: EntitySpec): DomainWeightMap =>
  spec.rating?.domainWeights ?? defaultDomainWeights(spec.type, spec.categories)

const latestPublication = (spec: EntitySpec): string | undefined => {
  let latest: string | undefined
  for (const v of spec.rating?.versions ?? []) {
    if (v.publish !== undefined && (latest === undefined || v.publish.at > latest)) latest = v.publish.at
  }
  return latest
}

const brief = (slug: string): ChainBrief => {
  const chain = specOf("chain", slug) as ChainSpec
  return { id: idOf(chain), slug: chain.slug, name: chain.name }
}

const orgRef = (slug: string) => {
  const org = specOf("organisation", slug) as OrganisationSpec
  return { id: idOf(org), slug: org.slug, name: org.name }
}

const commonFields = (spec: EntitySpec) => ({
  id: idOf(spec),
  name: spec.name,
  slug: spec.slug,
  status: spec.status ?? "published",
  categories: spec.categories,
  chains: (spec.chains ?? []).map(brief),
  urls: spec.urls ?? {},
  external_ids: spec.external_ids ?? {},
  description: `${spec.about} ${DemoNotice}`,
  is_active: spec.is_active ?? true,
  is_private: spec.is_private ?? false,
  created_at: spec.created_at,
  updated_at: spec.updated_at ?? latestPublication(spec) ?? spec.created_at
})

const tokenRecord = (spec: EntitySpec & { readonly type: "token" }): Token => {
  const c = commonFields(spec)
  if (spec.minimal === true) {
    return {
      id: c.id,
      name: c.name,
      symbol: spec.symbol,
      slug: c.slug,
      chain: brief(spec.home),
      status: c.status,
      is_active: c.is_active,
      is_private: c.is_private,
      created_at: c.created_at,
      updated_at: c.updated_at
    }
  }
  return {
    id: c.id,
    name: c.name,
    symbol: spec.symbol,
    slug: c.slug,
    ...(spec.contract_address === undefined ? {} : { contract_address: spec.contract_address }),
    chain: brief(spec.home),
    chains: c.chains,
    status: c.status,
    categories: c.categories,
    urls: c.urls,
    external_ids: c.external_ids,
    description: c.description,
    is_active: c.is_active,
    is_private: c.is_private,
    created_at: c.created_at,
    updated_at: c.updated_at
  }
}

export const importEntityOf = (spec: EntitySpec): ImportEntity => {
  const weights = spec.rating === undefined ? {} : { domain_weights: weightsOf(spec) }
  switch (spec.type) {
    case "chain":
      return { entity_type: "chain", record: { ...commonFields(spec), chain_id: spec.chain_id }, ...weights }
    case "protocol":
      return { entity_type: "protocol", record: commonFields(spec), ...weights }
    case "oracle":
      return { entity_type: "oracle", record: commonFields(spec), ...weights }
    case "organisation":
      return { entity_type: "organisation", record: commonFields(spec), ...weights }
    case "token":
      return { entity_type: "token", record: tokenRecord(spec), ...weights }
    case "vault": {
      const curator = spec.curator === null ? null : orgRef(spec.curator)
      return {
        entity_type: "vault",
        record: {
          ...commonFields(spec),
          curator_id: curator?.id ?? null,
          curator,
          is_framework: spec.is_framework ?? false
        },
        ...weights
      }
    }
    case "bridge":
      return {
        entity_type: "bridge",
        record: {
          ...commonFields(spec),
          signer_count: spec.signer_count,
          signing_threshold: spec.signing_threshold,
          has_message_attestation: spec.has_message_attestation,
          pause_mechanism: spec.pause_mechanism,
          validator_set_owner: spec.validator_set_owner === null ? null : orgRef(spec.validator_set_owner)
        },
        ...weights
      }
  }
}
