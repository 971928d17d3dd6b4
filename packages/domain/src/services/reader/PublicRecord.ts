/**
 * What a record served to the public may name (docs/adr/0003-access-and-lists.md):
 * the hidden names of one read, and a record with them removed. Pure, so
 * RatingsReader applies it to every record it serves without a query of its own.
 */
import { isVisible } from "../../access/Readable.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import type { UnreadableRef } from "../../ports/EntityRepository.ts"

/** What a public record may not name (docs/adr/0003-access-and-lists.md), ids lowercased. */
export interface HiddenNames {
  /** Chains the public cannot read: not published, private or inactive. */
  readonly chainIds: ReadonlySet<string>
  readonly chainSlugs: ReadonlySet<string>
  /** Organisations a bridge may not name as validator_set_owner: private or inactive ones. */
  readonly ownerIds: ReadonlySet<string>
  /** Organisations a vault may not name as curator: those the public cannot read (not published, private or inactive). */
  readonly curatorIds: ReadonlySet<string>
}

export const hiddenNames = (
  chains: ReadonlyArray<UnreadableRef>,
  organisations: ReadonlyArray<UnreadableRef>
): HiddenNames => ({
  chainIds: new Set(chains.map((c) => c.id.toLowerCase())),
  chainSlugs: new Set(chains.map((c) => c.slug)),
  ownerIds: new Set(organisations.filter((o) => !isVisible(o)).map((o) => o.id.toLowerCase())),
  curatorIds: new Set(organisations.map((o) => o.id.toLowerCase()))
})

/**
 * A record as the public may see it: without the briefs of chains the public
 * cannot read (a brief is hidden when its id or its slug names such a chain),
 * a bridge's validator_set_owner null when that organisation is private or
 * inactive (an unpublished one stays: spec part 2), and a vault's curator and
 * curator_id null when the public cannot read that organisation (the spec
 * allows no unpublished curator). A token's own `chain` is
 * required by the spec's token table and stays. Unchanged records are returned as they are.
 */
export const projectRecord = (record: EntityRecord, hidden: HiddenNames): EntityRecord => {
  const isHidden = (b: { readonly slug: string; readonly id?: string | undefined }) =>
    hidden.chainSlugs.has(b.slug) || (b.id !== undefined && hidden.chainIds.has(b.id.toLowerCase()))
  let out = record
  if (record.chains?.some(isHidden) === true)
    out = { ...out, chains: record.chains.filter((b) => !isHidden(b)) } as EntityRecord
  const owner = "validator_set_owner" in record ? record.validator_set_owner : null
  if (owner !== null && hidden.ownerIds.has(owner.id.toLowerCase()))
    out = { ...out, validator_set_owner: null } as EntityRecord
  const curatorId = "curator_id" in record ? (record.curator_id ?? record.curator?.id ?? null) : null
  if (curatorId !== null && hidden.curatorIds.has(curatorId.toLowerCase()))
    out = { ...out, curator_id: null, curator: null } as EntityRecord
  return out
}
