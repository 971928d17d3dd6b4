/**
 * Matching an incident's protocol name to a rated protocol (spec part 2
 * "Incident": `slug` and `matched_protocol`). "Rated" means the protocol has a
 * published scorecard; the caller passes only those. Matching is equality after
 * normalisation, never fuzzy: a false match would attach a hack to the wrong
 * rated protocol, which is worse than showing it unmatched.
 */

import { normaliseName } from "../model/Incident.ts"

/** How names compare is the model's: its schemas refuse a name without a key. */
export { normaliseName }

export interface RatedProtocol {
  readonly slug: string
  readonly name: string
}

export interface ProtocolMatch {
  readonly slug: string | null
  readonly matched_protocol: boolean
}

export type ProtocolMatcher = (protocolName: string) => ProtocolMatch

export const Unmatched: ProtocolMatch = { slug: null, matched_protocol: false }

/**
 * Builds a matcher over the rated protocols. A slug equality wins over a name
 * equality; when two rated protocols still collide, the smallest slug wins so
 * the answer does not depend on the order the list arrived in.
 */
export const makeMatcher = (rated: ReadonlyArray<RatedProtocol>): ProtocolMatcher => {
  const sorted = [...rated].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
  const bySlug = new Map<string, string>()
  const byName = new Map<string, string>()
  for (const p of sorted) {
    const slugKey = normaliseName(p.slug)
    const nameKey = normaliseName(p.name)
    if (slugKey !== "" && !bySlug.has(slugKey)) bySlug.set(slugKey, p.slug)
    if (nameKey !== "" && !byName.has(nameKey)) byName.set(nameKey, p.slug)
  }
  return (protocolName) => {
    const key = normaliseName(protocolName)
    if (key === "") return Unmatched
    const slug = bySlug.get(key) ?? byName.get(key)
    return slug === undefined ? Unmatched : { slug, matched_protocol: true }
  }
}

/** One-off match; build a matcher with `makeMatcher` when matching many names. */
export const matchRatedProtocol = (
  rated: ReadonlyArray<RatedProtocol>,
  protocolName: string
): ProtocolMatch => makeMatcher(rated)(protocolName)
