/**
 * The explorer's words for the domain's values: the titles of the entity
 * types, how dates, scores and weights are printed, and the grade ladder's
 * order (best first) that sorting by grade follows.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"
import { Grades } from "@ratings/domain/model/Grade"

export const TypeTitles: { readonly [T in EntityType]: string } = {
  protocol: "Protocols",
  chain: "Chains",
  token: "Tokens",
  oracle: "Oracles",
  vault: "Vaults",
  organisation: "Organisations",
  bridge: "Bridges"
}

export const TypeNames: { readonly [T in EntityType]: string } = {
  protocol: "protocol",
  chain: "chain",
  token: "token",
  oracle: "oracle",
  vault: "vault",
  organisation: "organisation",
  bridge: "bridge"
}

/** The rank of a grade: higher is better; an unrated entity ranks below every grade. */
export const gradeRank = (grade: string | null): number => {
  if (grade === null) return -1
  const at = (Grades as ReadonlyArray<string>).indexOf(grade)
  return at === -1 ? -1 : Grades.length - at
}

/** The date part of an ISO timestamp (YYYY-MM-DD), or a dash. */
export const dateOf = (iso: string | null | undefined): string =>
  iso === null || iso === undefined ? "–" : iso.slice(0, 10)

/** A figure as the API serves it, or a dash when there is none. */
export const figure = (value: number | null | undefined): string =>
  value === null || value === undefined ? "–" : String(value)

/** A 0-1 fraction as a percentage with one decimal. */
export const percentOf = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`

/** A domain's name in words ("smart_contract_risk" -> "Smart contract risk"). */
export const domainTitle = (domain: string): string => {
  const words = domain.replace(/[_-]+/g, " ").trim()
  return words === "" ? domain : words[0]!.toUpperCase() + words.slice(1)
}
