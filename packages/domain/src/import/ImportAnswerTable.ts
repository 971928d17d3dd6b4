/**
 * The answers of an import, held compactly from decoding until they are
 * written. An import holds millions of answers; as objects each is an object,
 * an id string, texts and boxed figures that every garbage collection walks.
 * Here an answer is 20 bytes of typed arrays, in chunks put in the spill
 * when full (ImportSpill.ts): its id as four 32-bit words (a lower-case UUID,
 * as the format writes and derives them; any other spelling is kept as its
 * string) and the index of its other fields, which repeat across answers, in
 * a table of distinct tuples. A scorecard holds a slice and gives its answers
 * back as plain `Answer` objects made afresh on each read (`withLazyAnswers`):
 * readers see the same values, and only the answers being worked on exist.
 */
import type { Answer } from "../model/Answer.ts"
import { mix, uuidWords } from "./ImportAnswerIds.ts"
import { type ChunkList, type ChunkSpill, chunkList } from "./ImportSpill.ts"

/** Answers per chunk of the columns; chunks are never copied as the table grows. */
const ChunkBits = 16
const ChunkSize = 1 << ChunkBits
const ChunkMask = ChunkSize - 1
/** A rationale or response longer than this is seldom repeated: its tuple is not interned. */
const MaxInternedText = 64

export type AnswerFields = Omit<Answer, "id">

/** Where a scorecard's answers are in the table, and the order to give them in. */
export interface AnswerSlice {
  readonly table: AnswerTable
  readonly start: number
  readonly count: number
  /** Positions in the slice, in the order to read them; undefined: as added. */
  readonly order: Int32Array | undefined
}

export interface AnswerTable {
  /** Stores answers at the end of the table; their slice. */
  readonly add: (answers: ReadonlyArray<Answer>) => AnswerSlice
  /** The answers of a slice, as new objects. */
  readonly read: (slice: AnswerSlice) => Array<Answer>
  /** The answers of a slice without their ids: the table's own shared tuples, never to be changed. */
  readonly fields: (slice: AnswerSlice) => Array<AnswerFields>
  /** The ids of a slice's answers, in its order: with `fields`, its answers column by column, no object made per answer. */
  readonly ids: (slice: AnswerSlice) => Array<string>
  /**
   * The ids of a slice's answers as four words each (a UUID's 16 bytes, as
   * big-endian words), in its order, with no text made; undefined when one of
   * them is not a lower-case UUID (`ids` has every id).
   */
  readonly idWords: (slice: AnswerSlice) => Uint32Array | undefined
  /** Answers stored. */
  readonly size: () => number
  /** An empty set of this table's answers by id, sized for every answer stored so far. */
  readonly idIndex: () => AnswerIdIndex
}

/**
 * Answers of a table by id, to find an id two answers share: 6 bytes per
 * answer (its index in the table and a fingerprint of its id), the ids
 * themselves staying in the table.
 */
export interface AnswerIdIndex {
  /** Adds answer `i` of the table; false when an answer added before has the same id. */
  readonly add: (i: number) => boolean
  /** Whether an answer added has this id. */
  readonly has: (id: string) => boolean
}

/** Slots of an id index may be filled up to this fraction before it doubles. */
const MaxLoad = 0.8

const HexCodes = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
/** The character codes of the UUID being written, dashes in place. */
const uuidCodes = Uint16Array.from({ length: 36 }, (_, i) =>
  i === 8 || i === 13 || i === 18 || i === 23 ? 45 : 0
)

/** Writes the `digits` hex digits of `w` (its low ones) at `at`. */
const putHex = (w: number, digits: number, at: number): void => {
  for (let k = 0; k < digits; k++) uuidCodes[at + k] = HexCodes[(w >>> (4 * (digits - 1 - k))) & 15]!
}

/**
 * The UUID text of four words, as `uuidWords` read it: built flat in one
 * call, where concatenation would leave a tree of pieces to flatten again
 * wherever the id is used.
 */
const uuidText = (w0: number, w1: number, w2: number, w3: number): string => {
  putHex(w0, 8, 0)
  putHex(w1 >>> 16, 4, 9)
  putHex(w1, 4, 14)
  putHex(w2 >>> 16, 4, 19)
  putHex(w2, 4, 24)
  putHex(w3, 8, 28)
  return String.fromCharCode.apply(null, uuidCodes as unknown as Array<number>)
}

/** A number as a key part that tells -0 from 0. */
const num = (n: number): string => (Object.is(n, -0) ? "-0" : String(n))
/** A nullable text as a key part: length-prefixed, so no text can pass for another. */
const txt = (s: string | null): string => (s === null ? "~" : `${s.length}:${s}`)

const tupleKey = (a: Answer): string =>
  txt(a.question_id) +
  txt(a.domain) +
  num(a.score ?? Number.NaN) +
  "|" +
  num(a.max_score) +
  "|" +
  num(a.weight) +
  "|" +
  txt(a.confidence) +
  txt(a.response) +
  txt(a.rationale)

const fieldsOf = (a: Answer): AnswerFields => ({
  question_id: a.question_id,
  domain: a.domain,
  score: a.score,
  max_score: a.max_score,
  weight: a.weight,
  confidence: a.confidence,
  response: a.response,
  rationale: a.rationale
})

/** The columns of a table: chunks of id words and tuple indexes, and the distinct tuples. */
interface Columns {
  readonly idChunks: ChunkList<Uint32Array>
  readonly tupleChunks: ChunkList<Uint32Array>
  /** Ids that are not lower-case UUIDs, by answer index. */
  readonly otherIds: Map<number, string>
  readonly tuples: Array<AnswerFields>
  readonly tupleIndex: Map<string, number>
  readonly words: Uint32Array
  size: number
}

/** The index of an answer's fields in the tuples, interned unless a long text makes it unique. */
const tupleOf = (cols: Columns, a: Answer): number => {
  const long =
    (a.rationale !== null && a.rationale.length > MaxInternedText) ||
    (a.response !== null && a.response.length > MaxInternedText)
  const key = long ? undefined : tupleKey(a)
  const known = key === undefined ? undefined : cols.tupleIndex.get(key)
  if (known !== undefined) return known
  cols.tuples.push(fieldsOf(a))
  if (key !== undefined) cols.tupleIndex.set(key, cols.tuples.length - 1)
  return cols.tuples.length - 1
}

const put = (cols: Columns, a: Answer): void => {
  const c = cols.size >>> ChunkBits
  if (c === cols.idChunks.length()) {
    cols.idChunks.seal(ChunkSize * 16)
    cols.tupleChunks.seal(ChunkSize * 4)
    cols.idChunks.push(new Uint32Array(ChunkSize * 4))
    cols.tupleChunks.push(new Uint32Array(ChunkSize))
  }
  const at = cols.size & ChunkMask
  if (uuidWords(a.id, cols.words)) cols.idChunks.at(c).set(cols.words, at * 4)
  else cols.otherIds.set(cols.size, a.id)
  cols.tupleChunks.at(c)[at] = tupleOf(cols, a)
  cols.size++
}

/** The id of answer `i`. */
const idAt = (cols: Columns, i: number): string => {
  const ids = cols.idChunks.at(i >>> ChunkBits)
  const k = (i & ChunkMask) * 4
  return cols.otherIds.get(i) ?? uuidText(ids[k]!, ids[k + 1]!, ids[k + 2]!, ids[k + 3]!)
}

const answerAt = (cols: Columns, i: number): Answer => {
  const t = cols.tuples[cols.tupleChunks.at(i >>> ChunkBits)[i & ChunkMask]!]!
  return {
    id: idAt(cols, i),
    question_id: t.question_id,
    domain: t.domain,
    score: t.score,
    max_score: t.max_score,
    weight: t.weight,
    confidence: t.confidence,
    response: t.response,
    rationale: t.rationale
  }
}

const hashOfWords = (w0: number, w1: number, w2: number, w3: number): number =>
  mix(w0 ^ mix(w1 ^ mix(w2 ^ mix(w3))))

/** A second hash of an id, kept beside its cell so that a probe seldom reads the id itself. */
const fingerprint = (hash: number): number => mix(hash ^ 0x5bd1e995) >>> 16

/** The id words of answer `i`, read without bringing its chunk back whole when it was spilled. */
const wordsAt = (cols: Columns, i: number, out: Uint32Array): Uint32Array => {
  out.set(new Uint32Array(cols.idChunks.bytes(i >>> ChunkBits, (i & ChunkMask) * 16, 16).slice().buffer))
  return out
}

/**
 * Open addressing over answer indexes: each cell holds an answer's index + 1
 * (0 is empty) and its id's fingerprint; the id in the table is read only
 * when the fingerprint matches, so probing does not wander over the table.
 */
interface Cells {
  slots: number
  cells: Uint32Array
  prints: Uint16Array
  count: number
  readonly other: Uint32Array
}

/** The cell of id words `w`: one holding an answer with them, or an empty one. */
const findCell = (cols: Columns, t: Cells, w: Uint32Array, hash: number): number => {
  const mask = t.slots - 1
  const print = fingerprint(hash)
  for (let s = hash & mask; ; s = (s + 1) & mask) {
    const cell = t.cells[s]!
    if (cell === 0) return s
    if (t.prints[s] !== print) continue
    const o = wordsAt(cols, cell - 1, t.other)
    if (o[0] === w[0] && o[1] === w[1] && o[2] === w[2] && o[3] === w[3]) return s
  }
}

const growCells = (cols: Columns, t: Cells): void => {
  const [cells, prints] = [t.cells, t.prints]
  t.slots *= 2
  t.cells = new Uint32Array(t.slots)
  t.prints = new Uint16Array(t.slots)
  for (let k = 0; k < cells.length; k++) {
    if (cells[k] === 0) continue
    const o = wordsAt(cols, cells[k]! - 1, t.other)
    let s = hashOfWords(o[0]!, o[1]!, o[2]!, o[3]!) & (t.slots - 1)
    while (t.cells[s] !== 0) s = (s + 1) & (t.slots - 1)
    t.cells[s] = cells[k]!
    t.prints[s] = prints[k]!
  }
}

const idIndexOf = (cols: Columns): AnswerIdIndex => {
  let slots = 1 << 10
  while (slots * MaxLoad < cols.size) slots *= 2
  const t: Cells = {
    slots,
    cells: new Uint32Array(slots),
    prints: new Uint16Array(slots),
    count: 0,
    other: new Uint32Array(4)
  }
  const others = new Set<string>()
  const words = new Uint32Array(4)
  const add = (i: number): boolean => {
    const other = cols.otherIds.size === 0 ? undefined : cols.otherIds.get(i)
    if (other !== undefined) {
      const known = others.size
      return others.add(other).size > known
    }
    const ids = cols.idChunks.at(i >>> ChunkBits)
    const k = (i & ChunkMask) * 4
    for (let w = 0; w < 4; w++) words[w] = ids[k + w]!
    const hash = hashOfWords(words[0]!, words[1]!, words[2]!, words[3]!)
    const s = findCell(cols, t, words, hash)
    if (t.cells[s] !== 0) return false
    t.cells[s] = i + 1
    t.prints[s] = fingerprint(hash)
    if (++t.count > t.slots * MaxLoad) growCells(cols, t)
    return true
  }
  const has = (id: string): boolean =>
    uuidWords(id, words)
      ? t.cells[findCell(cols, t, words, hashOfWords(words[0]!, words[1]!, words[2]!, words[3]!))] !== 0
      : others.has(id)
  return { add, has }
}

/** The words of bytes read back from a spill. */
const wordsOf = (bytes: Uint8Array): Uint32Array =>
  new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2)

/** An empty table of answers. */
export const answerTable = (spill?: ChunkSpill): AnswerTable => {
  const cols: Columns = {
    idChunks: chunkList(spill, wordsOf),
    tupleChunks: chunkList(spill, wordsOf),
    otherIds: new Map(),
    tuples: [],
    tupleIndex: new Map(),
    words: new Uint32Array(4),
    size: 0
  }
  const table: AnswerTable = {
    add: (answers) => {
      const start = cols.size
      for (const a of answers) put(cols, a)
      return { table, start, count: answers.length, order: undefined }
    },
    read: ({ start, count, order }) => {
      const out = new Array<Answer>(count)
      for (let j = 0; j < count; j++) out[j] = answerAt(cols, start + (order === undefined ? j : order[j]!))
      return out
    },
    fields: ({ start, count, order }) => {
      const out = new Array<AnswerFields>(count)
      for (let j = 0; j < count; j++) {
        const i = start + (order === undefined ? j : order[j]!)
        out[j] = cols.tuples[cols.tupleChunks.at(i >>> ChunkBits)[i & ChunkMask]!]!
      }
      return out
    },
    ids: ({ start, count, order }) => {
      const out = new Array<string>(count)
      for (let j = 0; j < count; j++) out[j] = idAt(cols, start + (order === undefined ? j : order[j]!))
      return out
    },
    idWords: ({ start, count, order }) => {
      const out = new Uint32Array(count * 4)
      for (let j = 0; j < count; j++) {
        const i = start + (order === undefined ? j : order[j]!)
        if (cols.otherIds.size > 0 && cols.otherIds.has(i)) return undefined
        const ids = cols.idChunks.at(i >>> ChunkBits)
        const k = (i & ChunkMask) * 4
        out[j * 4] = ids[k]!
        out[j * 4 + 1] = ids[k + 1]!
        out[j * 4 + 2] = ids[k + 2]!
        out[j * 4 + 3] = ids[k + 3]!
      }
      return out
    },
    size: () => cols.size,
    idIndex: () => idIndexOf(cols)
  }
  return table
}

/** Where an object made by `withLazyAnswers` keeps its slice (not enumerable: not part of its value). */
const Slice: unique symbol = Symbol("@ratings/domain/import/AnswerSlice")

interface HoldsSlice {
  readonly [Slice]: AnswerSlice
}

// One getter for every object, so that they all share one hidden class.
function readAnswers(this: HoldsSlice): Array<Answer> {
  const slice = this[Slice]
  return slice.table.read(slice)
}

/**
 * `fields` with an `answers` property that reads `slice` each time: an own,
 * enumerable property like any other, so that spreading, comparing or
 * serialising the object sees the answers as an array.
 */
export const withLazyAnswers = <T extends object>(
  fields: T,
  slice: AnswerSlice
): T & { readonly answers: Array<Answer> } => {
  const o = { ...fields }
  Object.defineProperty(o, Slice, { value: slice, enumerable: false })
  Object.defineProperty(o, "answers", { get: readAnswers, enumerable: true, configurable: true })
  return o as T & { readonly answers: Array<Answer> }
}

/**
 * The answers of an object without their ids, for scoring: the table's shared
 * tuples when it was made by `withLazyAnswers` (no object made), else its own.
 */
export const answerFieldsOf = (o: {
  readonly answers: ReadonlyArray<Answer>
}): ReadonlyArray<AnswerFields> => {
  const slice = answerSliceOf(o)
  return slice === undefined ? o.answers : slice.table.fields(slice)
}

/** The slice of an object made by `withLazyAnswers`, or undefined for any other. */
export const answerSliceOf = (o: object): AnswerSlice | undefined => (o as Partial<HoldsSlice>)[Slice]

/** The slice in another order (positions in the slice, in the order to read them). */
export const reordered = (slice: AnswerSlice, order: Int32Array | undefined): AnswerSlice => {
  const before = slice.order
  if (order === undefined || before === undefined) return { ...slice, order: order ?? before }
  return { ...slice, order: order.map((j) => before[j]!) }
}
