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
 * HTTP layer writes it back 1:1, so encoding costs nothing and the offset the
 * source used (`Z` or `+00:00`) survives a round trip.
 */
export const IsoDateTime = Schema.String.annotate({
  description: "ISO 8601 date-time with a time zone, for example 2026-08-01T00:00:00+00:00"
}).check(
  Schema.makeFilter(isIsoDateTime, {
    expected: "an ISO 8601 date-time with seconds and a time zone (Z or +hh:mm)",
    toJsonSchema: () => ({ format: "date-time" })
  })
)

export const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/** Strictly above zero and finite: weights and maximum scores, which are divided by. */
export const PositiveNumber = Schema.Finite.check(Schema.isGreaterThan(0))

export const NonNegativeNumber = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/** A composite score: 0 to 100 inclusive. */
export const Percent = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 }))

/** A domain score: a fraction from 0 to 1 inclusive (spec part 1 rule 1). */
export const Fraction = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
