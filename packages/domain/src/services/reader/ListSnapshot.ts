/**
 * An entity list held whole, to answer any page of it without a query
 * (docs/adr/0007-projection-cache.md, "List snapshots"): every record a
 * non-admin caller may list of one type, in list order, each as the caller
 * is served it, with the list keys of the stored record beside it.
 * `pageOfSnapshot` then gives exactly what `listEntities` gives for any
 * filter, skip and limit: the same positions, the same total. Which records
 * match is the list filter's own rule (access/ListFilter.ts); the indexes
 * here only choose which records to ask it about. Order needs no rule of its
 * own: the snapshot is read in list order and a filtered list is a
 * subsequence of it.
 */
import { Effect } from "effect"
import {
  isUnfiltered,
  type ListCriteria,
  type ListKeys,
  listCriteriaOf,
  listKeysOf,
  matchesCriteria
} from "../../access/ListFilter.ts"
import type { Caller } from "../../model/Caller.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import type { EntityType } from "../../model/EntityType.ts"
import type { StoreError } from "../../ports/StoreError.ts"
import type { ListRequest } from "./EntityReads.ts"
import type { HiddenNames } from "./PublicRecord.ts"
import { projectRecord } from "./PublicRecord.ts"
import { hiddenOf, hiddenTypes, type ReaderPorts } from "./ReadAccess.ts"

export { type ListKeys, listKeysOf } from "../../access/ListFilter.ts"

export interface ListSnapshot {
  readonly entity_type: EntityType
  /** The records as this caller is served them, in list order. */
  readonly records: ReadonlyArray<EntityRecord>
  /** What the filters read of each stored record, at the same positions. */
  readonly keys: ReadonlyArray<ListKeys>
  /** The positions of the records on each chain, and holding each category, in list order. */
  readonly byChain: ReadonlyMap<string, ReadonlyArray<number>>
  readonly byCategory: ReadonlyMap<string, ReadonlyArray<number>>
  /**
   * What search reads, every record's lowercased name, slug and lowercased
   * symbol in one text, each field after a NUL (which no search holds: then a
   * match lies within one field), and where each record's part starts.
   */
  readonly searchText: string
  readonly searchStarts: Uint32Array
  /** What the caller's records may not name (undefined for an admin, who never reads a snapshot). */
  readonly hidden: HiddenNames | undefined
  /** False when the type holds more records than the snapshot may: answer from the store then. */
  readonly complete: boolean
}

/**
 * The whole list of a type as this (non-admin) caller is served it: at most
 * `maxItems` records, else an incomplete snapshot holding none.
 */
export const listSnapshot = (
  ports: ReaderPorts,
  caller: Caller,
  type: EntityType,
  maxItems: number
): Effect.Effect<ListSnapshot, StoreError> =>
  Effect.gen(function* () {
    // The whole list and what it may not name, in one read (as `listEntities` reads a page).
    const read = yield* ports.entities.listWithUnreadable(
      {
        entity_type: type,
        categories: [],
        skip: 0,
        limit: maxItems + 1,
        flags: ports.projection.effectiveListFlags(caller, {})
      },
      hiddenTypes(type)
    )
    const page = read.value
    const hidden = ports.projection.isAdmin(caller) ? undefined : hiddenOf(read.unreadable)
    if (page.items.length > maxItems)
      return { entity_type: type, records: [], keys: [], ...indexOf([]), hidden, complete: false }
    const keys = page.items.map(listKeysOf)
    return {
      entity_type: type,
      records: hidden === undefined ? page.items : page.items.map((r) => projectRecord(r, hidden)),
      keys,
      ...indexOf(keys),
      hidden,
      complete: true
    }
  })

const push = (index: Map<string, Array<number>>, at: string, position: number) => {
  const positions = index.get(at)
  if (positions === undefined) index.set(at, [position])
  // A record names a category or chain once at most in the index (its keys may repeat one).
  else if (positions[positions.length - 1] !== position) positions.push(position)
}

/** The positions by chain and by category, and the search text: a filter on any reads only the records it names. */
const indexOf = (keys: ReadonlyArray<ListKeys>) => {
  const byChain = new Map<string, Array<number>>()
  const byCategory = new Map<string, Array<number>>()
  const parts: Array<string> = []
  const searchStarts = new Uint32Array(keys.length + 1)
  keys.forEach((k, position) => {
    for (const chain of k.chainSlugs) push(byChain, chain, position)
    for (const category of k.categories) push(byCategory, category, position)
    const part = `\u0000${k.nameLower}\u0000${k.slug}\u0000${k.symbolLower ?? ""}`
    parts.push(part)
    searchStarts[position + 1] = searchStarts[position]! + part.length
  })
  return { byChain, byCategory, searchText: parts.join(""), searchStarts }
}

/** The record whose part of the search text holds `at`: the last one starting at or before it. */
const recordAt = (starts: Uint32Array, at: number): number => {
  let low = 0
  let high = starts.length - 2
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (starts[middle]! <= at) low = middle
    else high = middle - 1
  }
  return low
}

/** The positions of the records a search matches, in list order (one native scan of the search text). */
const searched = (snapshot: ListSnapshot, needle: string): ReadonlyArray<number> => {
  const positions: Array<number> = []
  const { searchText, searchStarts } = snapshot
  let at = searchText.indexOf(needle)
  while (at !== -1) {
    const position = recordAt(searchStarts, at)
    positions.push(position)
    at = searchText.indexOf(needle, searchStarts[position + 1]!)
  }
  return positions
}

/**
 * The positions a filtered request needs to look at, in list order: those
 * its search finds, else those of its chain or of one of the categories every
 * match must hold, whichever are fewer; undefined when none of these filters
 * (every record is looked at).
 */
const candidatesOf = (snapshot: ListSnapshot, f: ListCriteria): ReadonlyArray<number> | undefined => {
  // A search that cannot straddle two fields reads the records whose text holds it.
  if (f.needle !== undefined && !f.needle.includes("\u0000")) return searched(snapshot, f.needle)
  let fewest = f.chain === undefined ? undefined : (snapshot.byChain.get(f.chain) ?? [])
  const required = f.anyCategory ? (f.categories.length === 1 ? f.categories : []) : f.categories
  for (const category of required) {
    const positions = snapshot.byCategory.get(category) ?? []
    if (fewest === undefined || positions.length < fewest.length) fewest = positions
  }
  return fewest
}

/** A page of a snapshot: the positions of its records, and the count of every match. */
export interface SnapshotPage {
  readonly positions: ReadonlyArray<number>
  readonly total: number
}

/**
 * The page `listEntities` answers for this request, from a complete snapshot:
 * a chain or curator filter naming a hidden one gives an empty page, as there.
 */
export const pageOfSnapshot = (snapshot: ListSnapshot, request: ListRequest): SnapshotPage => {
  const f = listCriteriaOf(request)
  const hidden = snapshot.hidden
  if (hidden !== undefined && f.chain !== undefined && hidden.chainSlugs.has(f.chain))
    return { positions: [], total: 0 }
  if (hidden !== undefined && typeof f.curator === "string" && hidden.curatorIds.has(f.curator))
    return { positions: [], total: 0 }
  const keys = snapshot.keys
  const end = request.skip + request.limit
  const positions: Array<number> = []
  if (isUnfiltered(f)) {
    for (let i = request.skip; i < end && i < keys.length; i++) positions.push(i)
    return { positions, total: keys.length }
  }
  const candidates = candidatesOf(snapshot, f)
  const count = candidates === undefined ? keys.length : candidates.length
  let total = 0
  for (let c = 0; c < count; c++) {
    const i = candidates === undefined ? c : candidates[c]!
    if (!matchesCriteria(keys[i]!, f)) continue
    if (total >= request.skip && total < end) positions.push(i)
    total++
  }
  return { positions, total }
}
