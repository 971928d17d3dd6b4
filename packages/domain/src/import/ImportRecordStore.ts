/**
 * Decoded records of an import kept as JSON text in chunks of bytes, outside
 * the JS heap, from decoding until they are written; full chunks go to the
 * import's spill (ImportSpill.ts). As objects each record is a graph of
 * objects, arrays and texts that the heap holds and every full collection
 * walks. Here a record is its JSON bytes, and an item gives it back as a
 * fresh object on each read (`lazyLocated`), so every reader sees the same
 * values and only the records being worked on exist as objects. Only values
 * that JSON gives back exactly are kept so (`isJsonExact`); any other stays
 * an object. An object is kept without its key names, which the store keeps
 * once per shape (ImportRecordShapes.ts).
 */
/** The platform's UTF-8 coders (the domain is typed without the DOM's or Node's globals). */
const coders = globalThis as unknown as {
  readonly TextEncoder: new () => {
    encode(text: string): Uint8Array
    encodeInto(text: string, into: Uint8Array): { read: number; written: number }
  }
  readonly TextDecoder: new () => { decode(bytes: Uint8Array): string }
}

import { type AnswerSlice, withLazyAnswers } from "./ImportAnswerTable.ts"
import { shapes } from "./ImportRecordShapes.ts"
import { type ChunkSpill, chunkList } from "./ImportSpill.ts"

/** Bytes per chunk; a record larger than this gets a chunk of its own. Chunks are never copied. */
const ChunkSize = 1 << 20

/** Where a record's bytes are. */
export interface RecordRef {
  readonly store: RecordStore
  readonly chunk: number
  readonly start: number
  readonly length: number
  /** The record's shape (ImportRecordShapes.ts) when it is kept as the array of its values; -1: as its JSON. */
  readonly shape: number
}

export interface RecordStore {
  /** Stores a value's JSON; its place, or undefined when JSON would not give it back exactly. */
  readonly add: (value: unknown) => RecordRef | undefined
  /** The value stored at `ref`, as a new object. */
  readonly read: (ref: RecordRef) => unknown
  /** Bytes stored. */
  readonly bytes: () => number
}

/**
 * Whether JSON.parse(JSON.stringify(v)) is a value equal to `v` in every
 * respect: plain objects and arrays, finite numbers other than -0,
 * booleans and null; no undefined, no prototype but Object's, no holes.
 */
export const isJsonExact = (v: unknown): boolean => {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(v) && !Object.is(v, -0)
    case "object": {
      if (v === null) return true
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!(i in v) || !isJsonExact(v[i])) return false
        return true
      }
      const proto = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) return false
      // Walked without making arrays of its keys: this runs on every record an import keeps.
      let keys = 0
      for (const k in v) {
        if (!Object.hasOwn(v, k) || k === "__proto__") return false
        if (!isJsonExact((v as Record<string, unknown>)[k])) return false
        keys++
      }
      return Object.getOwnPropertyNames(v).length === keys && Object.getOwnPropertySymbols(v).length === 0
    }
    default:
      return false
  }
}

/**
 * An empty store of records. With a spill, each chunk is put there once it is
 * full and read back when a record in it is read (ImportSpill.ts).
 */
export const recordStore = (spill?: ChunkSpill): RecordStore => {
  const chunks = chunkList<Uint8Array>(spill, (bytes) => bytes)
  let current: Uint8Array | undefined
  let used = ChunkSize
  let total = 0
  const encoder = new coders.TextEncoder()
  const decoder = new coders.TextDecoder()
  const { encode, decode } = shapes()
  const store: RecordStore = {
    add: (value) => {
      if (!isJsonExact(value)) return undefined
      const { text, shape } = encode(value)
      if (current !== undefined) {
        const { read, written } = encoder.encodeInto(text, current.subarray(used))
        if (read === text.length) {
          const ref: RecordRef = { store, chunk: chunks.length() - 1, start: used, length: written, shape }
          used += written
          total += written
          return ref
        }
        chunks.seal(used)
      }
      // UTF-8 takes at most three bytes per UTF-16 unit; a record that may
      // not fit a chunk gets one of its own, just its size, that none shares.
      const own = text.length * 3 > ChunkSize
      current = own ? encoder.encode(text) : new Uint8Array(ChunkSize)
      chunks.push(current)
      const written = own ? current.length : encoder.encodeInto(text, current).written
      used = own ? current.length : written
      total += written
      return { store, chunk: chunks.length() - 1, start: 0, length: written, shape }
    },
    read: (ref) =>
      decode(JSON.parse(decoder.decode(chunks.bytes(ref.chunk, ref.start, ref.length))), ref.shape),
    bytes: () => total
  }
  return store
}

/** Where a located item made by `lazyLocated` keeps its record (not enumerable: not part of its value). */
const Ref: unique symbol = Symbol("@ratings/domain/import/RecordRef")

/** Where a located scorecard keeps the slice of its answers. */
const Answers: unique symbol = Symbol("@ratings/domain/import/RecordAnswers")

interface HoldsRef {
  readonly [Ref]: RecordRef
  readonly [Answers]: AnswerSlice
}

// One getter for every item (and one for every scorecard), so that they share hidden classes.
function readValue(this: HoldsRef): unknown {
  const ref = this[Ref]
  return ref.store.read(ref)
}

function readWithAnswers(this: HoldsRef): unknown {
  const ref = this[Ref]
  return withLazyAnswers(ref.store.read(ref) as object, this[Answers])
}

/**
 * The plain objects of lazily located items, made by constructors so that V8
 * sizes them for every property they get (symbols and `value` included) and
 * keeps those inside the object; their prototype is Object's, like a literal's.
 */
function LocatedRecord(this: { source: string; path: string }, source: string, path: string) {
  this.source = source
  this.path = path
}
function LocatedScorecard(this: { source: string; path: string }, source: string, path: string) {
  this.source = source
  this.path = path
}
LocatedRecord.prototype = Object.prototype
LocatedScorecard.prototype = Object.prototype
type Located = new (source: string, path: string) => { source: string; path: string }

/**
 * A located item whose `value` reads `ref` each time: an own, enumerable
 * property like any other, so that spreading, comparing or serialising the
 * item sees its value. With `answers`, the value also has the answers of that
 * slice (ImportAnswerTable.ts `withLazyAnswers`).
 */
export const lazyLocated = <A>(
  source: string,
  path: string,
  ref: RecordRef,
  answers?: AnswerSlice
): { readonly source: string; readonly path: string; readonly value: A } => {
  const o = new ((answers === undefined ? LocatedRecord : LocatedScorecard) as unknown as Located)(
    source,
    path
  )
  Object.defineProperty(o, Ref, { value: ref, enumerable: false })
  if (answers !== undefined) Object.defineProperty(o, Answers, { value: answers, enumerable: false })
  const get = answers === undefined ? readValue : readWithAnswers
  Object.defineProperty(o, "value", { get, enumerable: true, configurable: true })
  return o as { readonly source: string; readonly path: string; readonly value: A }
}

/** The record of an item made by `lazyLocated`, or undefined for any other. */
export const recordRefOf = (o: object): RecordRef | undefined => (o as Partial<HoldsRef>)[Ref]
