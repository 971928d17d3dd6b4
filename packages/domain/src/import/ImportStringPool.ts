/**
 * One copy of each repeated short text of an import's decoded records. A large
 * import repeats the same statuses, descriptions, dates and categories across
 * thousands of entities, and each parsed item holds its own copies of them;
 * the decoder keeps these texts shared, so the decoded input held for
 * validation costs less memory. Values are unchanged. (Answers' texts are
 * shared by the answer table's tuples, ImportAnswerTable.ts.)
 */

/** Distinct texts pooled at most; past that, new texts are kept as they are. */
const MaxPooled = 100_000

export interface StringPool {
  /**
   * Shares, in place, the short texts held by the objects and arrays of a
   * value the decoder has just made (its own, not the input's): the records
   * of many entities repeat statuses, descriptions, dates and categories.
   */
  readonly shareIn: <A>(value: A) => A
}

/** Texts up to this length are shared by `shareIn`. */
const MaxSharedLength = 128

export const stringPool = (): StringPool => {
  const pool = new Map<string, string>()
  const sharedText = (s: string): string => {
    if (s.length > MaxSharedLength) return s
    const known = pool.get(s)
    if (known !== undefined) return known
    if (pool.size < MaxPooled) pool.set(s, s)
    return s
  }
  const shareIn = <A>(value: A): A => {
    const stack: Array<unknown> = [value]
    while (stack.length > 0) {
      const v = stack.pop()
      if (typeof v !== "object" || v === null) continue
      const o = v as Record<string, unknown>
      const frozen = Object.isFrozen(o)
      for (const k of Object.keys(o)) {
        const x = o[k]
        if (typeof x === "object" && x !== null) stack.push(x)
        else if (typeof x === "string" && !frozen) {
          const shared = sharedText(x)
          if (shared !== x) o[k] = shared
        }
      }
    }
    return value
  }
  return { shareIn }
}
