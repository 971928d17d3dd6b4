/**
 * The incident reads: a record by one of its nonces, the record a report
 * aggregates into (under the advisory lock on its aggregation key), the
 * served feed with its count, and the public feed: the same page with what
 * the public may see named in it, in one statement.
 */
import type { IncidentFeedFilter } from "@ratings/domain/incidents/IncidentFeed"
import type { IncidentLifecyclePolicy } from "@ratings/domain/incidents/IncidentLifecycle"
import { atLeast, IncidentTiers } from "@ratings/domain/incidents/IncidentTier"
import type { IncidentFeedPage, IncidentRecord, IncidentReport } from "@ratings/domain/model/Incident"
import type { PublicFeedFacts } from "@ratings/domain/ports/IncidentRepository"
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { readableSql } from "../ReadableSql.ts"
import {
  CountRow,
  decodeWith,
  FeedColumns,
  FeedRow,
  IncidentLockSpace,
  instantOf,
  mapSqlError,
  RecordColumns,
  RecordRow,
  toIncident,
  toRecord
} from "./IncidentRows.ts"

/** Held until the surrounding transaction ends; released at once outside one. */
export const lockKey = (sql: SqlClient.SqlClient, key: string) =>
  sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${IncidentLockSpace}, hashtext(${key}))) AS l`

const firstRecord = (operation: string) => {
  const decode = decodeWith(RecordRow, operation)
  return (rows: ReadonlyArray<unknown>) =>
    Effect.map(decode(rows), (records) => Option.map(Option.fromUndefinedOr(records[0]), toRecord))
}

const decodeByNonce = firstRecord("findByNonce")
const decodeFor = firstRecord("findFor")
const decodeFeed = decodeWith(FeedRow, "feed")
const decodeCount = decodeWith(CountRow, "feed")

export const findByNonce = (sql: SqlClient.SqlClient) => (nonce: string) =>
  sql`
    SELECT ${sql.literal(RecordColumns)}
    FROM incident_nonces x JOIN incidents i ON i.incident_id = x.incident_id
    WHERE x.nonce = ${nonce}
  `.pipe(
    Effect.flatMap(decodeByNonce),
    mapSqlError("findByNonce"),
    Effect.withSpan("PgIncidentRepository.findByNonce")
  )

// Same key, first_seen_at within the window (the lifecycle's aggregation rule); nearest
// first, then the earlier, then the smaller id: `selectIncident`'s choice, made by the database.
export const findFor =
  (sql: SqlClient.SqlClient, lifecycle: IncidentLifecyclePolicy) => (report: IncidentReport) =>
    Effect.gen(function* () {
      const at = instantOf(report.first_seen_at)
      if (at === undefined) return Option.none<IncidentRecord>()
      const { key: keyOf, windowMillis } = lifecycle.aggregation
      const key = keyOf(report)
      yield* lockKey(sql, key)
      const rows = yield* sql`
      SELECT ${sql.literal(RecordColumns)}
      FROM incidents i
      WHERE i.aggregation_key = ${key}
        AND i.first_seen_at BETWEEN ${new Date(at.getTime() - windowMillis)}
                                AND ${new Date(at.getTime() + windowMillis)}
      ORDER BY GREATEST(i.first_seen_at - ${at}, ${at} - i.first_seen_at), i.first_seen_at, i.incident_id
      LIMIT 1
    `
      return yield* decodeFor(rows)
    }).pipe(mapSqlError("findFor"), Effect.withSpan("PgIncidentRepository.findFor"))

const clampCount = (n: number): number => Math.max(0, Math.trunc(n))

/** A rated protocol on the entities row `e`: readable now, with a published scorecard. */
export const ratedProtocolSql = `e.entity_type = 'protocol' AND ${readableSql("e")}
      AND EXISTS (SELECT 1 FROM scorecards s WHERE s.entity_id = e.id AND s.status = 'published')`

/** The conditions on incidents `i` of the served feed under `filter`. */
const feedWhere = (sql: SqlClient.SqlClient, filter: IncidentFeedFilter) => {
  const tiers = IncidentTiers.filter((tier) => atLeast(tier, filter.min_status))
  return sql.and([
    sql`i.servable`,
    sql`i.status = ANY (${[...tiers]}::text[])`,
    ...(filter.slug === undefined ? [] : [sql`i.slug = ${filter.slug}`]),
    ...(filter.sinceMillis === undefined ? [] : [sql`i.detected_at > ${new Date(filter.sinceMillis)}`])
  ])
}

export const feed =
  (sql: SqlClient.SqlClient, lifecycle: IncidentLifecyclePolicy) => (filter: IncidentFeedFilter) =>
    Effect.gen(function* () {
      const where = feedWhere(sql, filter)
      // The page and the count are independent: sent together, one round trip of latency instead of two.
      const [rows, [count]] = yield* Effect.all(
        [
          sql`
          SELECT ${sql.literal(FeedColumns)}
          FROM incidents i
          WHERE ${where}
          ORDER BY i.detected_at DESC, i.incident_id
          LIMIT ${clampCount(filter.limit)} OFFSET ${clampCount(filter.offset)}
        `.pipe(Effect.flatMap(decodeFeed)),
          sql`
          SELECT count(*)::integer AS total FROM incidents i WHERE ${where}
        `.pipe(Effect.flatMap(decodeCount))
        ],
        { concurrency: 2 }
      )
      const items = rows.map((row) => toIncident(row, lifecycle.defaultConfidenceBps))
      return { items, total: count?.total ?? 0 } satisfies IncidentFeedPage
    }).pipe(mapSqlError("feed"), Effect.withSpan("PgIncidentRepository.feed"))

const PublicFeedRow = Schema.Struct({ ...FeedRow.fields, total: Schema.Number, readable: Schema.Boolean })
const decodePublicFeed = decodeWith(PublicFeedRow, "publicFeed")
const decodeSlugReadable = decodeWith(Schema.Struct({ slug_readable: Schema.Boolean }), "publicFeed")
const decodePublicCount = decodeWith(CountRow, "publicFeed")

/**
 * The feed's page, its total (`count(*) OVER ()`) and the readability of each
 * item's protocol and of `?slug=`'s, in one statement. The page is left-joined
 * to a one-row driver so an empty page still says whether the slug is readable;
 * only an empty page past the start asks for the total again.
 */
export const publicFeed =
  (sql: SqlClient.SqlClient, lifecycle: IncidentLifecyclePolicy) => (filter: IncidentFeedFilter) =>
    Effect.gen(function* () {
      const where = feedWhere(sql, filter)
      const rated = sql.literal(ratedProtocolSql)
      const slugReadable =
        filter.slug === undefined
          ? sql`true`
          : sql`EXISTS (SELECT 1 FROM entities e WHERE e.slug = ${filter.slug} AND ${rated})`
      const offset = clampCount(filter.offset)
      const rows = yield* sql`
        SELECT d.slug_readable, p.*,
          EXISTS (SELECT 1 FROM entities e WHERE e.slug = p.slug AND ${rated}) AS readable
        FROM (SELECT ${slugReadable} AS slug_readable) d
        LEFT JOIN (
          SELECT ${sql.literal(FeedColumns)}, i.detected_at, count(*) OVER ()::integer AS total
          FROM incidents i
          WHERE ${where}
          ORDER BY i.detected_at DESC, i.incident_id
          LIMIT ${clampCount(filter.limit)} OFFSET ${offset}
        ) p ON true
        ORDER BY p.detected_at DESC, p.incident_id
      `
      const [driver] = yield* decodeSlugReadable(rows.slice(0, 1))
      const page = yield* decodePublicFeed(
        rows.filter((row) => (row as { readonly incident_id: unknown }).incident_id !== null)
      )
      const total =
        page[0]?.total ??
        (offset === 0
          ? 0
          : ((yield* sql`SELECT count(*)::integer AS total FROM incidents i WHERE ${where}`.pipe(
              Effect.flatMap(decodePublicCount)
            ))[0]?.total ?? 0))
      return {
        page: { items: page.map((row) => toIncident(row, lifecycle.defaultConfidenceBps)), total },
        readable: page.map((row) => row.readable),
        slugReadable: driver?.slug_readable ?? false
      } satisfies PublicFeedFacts
    }).pipe(mapSqlError("publicFeed"), Effect.withSpan("PgIncidentRepository.publicFeed"))
