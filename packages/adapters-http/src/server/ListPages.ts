/**
 * Entity list pages from a list snapshot (the domain's `ListSnapshot`: every
 * record a non-admin caller may list of one type, in list order), without a
 * query: each record is encoded once, with the list endpoint's own success
 * codec and `JSON.stringify` as HttpApiBuilder encodes, and a page's body is
 * its items' strings joined inside the list's shell. So a page is
 * byte-identical to the one the route computes from the store
 * (docs/adr/0007-projection-cache.md, "List snapshots"); ResponseCache holds
 * the encoded list per projection class and version of the type.
 */
import type { ListRequest } from "@ratings/domain/services/RatingsReader"
import { type ListSnapshot, pageOfSnapshot } from "@ratings/domain/services/RatingsReader"
import { Effect, type Schema as S, Schema } from "effect"

/** Most records a list snapshot holds; a longer list is answered from the store, page by page. */
export const MaxListSnapshotItems = 50_000

/** A list snapshot with its records encoded, ready to page. */
export interface EncodedList {
  /** The snapshot's keys and hidden names (its records are dropped once encoded). */
  readonly snapshot: ListSnapshot
  /** Each record's JSON, at the snapshot's positions. */
  readonly items: ReadonlyArray<string>
  /** False when pages cannot be answered from it exactly: the snapshot is incomplete, or the shell differs. */
  readonly exact: boolean
  /** What it holds in memory, roughly: the JSON and the filter keys. */
  readonly bytes: number
}

/** The shell of a list body as the codec writes it: the items, then the total. */
const EmptyShell = '{"items":[],"total":0}'

/** Bytes charged per record beyond its JSON: its filter keys and the array slots. */
const KeysOverhead = 160

const inexact = (snapshot: ListSnapshot): EncodedList => ({
  snapshot: { ...snapshot, records: [], keys: [] },
  items: [],
  exact: false,
  bytes: 256
})

/**
 * Encodes every record of a snapshot with the list codec (one encode of the
 * whole list; an item's JSON is what `JSON.stringify` writes for it inside
 * the array). Inexact when the codec's shell is not `{"items":[...],"total":N}`.
 */
export const encodeList = (snapshot: ListSnapshot, codec: S.Top): Effect.Effect<EncodedList> =>
  Effect.gen(function* () {
    if (!snapshot.complete) return inexact(snapshot)
    const encode = Schema.encodeUnknownEffect(codec) as (
      value: unknown
    ) => Effect.Effect<unknown, S.SchemaError>
    // A record that does not encode is our bug, a 500 as on the uncached path.
    const encoded = (yield* Effect.orDie(encode({ items: snapshot.records, total: 0 }))) as {
      readonly items: ReadonlyArray<unknown>
    }
    if (JSON.stringify({ ...encoded, items: [] }) !== EmptyShell) return inexact(snapshot)
    const items = encoded.items.map((item) => JSON.stringify(item))
    let bytes = 0
    for (const item of items) bytes += item.length + KeysOverhead
    return { snapshot: { ...snapshot, records: [] }, items, exact: true, bytes }
  })

/** The body of a list page, byte for byte the route's; undefined when the list is not exact. */
export const listPageBody = (list: EncodedList, request: ListRequest): Uint8Array | undefined => {
  if (!list.exact) return undefined
  const page = pageOfSnapshot(list.snapshot, request)
  const items: Array<string> = new Array(page.positions.length)
  for (let i = 0; i < page.positions.length; i++) items[i] = list.items[page.positions[i]!]!
  return Buffer.from(`{"items":[${items.join(",")}],"total":${page.total}}`, "utf8")
}
