/**
 * JSON numbers beyond the range of a double. RFC 8259 sets no bound on a
 * number's text, and `JSON.parse` reads one past ±1.7976931348623157e308
 * (`1e400`, `-1E+999`, an integer of 400 digits) as ±Infinity: a value no
 * field of ours takes, and one no JSON can carry back (an error answer echoing
 * it cannot be encoded). `nonFiniteNumbers` finds them in a JSON text, with
 * where each is and how it was written, so that a request body holding one is
 * refused as the bad input it is.
 */

/** A number of a JSON text that parses to ±Infinity: its place (keys and indexes from the root) and its text. */
export interface NonFiniteNumber {
  readonly path: ReadonlyArray<string | number>
  /**
   * The number as written (`1e400`); null in a text nested too deep for the
   * parser to give back sources (a reviver recurses: some thousands of levels).
   */
  readonly text: string | null
}

export const NonFiniteNumberMessage =
  "Input should be a finite number: JSON numbers must be finite, within ±1.7976931348623157e308"

/** The reason a number beyond a double is refused, where a file is checked (imports, the CLI's incident files). */
export const NonFiniteJsonMessage =
  "a number beyond the range of a double (about ±1.8e308): JSON numbers must be finite"

/**
 * Whether a text may hold a number that parses to ±Infinity: a number token
 * (after `[`, `,`, `:`, whitespace or at the start) with an exponent of 100
 * or more (`1e100`), or, with a smaller exponent, an integer part of 200
 * digits or more (its digits plus the exponent must reach 309). A text
 * without one holds none, so the common text is not walked (a UUID's `4e123`
 * is not a number token).
 */
export const mayHoldNonFiniteNumber = (text: string): boolean =>
  /(?:^|[\s,:[])-?(?:\d+(?:\.\d+)?[eE]\+?0*[1-9]\d\d|\d{200})/u.test(text)

/** What the reviver puts in place of a non-finite number, to be found by the walk below. */
class Written {
  readonly text: string | null
  constructor(text: string | null) {
    this.text = text
  }
}

const revive = (_key: string, value: unknown, context?: { readonly source?: string }): unknown =>
  typeof value === "number" && !Number.isFinite(value) ? new Written(context?.source ?? null) : value

interface Place {
  readonly key: string | number
  readonly parent: Place | undefined
}

const pathOf = (place: Place | undefined): Array<string | number> => {
  const path: Array<string | number> = []
  for (let p = place; p !== undefined; p = p.parent) path.push(p.key)
  return path.reverse()
}

/** What the walk must look into or report: containers, markers, and non-finite numbers left unmarked. */
const isWalked = (v: unknown): boolean =>
  (typeof v === "object" && v !== null) || (typeof v === "number" && !Number.isFinite(v))

/** The text parsed with each non-finite number marked; parsed plainly when too deep to revive; undefined when not JSON. */
const parse = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text, revive as (key: string, value: unknown) => unknown) }
  } catch {
    try {
      return { value: JSON.parse(text) }
    } catch {
      return undefined
    }
  }
}

/**
 * The first `limit` non-finite numbers of a parsed value (or markers of them),
 * in document order, with their paths. The walk keeps its own stack, so any
 * depth is walked, in time linear in the value's size.
 */
const walk = (value: unknown, limit: number): Array<NonFiniteNumber> => {
  const found: Array<NonFiniteNumber> = []
  // Children are pushed in reverse so that they are visited in document order.
  const stack: Array<{ readonly v: unknown; readonly at: Place | undefined }> = [{ v: value, at: undefined }]
  while (stack.length > 0 && found.length < limit) {
    const { v, at } = stack.pop()!
    if (v instanceof Written) found.push({ path: pathOf(at), text: v.text })
    else if (typeof v === "number") found.push({ path: pathOf(at), text: null })
    else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        if (isWalked(v[i])) stack.push({ v: v[i], at: { key: i, parent: at } })
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v)
      for (let i = keys.length - 1; i >= 0; i--) {
        const item: unknown = (v as Record<string, unknown>)[keys[i]!]
        if (isWalked(item)) stack.push({ v: item, at: { key: keys[i]!, parent: at } })
      }
    }
  }
  return found
}

/**
 * The first `limit` numbers of a JSON text that parse to ±Infinity, in
 * document order, each with the text it was written as; empty when there is
 * none or the text is not JSON (the parser that decodes it says so).
 */
export const nonFiniteNumbers = (text: string, limit = 20): ReadonlyArray<NonFiniteNumber> => {
  if (!mayHoldNonFiniteNumber(text)) return []
  const parsed = parse(text)
  return parsed === undefined ? [] : walk(parsed.value, limit)
}

/**
 * The paths of the non-finite numbers of a parsed value, at most `limit`, in
 * document order. Walk only a value whose text `mayHoldNonFiniteNumber`.
 */
export const nonFinitePaths = (value: unknown, limit = 100): ReadonlyArray<ReadonlyArray<string | number>> =>
  walk(value, limit).map((n) => n.path)
