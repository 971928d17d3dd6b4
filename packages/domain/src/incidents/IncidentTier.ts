/**
 * The confidence tiers of a hack incident (spec part 2 "Incident", part 3
 * "Incident tier") and their order. Everything that compares tiers (the
 * lifecycle's "never goes down", the feed's `min_status`) goes through here so
 * the order is written down once.
 */
import { Schema } from "effect"

/** Lowest first: the index is the rank. */
export const IncidentTiers = ["rumored", "corroborated", "confirmed"] as const
export type IncidentTier = (typeof IncidentTiers)[number]
export const IncidentTier = Schema.Literals(IncidentTiers).annotate({
  description: "Confidence tier of an incident: rumored < corroborated < confirmed"
})

/** The tier the feed serves when the caller names none (spec part 4, `min_status`). */
export const DefaultMinStatus: IncidentTier = "confirmed"

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

export const isIncidentTier = (value: string): value is IncidentTier =>
  (IncidentTiers as ReadonlyArray<string>).includes(value)
