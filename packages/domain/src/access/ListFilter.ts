/**
 * The list query parameters (spec part 4 "List query parameters"), defined
 * once: `listCriteriaOf` normalises a query's filters, `listKeysOf` reads what
 * they compare of a record, and `matchesCriteria` decides. The in-memory store
 * and the list snapshot run these; the SQL adapter stores the same keys as
 * columns and writes its WHERE from the same criteria.
 *
 * Categories are lowercase (api-facts: records hold lowercase strings, clients
 * lowercase the filter): stores hold a record's categories lowercased
 * (`withCategoryKeys`) and a requested category is lowercased before it is
 * compared, so a category matches whatever its case on either side.
 */
import type { EntityType } from "../model/EntityType.ts"
import { isUuid } from "../model/Identifiers.ts"
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
  readonly symbol?: unknown
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

/** A category as stores hold it and filters compare it: lowercase, with JavaScript's rules. */
export const categoryKey = (category: string): string => category.toLowerCase()

const categoryKeys = (categories: ReadonlyArray<string>): ReadonlyArray<string> =>
  categories.every((c) => c === categoryKey(c)) ? categories : categories.map(categoryKey)

/** The record with its categories as stores hold them; the same record when they already are. */
export const withCategoryKeys = <R extends { readonly categories?: ReadonlyArray<string> | undefined }>(
  record: R
): R => {
  if (record.categories === undefined) return record
  const keys = categoryKeys(record.categories)
  return keys === record.categories ? record : { ...record, categories: keys }
}

/** What the list filters compare of a record (the SQL adapter's derived columns hold the same). */
export interface ListKeys {
  readonly status: string
  readonly slug: string
  /** `name_lower`: the name lowercased with JavaScript's rules. */
  readonly nameLower: string
  /** `symbol_lower`: a string symbol lowercased, else undefined. */
  readonly symbolLower: string | undefined
  /** `categories`: each a `categoryKey`. */
  readonly categories: ReadonlyArray<string>
  /** `chain_slugs`: the slugs of `chains` and of a token's own `chain`, each once. */
  readonly chainSlugs: ReadonlyArray<string>
  /** `curator_id`, lowercased (a uuid column), null when none. */
  readonly curator: string | null
}

export const listKeysOf = (r: ListableRecord): ListKeys => {
  const chainSlugs = new Set((r.chains ?? []).map((c) => c.slug))
  if (r.chain !== undefined) chainSlugs.add(r.chain.slug)
  return {
    status: r.status,
    slug: r.slug,
    nameLower: r.name.toLowerCase(),
    symbolLower: typeof r.symbol === "string" ? r.symbol.toLowerCase() : undefined,
    categories: categoryKeys(r.categories ?? []),
    chainSlugs: [...chainSlugs],
    curator: typeof r.curator_id === "string" ? r.curator_id.toLowerCase() : null
  }
}

/** The filters of one query that its type takes, normalised once to what `matchesCriteria` compares. */
export interface ListCriteria {
  /** Matches exactly, case included. */
  readonly status: string | undefined
  /** Search, lowercased: a substring of the name, the slug or a token's symbol. Undefined when empty. */
  readonly needle: string | undefined
  readonly chain: string | undefined
  /** undefined: no filter; null: vaults without a curator; false: matches nothing (not a UUID). */
  readonly curator: string | null | false | undefined
  /** Each a `categoryKey`. */
  readonly categories: ReadonlyArray<string>
  /** Whether a record holding any of `categories` matches (else it must hold all). */
  readonly anyCategory: boolean
}

export const listCriteriaOf = (q: Omit<EntityListQuery, "flags">): ListCriteria => {
  const takes = ListParameters[q.entity_type]
  const curator = takes.includes("curator_id") ? q.curator_id : undefined
  return {
    status: takes.includes("status") ? q.status : undefined,
    needle:
      q.search !== undefined && q.search !== "" && takes.includes("search")
        ? q.search.toLowerCase()
        : undefined,
    chain: takes.includes("chain") ? q.chain : undefined,
    curator:
      curator === undefined
        ? undefined
        : curator === ""
          ? null
          : isUuid(curator)
            ? curator.toLowerCase()
            : false,
    categories: q.categories.map(categoryKey),
    anyCategory: categoryMode(q.entity_type) === "any"
  }
}

/** Whether the criteria filter nothing: every listed record matches. */
export const isUnfiltered = (c: ListCriteria): boolean =>
  c.status === undefined &&
  c.needle === undefined &&
  c.chain === undefined &&
  c.curator === undefined &&
  c.categories.length === 0

const holdsCategories = (held: ReadonlyArray<string>, wanted: ReadonlyArray<string>, any: boolean) =>
  wanted.length === 0 || (any ? wanted.some((c) => held.includes(c)) : wanted.every((c) => held.includes(c)))

export const matchesCriteria = (k: ListKeys, c: ListCriteria): boolean => {
  if (c.status !== undefined && k.status !== c.status) return false
  if (
    c.needle !== undefined &&
    !k.nameLower.includes(c.needle) &&
    !k.slug.includes(c.needle) &&
    k.symbolLower?.includes(c.needle) !== true
  )
    return false
  if (c.chain !== undefined && !k.chainSlugs.includes(c.chain)) return false
  if (c.curator !== undefined && k.curator !== c.curator) return false
  return holdsCategories(k.categories, c.categories, c.anyCategory)
}

/** The category rule alone, over categories as a record and a query hold them. */
export const matchesCategories = (
  type: EntityType,
  recordCategories: ReadonlyArray<string>,
  requested: ReadonlyArray<string>
): boolean =>
  holdsCategories(categoryKeys(recordCategories), requested.map(categoryKey), categoryMode(type) === "any")

/** Whether a list shows the record at all: the list flags, a framework vault only in vault lists. */
const isListedAs = (type: EntityType, r: ListableRecord, flags: ListFlags): boolean =>
  isListed(type === "vault" ? r : { ...r, is_framework: undefined }, flags)

export const matchesListQuery = (r: ListableRecord, q: EntityListQuery): boolean =>
  isListedAs(q.entity_type, r, q.flags) && matchesCriteria(listKeysOf(r), listCriteriaOf(q))

/** Lists are ordered by slug, then id: stable across pages, and the same in SQL (COLLATE "C") and here. */
export const compareListOrder = (a: ListableRecord, b: ListableRecord): number =>
  a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** Filter, order and page a list in memory: `total` is the filtered count. */
export const runListQuery = <R extends ListableRecord>(
  records: Iterable<R>,
  q: EntityListQuery
): { readonly items: ReadonlyArray<R>; readonly total: number } => {
  const criteria = listCriteriaOf(q)
  const matched: R[] = []
  for (const r of records)
    if (isListedAs(q.entity_type, r, q.flags) && matchesCriteria(listKeysOf(r), criteria)) matched.push(r)
  matched.sort(compareListOrder)
  return { items: matched.slice(q.skip, q.skip + q.limit), total: matched.length }
}
