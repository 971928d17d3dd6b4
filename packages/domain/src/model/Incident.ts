/**
 * Wire and storage shapes of hack incidents, as the incident feed serves
 * them: the report that ingest takes, the record
 * that is stored, the item that is served, and the feed's query and page.
 * The stored record keeps the ingest nonces and victim addresses; the served
 * item has no field for either, so they cannot leak by accident.
 */
import { Effect, Result, Schema } from "effect"
import { DefaultMinStatus, IncidentTier } from "./IncidentTier.ts"
import { isNulFree, isoTimestamp, NonNegativeInt, Text, Uuid } from "./Primitives.ts"

// ---------------------------------------------------------------------------
// Names and handles, as compared (the matching and source-independence rules
// of incidents/ read them too)

/**
 * Case-, space- and punctuation-insensitive form of a name or slug, so that
 * "Aave V3", "aave-v3" and "AAVE_v3" agree. Letters and digits of any script
 * are kept, so a name written outside Latin script still has a key.
 */
export const normaliseName = (raw: string): string =>
  raw
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")

/** A source handle as compared: trimmed, lower-cased, leading "@" dropped ("@PeckShield" is "peckshield"). */
export const normaliseHandle = (raw: string): string => raw.trim().toLowerCase().replace(/^@+/, "").trim()

// ---------------------------------------------------------------------------
// Date-times

const ZonedDateTimePattern =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/
// What a "+HH:MM" offset becomes when a client sends it unencoded in a query string.
const PlusAsSpacePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})? \d{2}:\d{2}$/

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31

/**
 * Parses an ISO 8601 date-time with seconds and a zone (`Z` or `±HH:MM`) into epoch
 * milliseconds, or gives the reason it is not one. Written out rather than left
 * to `Date.parse`, which accepts zone-less and malformed strings and would read
 * them in the server's local zone. Digits beyond milliseconds are truncated;
 * against stored millisecond timestamps that keeps "strictly after" exact.
 */
export const parseZonedDateTime = (raw: string): Result.Result<number, string> => {
  const m = ZonedDateTimePattern.exec(raw)
  if (m === null) {
    if (PlusAsSpacePattern.test(raw)) {
      return Result.fail(
        "the zone offset reads as a space: a raw '+' in a query string decodes to a space; percent-encode it as %2B"
      )
    }
    return Result.fail(
      "expected an ISO 8601 date-time with seconds and a zone, such as 2026-08-01T00:00:00+00:00 or ...Z"
    )
  }
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, "0"))
  const offsetHours = z === undefined ? Number(oh) : 0
  const offsetMinutes = z === undefined ? Number(om) : 0
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return Result.fail("the date does not exist")
  }
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) {
    return Result.fail("the time or zone offset is out of range")
  }
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, millis)
  const offset = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  return Result.succeed(date.getTime() - offset)
}

const isZonedDateTime = Schema.makeFilter(
  (s: string) => {
    const parsed = parseZonedDateTime(s)
    return Result.isSuccess(parsed) ? undefined : parsed.failure
  },
  {
    expected: "an ISO 8601 date-time with seconds and a zone (Z or ±hh:mm)",
    toJsonSchema: () => ({ format: "date-time" })
  }
)

/**
 * An ISO 8601 date-time string with a zone, kept as a string. Any zone is
 * accepted; the lifecycle stores a report's date-times re-spelled in the form
 * this service writes (`canonicalTimestamp`), and serves that. A factory because a description must go on before the check: one
 * annotated after a check lands on the check and is lost from OpenAPI.
 */
export const zonedDateTime = (description = "ISO 8601 date-time with seconds and a zone (Z or ±hh:mm)") =>
  Schema.String.annotate({ description }).check(isZonedDateTime)

export const ZonedDateTime = zonedDateTime()

/** The canonical form of an instant this service writes (`isoTimestamp`: UTC, `+00:00`). */
export const isoOfMillis = (millis: number): string => isoTimestamp(millis)

// ---------------------------------------------------------------------------
// Sources

/** A source as served: its handle only (api-facts: `{"handle": "blockaid"}`). */
export const IncidentSourceRef = Schema.Struct({ handle: Schema.String })
export type IncidentSourceRef = typeof IncidentSourceRef.Type

/** A source as stored: normalised handle, the strongest tier it has claimed, and a link if it gave one. */
export const IncidentSource = Schema.Struct({
  handle: Schema.String,
  claimed_tier: IncidentTier,
  url: Schema.optionalKey(Schema.String)
})
export type IncidentSource = typeof IncidentSource.Type

// ---------------------------------------------------------------------------
// Ingest

const NonNegativeUsd = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))
const Bps = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))

/** One source's report about a hack, as ingest takes it. */
export const IncidentReport = Schema.Struct({
  nonce: Schema.String.annotate({ description: "Ingest nonce; a repeated nonce is ignored" }).check(
    Schema.isNonEmpty(),
    isNulFree
  ),
  protocol_name: Schema.String.annotate({ description: "The protocol as the source names it" }).check(
    Schema.makeFilter((s: string) => normaliseName(s) !== "" || "a protocol name needs a letter or digit"),
    isNulFree
  ),
  chain: Schema.NullOr(Text),
  exploit_class: Schema.String.annotate({ description: "Upper-case exploit class such as REENTRANCY" }).check(
    Schema.isPattern(/^[A-Z][A-Z0-9_]*$/u)
  ),
  loss_estimate_usd: Schema.NullOr(NonNegativeUsd),
  victim_addresses: Schema.Array(Text),
  source: Schema.Struct({
    handle: Schema.String.check(
      Schema.makeFilter((s: string) => normaliseHandle(s) !== "" || "a source handle must not be blank"),
      isNulFree
    ),
    url: Schema.optionalKey(Text)
  }),
  claimed_tier: IncidentTier.annotate({ description: "The tier the source claims" }),
  first_seen_at: ZonedDateTime,
  confidence_bps: Schema.optionalKey(Bps),
  resolved_at: Schema.optionalKey(ZonedDateTime),
  resolution: Schema.optionalKey(Text)
})
export type IncidentReport = typeof IncidentReport.Type

// ---------------------------------------------------------------------------
// Stored record

/** The stored state of one incident; `status` is null while it is not servable. */
export const IncidentRecord = Schema.Struct({
  incident_id: Uuid,
  protocol_name: Schema.String,
  chain: Schema.NullOr(Schema.String),
  exploit_class: Schema.String,
  status: Schema.NullOr(IncidentTier),
  first_seen_at: ZonedDateTime,
  detected_at: Schema.NullOr(ZonedDateTime),
  slug: Schema.NullOr(Schema.String),
  matched_protocol: Schema.Boolean,
  loss_estimate_usd: Schema.NullOr(NonNegativeUsd),
  victim_addresses: Schema.Array(Schema.String),
  confidence_bps: Schema.NullOr(Bps),
  nonces: Schema.Array(Schema.String),
  sources: Schema.Array(IncidentSource),
  resolved_at: Schema.NullOr(ZonedDateTime),
  resolution: Schema.NullOr(Schema.String)
})
export type IncidentRecord = typeof IncidentRecord.Type

// ---------------------------------------------------------------------------
// Served item and feed

/** One item of `GET /incidents` (api-facts "Incidents"). */
export const Incident = Schema.Struct({
  incident_id: Schema.String.annotate({ description: "Stable id; kept across escalation" }).check(
    Schema.isUUID()
  ),
  protocol_name: Schema.String,
  slug: Schema.NullOr(Schema.String).annotate({
    description: "Rated-protocol slug, or null when no matching rated protocol"
  }),
  matched_protocol: Schema.Boolean.annotate({
    description: "Whether it matched a rated protocol as of the current tier"
  }),
  status: IncidentTier,
  exploit_class: Schema.String,
  loss_estimate_usd: Schema.NullOr(NonNegativeUsd),
  chain: Schema.NullOr(Schema.String),
  confidence_bps: Bps,
  source_count: NonNegativeInt,
  sources: Schema.Array(IncidentSourceRef).annotate({
    description: "The sources the incident was corroborated from"
  }),
  detected_at: zonedDateTime("When the incident reached its current tier; refreshed on escalation"),
  first_seen_at: zonedDateTime("When first reported; does not move"),
  resolved_at: Schema.NullOr(ZonedDateTime),
  resolution: Schema.NullOr(Schema.String)
})
export type Incident = typeof Incident.Type

export const FeedLimitDefault = 50
export const FeedLimitMax = 200

/** Query of `GET /incidents`, with the spec's defaults applied on decode. */
export const IncidentFeedQuery = Schema.Struct({
  slug: Schema.optionalKey(Schema.String.annotate({ description: "Exact match on the rated-protocol slug" })),
  since: Schema.optionalKey(
    zonedDateTime("Only incidents detected strictly after it; percent-encode a +00:00 offset as %2B00:00")
  ),
  min_status: IncidentTier.annotate({ description: "Lowest tier listed; default confirmed" }).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(DefaultMinStatus))
  ),
  limit: Schema.Int.annotate({ description: "Page size, 1 to 200; default 50" })
    .check(Schema.isBetween({ minimum: 1, maximum: FeedLimitMax }))
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(FeedLimitDefault))),
  offset: Schema.Int.annotate({ description: "Items to skip; default 0" })
    .check(Schema.isGreaterThanOrEqualTo(0))
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(0)))
})
export type IncidentFeedQuery = typeof IncidentFeedQuery.Type

export const IncidentFeedPage = Schema.Struct({
  items: Schema.Array(Incident),
  total: NonNegativeInt
})
export type IncidentFeedPage = typeof IncidentFeedPage.Type

/** What an ingest reports back (admin route and CLI): never a nonce or a victim address. */
export const IncidentIngestResult = Schema.Struct({
  outcome: Schema.Literals(["created", "escalated", "absorbed", "duplicate"]).annotate({
    description:
      "created: a new incident; escalated: its tier rose (same incident_id, detected_at refreshed, matching " +
      "re-run); absorbed: a report about a known incident that changed no tier; duplicate: the nonce was " +
      "already ingested, nothing changed"
  }),
  incident_id: Schema.String.check(Schema.isUUID()),
  status: Schema.NullOr(IncidentTier).annotate({
    description: "The served tier, or null while fewer than two independent sources back the incident"
  }),
  served: Schema.NullOr(Incident).annotate({
    description: "The incident as GET /incidents serves it, if it is served"
  })
}).annotate({ identifier: "IncidentIngestResult" })
export type IncidentIngestResult = typeof IncidentIngestResult.Type
