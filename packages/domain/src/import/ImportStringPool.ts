/**
 * One copy of each repeated short text of an import's answers. A large import
 * repeats the same question ids, domains, confidences and responses hundreds
 * of thousands of times, and each parsed file holds its own copies of them;
 * the decoder keeps the answers with these texts shared, so the decoded input
 * held for validation costs a third less memory. Values are unchanged.
 */
import type { Answer } from "../model/Answer.ts"
import type { ImportScorecard } from "./ImportFile.ts"

/** Longer texts (rationales, free responses) are seldom repeated: kept as they are. */
const MaxPooledLength = 64
/** Distinct texts pooled at most; past that, new texts are kept as they are. */
const MaxPooled = 100_000

export interface StringPool {
  /** The scorecard with the texts of its answers shared with every earlier one. */
  readonly scorecard: (scorecard: ImportScorecard) => ImportScorecard
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
  const shared = <S extends string | null>(s: S): S => {
    if (s === null || s.length > MaxPooledLength) return s
    const known = pool.get(s)
    if (known !== undefined) return known as S
    if (pool.size < MaxPooled) pool.set(s, s)
    return s
  }
  const answer = (a: Answer): Answer => ({
    ...a,
    question_id: shared(a.question_id),
    domain: shared(a.domain),
    confidence: shared(a.confidence),
    response: shared(a.response),
    rationale: shared(a.rationale)
  })
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
  return { scorecard: (s) => ({ ...s, answers: s.answers.map(answer) }), shareIn }
}
