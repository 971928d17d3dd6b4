/**
 * The confidence tiers of a hack incident (reported, corroborated, confirmed
 * and the like), as the schemas name them. Their order and what compares
 * them are the incident rules' (`incidents/IncidentTier.ts`).
 */
import { Schema } from "effect"

/** Lowest first: the index is the rank. */
export const IncidentTiers = ["rumored", "corroborated", "confirmed"] as const
export type IncidentTier = (typeof IncidentTiers)[number]
export const IncidentTier = Schema.Literals(IncidentTiers).annotate({
  description: "Confidence tier of an incident: rumored < corroborated < confirmed"
})

/** The tier the feed serves when the caller names no `min_status`. */
export const DefaultMinStatus: IncidentTier = "confirmed"

export const isIncidentTier = (value: string): value is IncidentTier =>
  (IncidentTiers as ReadonlyArray<string>).includes(value)
