/**
 * The public records of the seven rated entity types. Every type
 * shares one set of fields; the token record follows the spec's table field by
 * field; bridges add their security fields and vaults their curator reference.
 * Records carry no grade: grades live on scorecards.
 */
import { Schema } from "effect"
import { ChainBrief } from "./ChainBrief.ts"
import type { EntityType } from "./EntityType.ts"
import { ExternalIds } from "./ExternalIds.ts"
import { IsoDateTime, NonNegativeInt, PositiveInt, Slug, Uuid } from "./Primitives.ts"

export const EntityStatuses = ["draft", "scoring", "approved", "published"] as const
export const EntityStatus = Schema.Literals(EntityStatuses).annotate({
  description:
    "Lifecycle status: draft, scoring, approved or published. Only published entities are exported."
})
export type EntityStatus = typeof EntityStatus.Type

/** Clients lowercase the category filter before sending it, so stored categories are lowercase too. */
export const Category = Schema.String.annotate({
  description: "Category, lowercase (for example lending, dex, messaging)"
}).check(Schema.isNonEmpty(), Schema.isLowercased())

/** `{id, slug, name}` of another entity, embedded so a client needs no second lookup. */
export const EntityRef = Schema.Struct({ id: Uuid, slug: Slug, name: Schema.String }).annotate({
  identifier: "EntityRef",
  description: "Reference to another entity record: its UUID id, slug and name"
})
export type EntityRef = typeof EntityRef.Type

export const Urls = Schema.Record(Schema.String, Schema.String).annotate({
  description: "Named links (for example website, docs, github) to URLs"
})

/** The fields every record carries (api-facts: "same for all seven types"). */
export const EntityFields = {
  id: Uuid,
  name: Schema.String,
  slug: Slug,
  status: EntityStatus,
  categories: Schema.Array(Category),
  chains: Schema.Array(ChainBrief).annotate({ description: "Chains the entity is deployed on or serves" }),
  urls: Urls,
  external_ids: ExternalIds,
  description: Schema.NullOr(Schema.String),
  is_active: Schema.Boolean.annotate({
    description: "Inactive records are hidden from lists and 404 on detail"
  }),
  is_private: Schema.Boolean.annotate({
    description: "Private records are hidden from lists and 404 on detail"
  }),
  created_at: IsoDateTime,
  updated_at: IsoDateTime
}

/** Protocols and oracles: the list's category filter is single-select, so a record holds at most one. */
const SingleCategory = Schema.Array(Category)
  .annotate({ description: "At most one category: the category is single-select for this type" })
  .check(
    Schema.isMaxLength(1, {
      message: "protocol and oracle records hold at most one category (the category is single-select)"
    })
  )

export const Protocol = Schema.Struct({ ...EntityFields, categories: SingleCategory }).annotate({
  identifier: "Protocol",
  description: "A rated DeFi protocol"
})
export type Protocol = typeof Protocol.Type

export const Chain = Schema.Struct({
  ...EntityFields,
  chain_id: Schema.optionalKey(
    Schema.NullOr(NonNegativeInt).annotate({
      description: "Numeric chain id (EIP-155) where the chain has one, else null"
    })
  )
}).annotate({
  identifier: "Chain",
  description: "A rated chain (L1 or L2). Its scorecards alone carry mvc_gates."
})
export type Chain = typeof Chain.Type

export const Oracle = Schema.Struct({ ...EntityFields, categories: SingleCategory }).annotate({
  identifier: "Oracle",
  description: "A rated oracle network"
})
export type Oracle = typeof Oracle.Type

export const Organisation = Schema.Struct(EntityFields).annotate({
  identifier: "Organisation",
  description: "A rated organisation: vault curators, validator-set operators and similar"
})
export type Organisation = typeof Organisation.Type

/** A token record: which fields are required and which optional is the token table's, field by field. */
export const Token = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  symbol: Schema.String,
  slug: Slug,
  contract_address: Schema.optionalKey(Schema.NullOr(Schema.String)),
  chain: ChainBrief,
  chains: Schema.optionalKey(Schema.Array(ChainBrief)),
  status: EntityStatus,
  categories: Schema.optionalKey(Schema.Array(Category)),
  urls: Schema.optionalKey(Urls),
  external_ids: Schema.optionalKey(ExternalIds),
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  is_active: Schema.Boolean,
  is_private: Schema.Boolean,
  created_at: IsoDateTime,
  updated_at: IsoDateTime
}).annotate({
  identifier: "Token",
  description: "A rated token. Stablecoins carry an extra scoring domain."
})
export type Token = typeof Token.Type

const signerRule = Schema.makeFilter<{
  readonly signer_count: number | null
  readonly signing_threshold: number | null
}>((b) =>
  b.signer_count === null || b.signing_threshold === null || b.signing_threshold <= b.signer_count
    ? undefined
    : {
        path: ["signing_threshold"],
        issue: `signing_threshold (${b.signing_threshold}) must not exceed signer_count (${b.signer_count})`
      }
)

export const Bridge = Schema.Struct({
  ...EntityFields,
  signer_count: Schema.NullOr(PositiveInt).annotate({
    description:
      "Size of the signing set. Null is a design fact (the bridge has no fixed signing set), not missing data."
  }),
  signing_threshold: Schema.NullOr(PositiveInt).annotate({
    description:
      "Signatures a message requires, never more than signer_count. Null is a design fact (no fixed signing set)."
  }),
  has_message_attestation: Schema.Boolean.annotate({
    description: "Whether messages carry an attestation step"
  }),
  pause_mechanism: Schema.NullOr(Schema.String).annotate({
    description: "Prose: the emergency-pause path and who holds it. Display only, not an enum."
  }),
  validator_set_owner: Schema.NullOr(EntityRef).annotate({
    description:
      "Organisation operating the validator set. It may not be published yet, so its id and slug need not " +
      "resolve under /organisations."
  })
})
  .annotate({
    description: "A rated bridge with its public security fields"
  })
  .check(signerRule)
  .annotate({ identifier: "Bridge" })
export type Bridge = typeof Bridge.Type

const curatorRule = Schema.makeFilter<{
  readonly curator_id: string | null
  readonly curator: EntityRef | null
}>((v) => {
  if (v.curator === null) return undefined
  if (v.curator_id === null)
    return { path: ["curator_id"], issue: "curator_id must be set when curator is embedded" }
  return v.curator.id.toLowerCase() === v.curator_id.toLowerCase()
    ? undefined
    : {
        path: ["curator", "id"],
        issue: `curator.id (${v.curator.id}) must equal curator_id (${v.curator_id})`
      }
})

export const Vault = Schema.Struct({
  ...EntityFields,
  curator_id: Schema.NullOr(Uuid).annotate({
    description: "UUID of the curating organisation (the list filter curator_id matches it), or null"
  }),
  curator: Schema.NullOr(EntityRef).annotate({
    description: "The curating organisation, embedded; null when there is none or it is not visible"
  }),
  is_framework: Schema.Boolean.annotate({
    description:
      "True for a framework-tier vault (the template instances are built on). Framework-tier vaults are " +
      "hidden from lists unless an admin passes include_frameworks=true."
  })
})
  .annotate({
    description: "A rated vault instance or framework. LST/LRT vaults carry an extra scoring domain."
  })
  .check(curatorRule)
  .annotate({ identifier: "Vault" })
export type Vault = typeof Vault.Type

/** The record schema of each entity type, for routes and stores that are generic over the type. */
export const EntityRecordSchemas = {
  protocol: Protocol,
  chain: Chain,
  token: Token,
  oracle: Oracle,
  vault: Vault,
  organisation: Organisation,
  bridge: Bridge
} as const satisfies { readonly [T in EntityType]: Schema.Top }

export type EntityRecordOf<T extends EntityType> = (typeof EntityRecordSchemas)[T]["Type"]
export type EntityRecord = EntityRecordOf<EntityType>
