/**
 * The incident feed as a pure function over served items (spec part 4
 * "Incidents"): newest first by detected_at, filtered by slug, `since` and
 * `min_status`, then paged. The in-memory repository uses it as is; the SQL
 * adapter must give the same answers (same filter, same order, same count).
 */
import { Result } from "effect"
import {
  type Incident,
  type IncidentFeedPage,
  type IncidentFeedQuery,
  parseZonedDateTime
} from "../model/Incident.ts"
import { atLeast, type IncidentTier } from "./IncidentTier.ts"

/** A feed query with `since` read into epoch milliseconds. */
export interface IncidentFeedFilter {
  readonly slug?: string
  /** Exclusive: only incidents whose detected_at is strictly later. */
  readonly sinceMillis?: number
  readonly min_status: IncidentTier
  readonly limit: number
  readonly offset: number
}

/**
 * Reads a `since` value. Only ISO 8601 date-times with a zone pass; in
 * particular "2026-08-01T00:00:00 00:00", which is what an unencoded "+00:00"
 * turns into in a query string, is refused rather than read as something else
 * (api-facts: it must give 422, not a silently wrong filter).
 */
export const parseSince = (raw: string): Result.Result<number, string> => parseZonedDateTime(raw)

export const toFeedFilter = (query: IncidentFeedQuery): Result.Result<IncidentFeedFilter, string> => {
  const base = {
    min_status: query.min_status,
    limit: query.limit,
    offset: query.offset,
    ...(query.slug === undefined ? {} : { slug: query.slug })
  }
  if (query.since === undefined) return Result.succeed(base)
  const since = parseSince(query.since)
  return Result.isSuccess(since)
    ? Result.succeed({ ...base, sinceMillis: since.success })
    : Result.fail(`since: ${since.failure}`)
}

const detectedMillis = (item: Incident): number => {
  const parsed = parseZonedDateTime(item.detected_at)
  return Result.isSuccess(parsed) ? parsed.success : Number.NEGATIVE_INFINITY
}

/** Newest first by detected_at; ties by incident_id so pages never overlap or skip. */
export const compareFeedOrder = (
  a: { readonly item: Incident; readonly at: number },
  b: { readonly item: Incident; readonly at: number }
): number =>
  a.at !== b.at
    ? b.at - a.at
    : a.item.incident_id < b.item.incident_id
      ? -1
      : a.item.incident_id > b.item.incident_id
        ? 1
        : 0

export const matchesFilter = (item: Incident, at: number, filter: IncidentFeedFilter): boolean =>
  (filter.slug === undefined || item.slug === filter.slug) &&
  (filter.sinceMillis === undefined || at > filter.sinceMillis) &&
  atLeast(item.status, filter.min_status)

/**
 * One page of the feed. Unmatched incidents (slug null) are kept unless a slug
 * is asked for; `total` counts every item that passes the filter, not the page.
 */
export const feedPage = (items: Iterable<Incident>, filter: IncidentFeedFilter): IncidentFeedPage => {
  const kept: Array<{ readonly item: Incident; readonly at: number }> = []
  for (const item of items) {
    const at = detectedMillis(item)
    if (matchesFilter(item, at, filter)) kept.push({ item, at })
  }
  kept.sort(compareFeedOrder)
  const offset = Math.max(0, Math.trunc(filter.offset))
  const limit = Math.max(0, Math.trunc(filter.limit))
  return { items: kept.slice(offset, offset + limit).map((k) => k.item), total: kept.length }
}
