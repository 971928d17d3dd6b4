/**
 * Where an import's byte stores (the answer table, the record stores) put
 * the chunks they have filled, so that what an import holds in memory does
 * not grow with its input: a store keeps the chunk it is filling and a few
 * it read lately, and reads any other back from the spill. A process gives
 * a file (demo-data's ImportSpillFile.ts); without one, chunks stay in memory.
 */

/** Chunks put aside and read back by place. */
export interface ChunkSpill {
  /** Keeps a copy of `bytes`; the place to read them back from. */
  readonly put: (bytes: Uint8Array) => number
  /** Fills `into` with the bytes kept from `at` on. */
  readonly get: (at: number, into: Uint8Array) => void
}

/** A spill that cannot keep or give back bytes: the import cannot go on, and says why. */
export class ImportSpillFailed extends Error {
  override readonly name = "ImportSpillFailed"
}

/** Chunks a list keeps in memory, besides the one being filled, once it has spilled them. */
export const CachedChunks = 8

/** The typed arrays chunks are made of. */
type Chunk = Uint8Array | Uint32Array

/**
 * A store's chunks, the last one being filled. With a spill, each chunk is
 * put there when it is sealed and dropped from memory; reading one brings it
 * back into a small cache of the ones read last, its buffers reused. Stores
 * read their chunks mostly in the order they filled them, so each comes back
 * about once a pass; a record read out of that order is read alone.
 * A chunk or bytes given back stay valid until the list reads others.
 */
export interface ChunkList<C extends Chunk> {
  /** Chunks in the list. */
  readonly length: () => number
  /** Adds a chunk to fill; the one before it must have been sealed. */
  readonly push: (chunk: C) => void
  /** The last chunk holds all it will: its first `bytes` bytes are kept (spilled, with a spill). */
  readonly seal: (bytes: number) => void
  /** Chunk `n`, read back if it was spilled. */
  readonly at: (n: number) => C
  /**
   * `length` bytes of chunk `n` from byte `start`: the chunk brought back
   * when the list is read in order, else just those bytes.
   */
  readonly bytes: (n: number, start: number, length: number) => Uint8Array
}

const bytesOf = (c: Chunk, length = c.byteLength): Uint8Array =>
  new Uint8Array(c.buffer, c.byteOffset, length)

/** An empty list of chunks; `view` makes a chunk of the bytes read back. */
export const chunkList = <C extends Chunk>(
  spill: ChunkSpill | undefined,
  view: (bytes: Uint8Array) => C
): ChunkList<C> => {
  const held: Array<C | undefined> = []
  const places: Array<{ readonly at: number; readonly bytes: number }> = []
  const cache = new Map<number, C>()
  let spare: Uint8Array | undefined
  let scratch = new Uint8Array(0)
  let last = -1
  // The chunk read last, found without touching the cache's order: reads come in runs on one chunk.
  let hotN = -1
  let hot: C | undefined
  const cached = (n: number): C | undefined => {
    const chunk = cache.get(n)
    if (chunk !== undefined) {
      // Most recently read last: the first entry is the one to drop.
      cache.delete(n)
      cache.set(n, chunk)
      hotN = n
      hot = chunk
    }
    return chunk
  }
  const load = (n: number): C => {
    const place = places[n]!
    const buffer = spare !== undefined && spare.length >= place.bytes ? spare : new Uint8Array(place.bytes)
    spare = undefined
    const bytes = buffer.subarray(0, place.bytes)
    spill!.get(place.at, bytes)
    const chunk = view(bytes)
    cache.set(n, chunk)
    if (cache.size > CachedChunks) {
      const [first, dropped] = cache.entries().next().value!
      cache.delete(first)
      spare = new Uint8Array(dropped.buffer)
    }
    hotN = n
    hot = chunk
    return chunk
  }
  return {
    length: () => held.length,
    push: (chunk) => {
      held.push(chunk)
    },
    seal: (bytes) => {
      const n = held.length - 1
      if (spill === undefined || n < 0 || held[n] === undefined) return
      places[n] = { at: spill.put(bytesOf(held[n]!, bytes)), bytes }
      held[n] = undefined
    },
    at: (n) => held[n] ?? (n === hotN ? hot! : (cached(n) ?? load(n))),
    bytes: (n, start, length) => {
      const previous = last
      last = n
      const chunk =
        held[n] ??
        (n === hotN ? hot : cached(n)) ??
        (n === previous || n === previous + 1 ? load(n) : undefined)
      if (chunk !== undefined) return bytesOf(chunk).subarray(start, start + length)
      if (scratch.length < length) scratch = new Uint8Array(Math.max(length, 1 << 12))
      const into = scratch.subarray(0, length)
      spill!.get(places[n]!.at + start, into)
      return into
    }
  }
}
