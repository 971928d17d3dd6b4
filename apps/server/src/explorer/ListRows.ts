/**
 * The rows of an entity type's table as one projection class reads them:
 * every entity the caller may list (the reader's list, projected as the API
 * serves it) with the figures of its latest published scorecard and its last
 * change. Read in a fixed number of queries whatever the type's size (the
 * list, then the scorecards of every listed entity in one batch, through
 * the reader's `scorecardsOfMany`), held by the
 * response cache as a snapshot per projection class and version. The
 * direction of a change compares the scorecard before it, which only callers
 * whose tier reads the history (the "full" class) are shown.
 */
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import type { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect } from "effect"
import type { Direction } from "./Components.ts"

/** Most entities of one type the explorer lists. */
export const MaxRows = 200_000

export interface ChainRef {
  readonly slug: string
  readonly name: string
}

export interface Row {
  readonly slug: string
  readonly name: string
  /** Lowercased name, slug and symbol: what search reads. */
  readonly searchText: string
  readonly grade: string | null
  readonly composite: number | null
  /** When the latest published scorecard was published. */
  readonly changedAt: string | null
  readonly direction: Direction | null
  readonly categories: ReadonlyArray<string>
  readonly chains: ReadonlyArray<ChainRef>
}

export interface TypeRows {
  readonly type: EntityType
  /** In the list's own order (as the API lists them). */
  readonly rows: ReadonlyArray<Row>
  /** Every category and chain the rows name, sorted, for the filters. */
  readonly categories: ReadonlyArray<string>
  readonly chains: ReadonlyArray<ChainRef>
}

export const chainsOf = (record: EntityRecord): ReadonlyArray<ChainRef> => {
  const r = record as { readonly chains?: ReadonlyArray<ChainRef>; readonly chain?: ChainRef }
  const all = [...(r.chain === undefined ? [] : [r.chain]), ...(r.chains ?? [])]
  const seen = new Set<string>()
  return all.filter((c) => !seen.has(c.slug) && seen.add(c.slug)).map((c) => ({ slug: c.slug, name: c.name }))
}

const directionOf = (latest: Scorecard, previous: Scorecard | undefined, full: boolean): Direction => {
  if (previous === undefined) return latest.scorecard_version === 1 || full ? "new" : "updated"
  if (!full) return "updated"
  const [now, before] = [latest.composite_score, previous.composite_score]
  if (now === null || before === null || now === before) return "same"
  return now > before ? "up" : "down"
}

/** One row from a record and its projected scorecards (newest first). */
export const rowOf = (
  record: EntityRecord,
  latest: Scorecard | undefined,
  previous: Scorecard | undefined,
  full: boolean
): Row => {
  const symbol = (record as { readonly symbol?: string }).symbol
  return {
    slug: record.slug,
    name: record.name,
    searchText: `${record.name.toLowerCase()}\u0000${record.slug}\u0000${symbol?.toLowerCase() ?? ""}`,
    grade: latest?.grade ?? null,
    composite: latest?.composite_score ?? null,
    changedAt: latest?.scorecard_published_at ?? null,
    direction: latest === undefined ? null : directionOf(latest, previous, full),
    categories: record.categories ?? [],
    chains: chainsOf(record)
  }
}

const distinct = (rows: ReadonlyArray<Row>) => {
  const categories = new Set<string>()
  const chains = new Map<string, ChainRef>()
  for (const row of rows) {
    for (const c of row.categories) categories.add(c)
    for (const c of row.chains) chains.set(c.slug, c)
  }
  return {
    categories: [...categories].sort(),
    chains: [...chains.values()].sort((a, b) => a.name.localeCompare(b.name))
  }
}

/** The rows of a type for the caller's projection class. */
export const buildRows = (reader: RatingsReader["Service"], caller: Caller, type: EntityType) =>
  Effect.gen(function* () {
    const kind = callerKind(caller)
    const full = kind === "pro" || kind === "enterprise" || kind === "admin"
    const page = yield* reader.list(caller, { entity_type: type, categories: [], skip: 0, limit: MaxRows })
    const cards = yield* reader.scorecardsOfMany(
      caller,
      type,
      page.items.map((r) => r.id)
    )
    const rows = page.items.map((record) => {
      const list = cards.get(record.id) ?? []
      const at = list.findIndex((c) => c.status === "published")
      return rowOf(record, at === -1 ? undefined : list[at], at === -1 ? undefined : list[at + 1], full)
    })
    return { type, rows, ...distinct(rows) } satisfies TypeRows
  })

/** Bytes a snapshot of rows is charged in the cache, roughly. */
export const rowsBytes = (rows: TypeRows): number => 256 + rows.rows.length * 400
