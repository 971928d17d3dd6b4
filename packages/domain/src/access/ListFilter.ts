/**
 * The list query parameters of spec part 4 ("List query parameters") as a
 * predicate over records, with the stable order lists use. The in-memory store
 * runs it directly; the SQL adapter writes the same rules as SQL, and the
 * repository tests hold both to the same answers.
 */
import type { EntityType } from "../model/EntityType.ts"
import { isListed, type ListFlags } from "./Projection.ts"

export interface EntityListQuery {
  readonly entity_type: EntityType
  readonly status?: string | undefined
  readonly search?: string | undefined
  readonly categories: ReadonlyArray<string>
  readonly chain?: string | undefined
  readonly curator_id?: string | undefined
  readonly skip: number
  readonly limit: number
  readonly flags: ListFlags
}

/** The fields of a record the list filters read. */
export interface ListableRecord {
  readonly id: string
  readonly slug: string
  readonly name: string
  readonly status: string
  readonly is_active: boolean
  readonly is_private: boolean
  readonly categories?: ReadonlyArray<string> | undefined
  readonly chains?: ReadonlyArray<{ readonly slug: string }> | undefined
  readonly chain?: { readonly slug: string } | undefined
  readonly symbol?: string | undefined
  readonly curator_id?: string | null | undefined
  readonly is_framework?: boolean | undefined
}

/** Which parameters each type takes (spec table "Applies to"); others are not part of that type's query. */
export const ListParameters: {
  readonly [T in EntityType]: ReadonlyArray<
    "status" | "search" | "chain" | "curator_id" | "include_frameworks"
  >
} = {
  protocol: ["status", "search", "chain"],
  chain: ["status", "search"],
  token: ["status", "search", "chain"],
  oracle: ["status", "search", "chain"],
  vault: ["chain", "curator_id", "include_frameworks"],
  organisation: [],
  bridge: ["status", "search", "chain"]
}

/**
 * Category semantics (spec part 4): for chains, tokens and bridges several values
 * combine with AND. Protocols and oracles are single-select (a record holds at most
 * one category); repeated values are accepted and a record matches when its
 * category is any of them, so no value a client sent is silently dropped. Vaults
 * and organisations, whose records may hold several categories, use AND like chains.
 */
export const categoryMode = (type: EntityType): "all" | "any" =>
  type === "protocol" || type === "oracle" ? "any" : "all"

export const matchesCategories = (
  type: EntityType,
  recordCategories: ReadonlyArray<string>,
  requested: ReadonlyArray<string>
): boolean => {
  if (requested.length === 0) return true
  const held = recordCategories.map((c) => c.toLowerCase())
  return categoryMode(type) === "any"
    ? requested.some((c) => held.includes(c.toLowerCase()))
    : requested.every((c) => held.includes(c.toLowerCase()))
}

const onChain = (r: ListableRecord, chain: string): boolean =>
  r.chain?.slug === chain || (r.chains ?? []).some((c) => c.slug === chain)

/** Search: case-insensitive substring of the name, the slug, or a token's symbol. */
export const matchesSearch = (r: ListableRecord, search: string): boolean => {
  const needle = search.toLowerCase()
  return (
    r.name.toLowerCase().includes(needle) ||
    r.slug.includes(needle) ||
    r.symbol?.toLowerCase().includes(needle) === true
  )
}

export const matchesListQuery = (r: ListableRecord, q: EntityListQuery): boolean => {
  if (!isListed(q.entity_type === "vault" ? r : { ...r, is_framework: undefined }, q.flags)) return false
  const takes = ListParameters[q.entity_type]
  if (q.status !== undefined && takes.includes("status") && r.status !== q.status) return false
  if (q.search !== undefined && q.search !== "" && takes.includes("search") && !matchesSearch(r, q.search))
    return false
  if (q.chain !== undefined && takes.includes("chain") && !onChain(r, q.chain)) return false
  if (q.curator_id !== undefined && takes.includes("curator_id")) {
    if ((r.curator_id ?? "").toLowerCase() !== q.curator_id.toLowerCase()) return false
  }
  return matchesCategories(q.entity_type, r.categories ?? [], q.categories)
}

/** Lists are ordered by slug, then id: stable across pages, and the same in SQL (COLLATE "C") and here. */
export const compareListOrder = (a: ListableRecord, b: ListableRecord): number =>
  a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** Filter, order and page a list in memory: `total` is the filtered count. */
export const runListQuery = <R extends ListableRecord>(
  records: Iterable<R>,
  q: EntityListQuery
): { readonly items: ReadonlyArray<R>; readonly total: number } => {
  const matched: R[] = []
  for (const r of records) if (matchesListQuery(r, q)) matched.push(r)
  matched.sort(compareListOrder)
  return { items: matched.slice(q.skip, q.skip + q.limit), total: matched.length }
}
