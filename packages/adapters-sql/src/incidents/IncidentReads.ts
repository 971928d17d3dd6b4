/**
 * The incident reads: a record by one of its nonces, the record a report
 * aggregates into (under the advisory lock on its aggregation key), and the
 * served feed with its count.
 */
import type { IncidentFeedFilter } from "@ratings/domain/incidents/IncidentFeed"
import type { IncidentLifecyclePolicy } from "@ratings/domain/incidents/IncidentLifecycle"
import { atLeast, IncidentTiers } from "@ratings/domain/incidents/IncidentTier"
import type { IncidentFeedPage, IncidentRecord, IncidentReport } from "@ratings/domain/model/Incident"
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
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

export const feed =
  (sql: SqlClient.SqlClient, lifecycle: IncidentLifecyclePolicy) => (filter: IncidentFeedFilter) =>
    Effect.gen(function* () {
      const tiers = IncidentTiers.filter((tier) => atLeast(tier, filter.min_status))
      const where = sql.and([
        sql`i.servable`,
        sql`i.status = ANY (${[...tiers]}::text[])`,
        ...(filter.slug === undefined ? [] : [sql`i.slug = ${filter.slug}`]),
        ...(filter.sinceMillis === undefined ? [] : [sql`i.detected_at > ${new Date(filter.sinceMillis)}`])
      ])
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
