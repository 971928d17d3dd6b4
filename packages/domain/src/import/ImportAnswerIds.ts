/**
 * The set of answer ids an import has seen, to find an id two answers share.
 * An import holds millions of them; a Set of strings keeps a heap entry per id
 * that every garbage collection walks. Lower-case UUIDs, the ids the format
 * writes and derives, are kept here as four 32-bit words in an open-addressing
 * table outside the heap's object graph; any other spelling goes to a plain
 * Set, so two ids are the same exactly when their strings are.
 */

/** A set of strings, compact for lower-case UUIDs. */
export interface AnswerIdSet {
  /** Adds `id`; false when it was there already. */
  readonly add: (id: string) => boolean
  /** Whether `id` was added. */
  readonly has: (id: string) => boolean
  readonly size: number
}

const InitialSlots = 1 << 10
/** Slots may be filled up to this fraction before the table doubles. */
const MaxLoad = 0.75

const hexValue = (code: number): number =>
  code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1

/** Eight hex digits of `s` from `at`, as an unsigned word; -1 when one is not a lower-case hex digit. */
const word = (s: string, at: number, gap: number): number => {
  let w = 0
  for (let i = 0, k = at; i < 8; i++, k++) {
    if (k === gap) k++
    const v = hexValue(s.charCodeAt(k))
    if (v < 0) return -1
    w = w * 16 + v
  }
  return w
}

/** Writes the four words of a lower-case UUID (8-4-4-4-12) to `out`; false when `s` is not one. */
export const uuidWords = (s: string, out: Uint32Array): boolean => {
  if (s.length !== 36) return false
  const c = (i: number) => s.charCodeAt(i)
  if (c(8) !== 45 || c(13) !== 45 || c(18) !== 45 || c(23) !== 45) return false
  const w0 = word(s, 0, -1)
  const w1 = word(s, 9, 13)
  const w2 = word(s, 19, 23)
  const w3 = word(s, 28, -1)
  if (w0 < 0 || w1 < 0 || w2 < 0 || w3 < 0) return false
  out[0] = w0
  out[1] = w1
  out[2] = w2
  out[3] = w3
  return true
}

export const mix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

const hashOf = (w: Uint32Array): number => mix(w[0]! ^ mix(w[1]! ^ mix(w[2]! ^ mix(w[3]!))))

/** An empty set of answer ids. */
export const answerIdSet = (): AnswerIdSet => {
  let slots = InitialSlots
  let table = new Uint32Array(slots * 4)
  let used = new Uint8Array(slots)
  let uuids = 0
  const others = new Set<string>()
  const words = new Uint32Array(4)

  /** Puts `w` in the table unless there; false when it was. */
  const put = (w: Uint32Array, t: Uint32Array, u: Uint8Array, mask: number): boolean => {
    let i = hashOf(w) & mask
    while (u[i] === 1) {
      const at = i * 4
      if (t[at] === w[0] && t[at + 1] === w[1] && t[at + 2] === w[2] && t[at + 3] === w[3]) return false
      i = (i + 1) & mask
    }
    u[i] = 1
    t.set(w, i * 4)
    return true
  }

  const grow = () => {
    const bigger = slots * 2
    const t = new Uint32Array(bigger * 4)
    const u = new Uint8Array(bigger)
    const moved = new Uint32Array(4)
    for (let i = 0; i < slots; i++) {
      if (used[i] !== 1) continue
      for (let k = 0; k < 4; k++) moved[k] = table[i * 4 + k]!
      put(moved, t, u, bigger - 1)
    }
    slots = bigger
    table = t
    used = u
  }

  const has = (id: string): boolean => {
    if (!uuidWords(id, words)) return others.has(id)
    let i = hashOf(words) & (slots - 1)
    while (used[i] === 1) {
      const at = i * 4
      if (
        table[at] === words[0] &&
        table[at + 1] === words[1] &&
        table[at + 2] === words[2] &&
        table[at + 3] === words[3]
      )
        return true
      i = (i + 1) & (slots - 1)
    }
    return false
  }

  const add = (id: string): boolean => {
    if (!uuidWords(id, words)) {
      const known = others.size
      others.add(id)
      return others.size > known
    }
    if (!put(words, table, used, slots - 1)) return false
    uuids++
    if (uuids > slots * MaxLoad) grow()
    return true
  }

  return {
    add,
    has,
    get size() {
      return uuids + others.size
    }
  }
}
