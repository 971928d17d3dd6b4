/**
 * Entity list pages from a list snapshot (the domain's `ListSnapshot`: every
 * record a non-admin caller may list of one type, in list order), without a
 * query: each record is encoded once, with the list endpoint's own success
 * codec and `JSON.stringify` as HttpApiBuilder encodes, into one buffer of
 * UTF-8 (off the JS heap, no object per item), and a page's body is its items'
 * bytes copied between the list's shell. So a page is
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
  /**
   * Every record's JSON in UTF-8 in list order, a comma between two: a run of
   * consecutive records (an unfiltered page) is one copy.
   */
  readonly arena: Buffer
  /** Where record i's JSON starts in `arena` (it ends one byte before record i + 1's start). */
  readonly starts: Uint32Array
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
  arena: Buffer.alloc(0),
  starts: new Uint32Array(1),
  exact: false,
  bytes: 256
})

const Open = Buffer.from('{"items":[', "utf8")
const Comma = 0x2c

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
    const starts = new Uint32Array(items.length + 1)
    for (let i = 0; i < items.length; i++)
      starts[i + 1] = starts[i]! + Buffer.byteLength(items[i]!, "utf8") + 1
    const arena = Buffer.allocUnsafeSlow(starts[items.length]!)
    for (let i = 0; i < items.length; i++) {
      arena.write(items[i]!, starts[i]!, "utf8")
      arena[starts[i + 1]! - 1] = Comma
    }
    const bytes = arena.length + items.length * KeysOverhead
    return { snapshot: { ...snapshot, records: [] }, arena, starts, exact: true, bytes }
  })

/** The body of a list page, byte for byte the route's; undefined when the list is not exact. */
export const listPageBody = (list: EncodedList, request: ListRequest): Uint8Array | undefined => {
  if (!list.exact) return undefined
  const { positions, total } = pageOfSnapshot(list.snapshot, request)
  const close = Buffer.from(`],"total":${total}}`, "utf8")
  const { arena, starts } = list
  // Each item with the comma after it, less the last comma.
  let size = Open.length + close.length - (positions.length > 0 ? 1 : 0)
  for (const p of positions) size += starts[p + 1]! - starts[p]!
  const body = Buffer.allocUnsafe(size)
  let at = Open.copy(body, 0)
  for (let i = 0; i < positions.length; ) {
    // The run of consecutive positions from i: one copy, commas included.
    let j = i + 1
    while (j < positions.length && positions[j] === positions[j - 1]! + 1) j++
    at += arena.copy(body, at, starts[positions[i]!]!, starts[positions[j - 1]! + 1]!)
    i = j
  }
  close.copy(body, positions.length > 0 ? at - 1 : at)
  return body
}
