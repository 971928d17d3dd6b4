/**
 * Scalar wire types shared by the resource schemas: UUID ids, kebab-case slugs,
 * ISO 8601 date-time strings, and the bounded numbers (fractions, 0-100 scores,
 * positive weights) that recur across scorecards and quantum rows.
 *
 * Annotations go on a schema before its checks: an annotation attached after a
 * check lands on the check and is lost from the generated OpenAPI document.
 */
import { Schema } from "effect"

export const Uuid = Schema.String.annotate({ description: "UUID string" }).check(Schema.isUUID())

/** Lowercase a-z and 0-9 in runs joined by single hyphens; the `u` flag lets the pattern reach OpenAPI. */
export const SlugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/u

/** The longest slug a client may send where it names an entity to watch (alert rules); stored slugs are far shorter. */
export const SlugMaxLength = 100

export const Slug = Schema.String.annotate({
  description: "Kebab-case slug: lowercase a-z and 0-9, single hyphens between runs. Mutable across renames."
}).check(
  Schema.isPattern(SlugPattern, {
    expected: "a kebab-case slug (lowercase a-z, 0-9 and single hyphens, no leading or trailing hyphen)"
  })
)

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/u

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * True when the text is an ISO 8601 date-time with seconds and a zone (`Z` or
 * `+hh:mm`) that names a real instant. `Date.parse` alone accepts 30 February
 * (it rolls over to March), so the day of month is checked against the calendar.
 */
export const isIsoDateTime = (text: string): boolean => {
  const m = ISO_DATE_TIME.exec(text)
  if (m === null || Number.isNaN(Date.parse(text))) return false
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

/**
 * A date-time kept as its wire text rather than decoded to a `DateTime`: the
 * HTTP layer writes it back 1:1, so encoding costs nothing. As input it takes
 * any zone (`Z`, `+00:00`, `-04:00`); what the service writes is produced in
 * its one form by `isoTimestamp` / `canonicalTimestamp` below.
 */
export const IsoDateTime = Schema.String.annotate({
  description: "ISO 8601 date-time with a time zone, for example 2026-08-01T00:00:00+00:00"
}).check(
  Schema.makeFilter(isIsoDateTime, {
    expected: "an ISO 8601 date-time with seconds and a time zone (Z or +hh:mm)",
    toJsonSchema: () => ({ format: "date-time" })
  })
)

/**
 * The one form this service writes an instant in (HTTP responses, webhook
 * payloads, CLI output): UTC with a `+00:00` offset, seconds always, and a
 * fraction only when there is one, of exactly six digits:
 * `2026-08-01T00:00:00+00:00`, `2026-08-01T00:00:00.123000+00:00`.
 *
 * It is what the live service writes (api-facts: `"last_rated_at":
 * "2026-08-01T00:00:00+00:00"`, Python's `datetime.isoformat()` of a UTC
 * datetime), and existing clients parse it: Python's `datetime.fromisoformat`
 * before 3.11 refuses the `Z` of `Date#toISOString()`. Inputs still accept `Z`
 * and any offset (`IsoDateTime`); only output is canonical. The form has one
 * spelling per instant but does not sort as text against other spellings:
 * compare instants (`Date.parse`), never the strings.
 */
export const CanonicalTimestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?\+00:00$/u

/**
 * `toISOString()` always ends in `.mmmZ`; `subMillis` is the three digits of
 * microseconds below the millisecond.
 */
const render = (date: Date, subMillis: string): string => {
  const text = date.toISOString()
  const fraction = text.slice(-4, -1) + subMillis
  const whole = text.slice(0, -5)
  return fraction === "000000" ? `${whole}+00:00` : `${whole}.${fraction}+00:00`
}

/**
 * The last instant rendered and its text: a batch of deliveries or attempts
 * renders the same few instants over and over (one claim's rows were mostly
 * enqueued together; a burst of attempts starts within one millisecond), and
 * a `Date` with its ISO text costs more than the comparison.
 */
let lastMillis = Number.NaN
let lastIso = ""

/**
 * Epoch milliseconds in the canonical form (see `CanonicalTimestampPattern`):
 * `isoTimestamp(0)` is `1970-01-01T00:00:00+00:00`, `isoTimestamp(123)` is
 * `1970-01-01T00:00:00.123000+00:00`. Throws a RangeError for a non-finite
 * number, as `toISOString` does.
 */
export const isoTimestamp = (millis: number): string => {
  if (millis === lastMillis) return lastIso
  const iso = render(new Date(millis), "000")
  lastMillis = millis
  lastIso = iso
  return iso
}

/** A `Date` (a timestamptz read from Postgres, say) in the canonical form. */
export const isoTimestampOf = (date: Date): string => isoTimestamp(date.getTime())

const FRACTION = /\.(\d{1,9})(?:Z|[+-]\d{2}:\d{2})$/u

/**
 * An ISO 8601 date-time text (any offset, `Z` included) re-spelled in the
 * canonical form, keeping its microseconds (digits beyond the sixth are
 * truncated, as Python does): `2026-08-01T02:00:00.1234567+02:00` becomes
 * `2026-08-01T00:00:00.123456+00:00`. For timestamps taken from a source and
 * served back (an incident report's first_seen_at). Text that is not an
 * ISO date-time (`isIsoDateTime`) comes back unchanged.
 */
export const canonicalTimestamp = (text: string): string => {
  if (!isIsoDateTime(text)) return text
  // An offset is whole minutes, so the digits below the millisecond never move.
  const digits = FRACTION.exec(text)?.[1] ?? ""
  return render(new Date(Date.parse(text)), digits.slice(3, 6).padEnd(3, "0"))
}

export const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/** Strictly above zero and finite: weights and maximum scores, which are divided by. */
export const PositiveNumber = Schema.Finite.check(Schema.isGreaterThan(0))

export const NonNegativeNumber = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/** A composite score: 0 to 100 inclusive. */
export const Percent = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 }))

/** A domain score: a fraction from 0 to 1 inclusive. */
export const Fraction = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

/**
 * The NUL character (U+0000) is refused in every text the service takes in
 * (names, labels, URLs, report fields, import files, query parameters): no
 * name needs one, and PostgreSQL text and jsonb cannot store one, so letting it
 * through would turn bad input into a failed write.
 */
export const NulMessage = "must not contain a NUL character (U+0000)"

export const hasNul = (text: string): boolean => text.includes("\u0000")

/** Refuses text holding a NUL character, saying so. Goes after a schema's annotations, with its other checks. */
export const isNulFree = Schema.makeFilter((text: string) => !hasNul(text) || `text ${NulMessage}`, {
  expected: "text without a NUL character (U+0000)"
})

/** Free text that can be stored: any string without a NUL character. */
export const Text = Schema.String.check(isNulFree)

/** A place in a JSON value: its key or index, and the place holding it (none for the root). */
interface Place {
  readonly key: PropertyKey
  readonly parent: Place | undefined
}

const pathOf = (place: Place | undefined): Array<PropertyKey> => {
  const path: Array<PropertyKey> = []
  for (let p = place; p !== undefined; p = p.parent) path.push(p.key)
  return path.reverse()
}

/** Strings holding one, and objects and arrays (which may); numbers, booleans and null never do. */
const mayHoldNul = (v: unknown): boolean =>
  typeof v === "string" ? hasNul(v) : typeof v === "object" && v !== null

/**
 * Where a parsed JSON value holds a NUL character, in a string or in an
 * object key: the path of each place, as keys and indexes from the root, in
 * document order. Empty when there is none (the common case, one walk). The
 * walk keeps its own stack, so a value nested deeper than the call stack
 * (JSON.parse accepts any depth) is walked too, in time linear in its size.
 */
export const nulPaths = (value: unknown): Array<ReadonlyArray<PropertyKey>> => {
  const found: Array<ReadonlyArray<PropertyKey>> = []
  // Children are pushed in reverse so that they are visited in document order.
  const stack: Array<{ readonly v: unknown; readonly at: Place | undefined; readonly nulKey: boolean }> = [
    { v: value, at: undefined, nulKey: false }
  ]
  while (stack.length > 0) {
    const { v, at, nulKey } = stack.pop()!
    if (nulKey || (typeof v === "string" && hasNul(v))) found.push(pathOf(at))
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const item: unknown = v[i]
        if (mayHoldNul(item)) stack.push({ v: item, at: { key: i, parent: at }, nulKey: false })
      }
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const item: unknown = (v as Record<string, unknown>)[key]
        const nulKey = hasNul(key)
        if (nulKey || mayHoldNul(item)) stack.push({ v: item, at: { key, parent: at }, nulKey })
      }
    }
  }
  return found
}
