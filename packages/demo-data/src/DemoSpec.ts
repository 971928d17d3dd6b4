/**
 * The hand-written shape of a demo entity: its public record in a compact
 * form, and the plan of its ratings (quality profile, scorecard versions with
 * their publication and reasoning, dependencies, questions ruled out). The
 * builder turns a spec into import-format records, drafts and publications;
 * the answers themselves are computed, so that only what must read as real is
 * written by hand.
 */
import type { EntityStatus } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"

/** Appended to every description: the figures are not real ratings. */
export const DemoNotice = "Demo data: its scores, grades and figures are illustrative, not a real rating."

export interface DependencySpec {
  readonly type: EntityType
  readonly slug: string
  readonly exposure: number
}

export interface PublicationSpec {
  readonly at: string
  readonly reasoning: string
  readonly actor?: string
}

export interface VersionSpec {
  /** Change of quality per domain from the previous version; "*" applies to every domain. */
  readonly shift?: { readonly [domain: string]: number }
  /** Absent while the draft awaits review: it stays a draft. */
  readonly publish?: PublicationSpec
}

export interface RatingSpec {
  /** Typical quality, 0 to 1: the share of the rubric's top level the entity reaches. */
  readonly base: number
  readonly bias?: { readonly [domain: string]: number }
  /** Version number of the first draft; later than 1 when history predates the service. */
  readonly firstVersion?: number
  readonly versions: ReadonlyArray<VersionSpec>
  readonly dependencies?: ReadonlyArray<DependencySpec>
  /** The entity's own domain weights (spec part 1 rule 5); the methodology default when absent. */
  readonly domainWeights?: { readonly [domain: string]: number }
  /** Question id -> score held in every version. */
  readonly fixed?: { readonly [questionId: string]: number }
  /** Question id or domain -> why it is ruled out for this entity (null score, not_applicable). */
  readonly notApplicable?: { readonly [questionIdOrDomain: string]: string }
  /** Questions with no public information yet (null score, excluded, not ruled out). */
  readonly unknown?: ReadonlyArray<string>
}

export interface CommonSpec {
  /** Names the entity's id; defaults to the slug. A renamed entity keeps its old key, so its id survives. */
  readonly key?: string
  readonly name: string
  readonly slug: string
  readonly status?: EntityStatus
  readonly categories: ReadonlyArray<string>
  /** Chain slugs the entity is deployed on or serves. */
  readonly chains?: ReadonlyArray<string>
  readonly urls?: { readonly [name: string]: string }
  readonly external_ids?: { readonly [key: string]: string }
  /** The description without the demo notice, which the builder appends. */
  readonly about: string
  readonly is_active?: boolean
  readonly is_private?: boolean
  readonly created_at: string
  readonly updated_at?: string
  readonly rating?: RatingSpec
}

export interface ChainSpec extends CommonSpec {
  readonly type: "chain"
  readonly chain_id: number | null
}

export interface ProtocolSpec extends CommonSpec {
  readonly type: "protocol"
}

export interface OracleSpec extends CommonSpec {
  readonly type: "oracle"
}

export interface OrganisationSpec extends CommonSpec {
  readonly type: "organisation"
}

export interface TokenSpec extends CommonSpec {
  readonly type: "token"
  readonly symbol: string
  /** The chain the token is native to (its `chain` ChainBrief). */
  readonly home: string
  /** Absent from the record when undefined; null for native assets. */
  readonly contract_address?: string | null
  /** Only the fields the spec's token table requires: exercises the optional ones being absent. */
  readonly minimal?: boolean
}

export interface VaultSpec extends CommonSpec {
  readonly type: "vault"
  /** Slug of the curating organisation, or null. */
  readonly curator: string | null
  readonly is_framework?: boolean
}

export interface BridgeSpec extends CommonSpec {
  readonly type: "bridge"
  readonly signer_count: number | null
  readonly signing_threshold: number | null
  readonly has_message_attestation: boolean
  readonly pause_mechanism: string | null
  /** Slug of the organisation operating the validator set (an unpublished one), or null. */
  readonly validator_set_owner: string | null
}

export type EntitySpec =
  | ChainSpec
  | ProtocolSpec
  | OracleSpec
  | OrganisationSpec
  | TokenSpec
  | VaultSpec
  | BridgeSpec

export const keyOf = (spec: EntitySpec): string => `${spec.type}:${spec.key ?? spec.slug}`
