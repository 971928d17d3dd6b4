/**
 * The confidence tiers of a hack incident (spec part 2 "Incident", part 3
 * "Incident tier") and their order. Everything that compares tiers (the
 * lifecycle's "never goes down", the feed's `min_status`) goes through here so
 * the order is written down once. The tiers themselves are the model's
 * (`model/IncidentTier.ts`), re-exported here.
 */
import { DefaultMinStatus, IncidentTier, IncidentTiers, isIncidentTier } from "../model/IncidentTier.ts"

export { DefaultMinStatus, IncidentTier, IncidentTiers, isIncidentTier }

const Rank: { readonly [T in IncidentTier]: number } = { rumored: 0, corroborated: 1, confirmed: 2 }

/**
 * Rank of a tier; `null` stands for "not servable yet" and ranks below every
 * tier, so becoming servable reads as a rise like any other.
 */
export const rankOf = (tier: IncidentTier | null): number => (tier === null ? -1 : Rank[tier])

/** Negative, zero or positive, as `Array.prototype.sort` expects. */
export const compareTiers = (a: IncidentTier | null, b: IncidentTier | null): number => rankOf(a) - rankOf(b)

/** True when `tier` is `min` or above it; the unserved state is never at or above a tier. */
export const atLeast = (tier: IncidentTier | null, min: IncidentTier): boolean => rankOf(tier) >= Rank[min]

/** True when `next` ranks strictly above `previous`. */
export const isAbove = (next: IncidentTier | null, previous: IncidentTier | null): boolean =>
  rankOf(next) > rankOf(previous)

/** The higher of two tiers (the unserved state loses to any tier). */
export const maxTier = <A extends IncidentTier | null, B extends IncidentTier | null>(a: A, b: B): A | B =>
  rankOf(b) > rankOf(a) ? b : a
