/**
 * When two reports count as two sources (spec part 3: "at every served tier at
 * least two independent sources are required"). A source is identified by its
 * handle only, normalised so that the same reporter spelled two ways
 * ("@PeckShield", " peckshield ") is one source and can never corroborate
 * itself. The normalisation is deliberately small: trim, lower-case, drop
 * leading "@". Domains, URLs and aliases are not folded together; a feed that
 * names one reporter under two unrelated handles is a data problem to fix at
 * the source, not something to guess at here.
 */
import { type IncidentSource, normaliseHandle } from "../model/Incident.ts"
import { type IncidentTier, IncidentTiers, maxTier, rankOf } from "./IncidentTier.ts"

/** Independent sources needed before an incident is served, at any tier. */
export const MinIndependentSources = 2

/** How handles compare is the model's: its schemas refuse a blank handle. */
export { normaliseHandle }

export const areIndependent = (a: string, b: string): boolean => normaliseHandle(a) !== normaliseHandle(b)

/** Number of distinct sources among raw handles. */
export const independentSourceCount = (handles: ReadonlyArray<string>): number =>
  new Set(handles.map(normaliseHandle)).size

/**
 * Folds one claim into the per-source list, keeping each source once with the
 * strongest tier it has claimed. Order of first appearance is kept so the served
 * `sources` list is stable.
 */
export const recordClaim = (
  sources: ReadonlyArray<IncidentSource>,
  claim: { readonly handle: string; readonly claimed_tier: IncidentTier; readonly url?: string | undefined }
): ReadonlyArray<IncidentSource> => {
  const handle = normaliseHandle(claim.handle)
  const index = sources.findIndex((s) => s.handle === handle)
  if (index === -1) {
    const added: IncidentSource =
      claim.url === undefined
        ? { handle, claimed_tier: claim.claimed_tier }
        : { handle, claimed_tier: claim.claimed_tier, url: claim.url }
    return [...sources, added]
  }
  const existing = sources[index]!
  const strongest = maxTier(existing.claimed_tier, claim.claimed_tier)
  const url = existing.url ?? claim.url
  if (strongest === existing.claimed_tier && url === existing.url) return sources
  const updated: IncidentSource =
    url === undefined ? { handle, claimed_tier: strongest } : { handle, claimed_tier: strongest, url }
  return sources.map((s, i) => (i === index ? updated : s))
}

/**
 * The highest tier that at least `MinIndependentSources` distinct sources claim
 * (a claim of a higher tier also supports every lower one), or null when no
 * tier is that well supported. Sources are deduplicated here again so that a
 * list built by hand cannot make one reporter count twice.
 */
export const corroboratedTier = (
  sources: ReadonlyArray<{ readonly handle: string; readonly claimed_tier: IncidentTier }>
): IncidentTier | null => {
  const strongest = new Map<string, IncidentTier>()
  for (const s of sources) {
    const handle = normaliseHandle(s.handle)
    const seen = strongest.get(handle)
    strongest.set(handle, seen === undefined ? s.claimed_tier : maxTier(seen, s.claimed_tier))
  }
  const tiers = [...strongest.values()]
  for (let i = IncidentTiers.length - 1; i >= 0; i--) {
    const tier = IncidentTiers[i]!
    const supporting = tiers.filter((t) => rankOf(t) >= rankOf(tier)).length
    if (supporting >= MinIndependentSources) return tier
  }
  return null
}
