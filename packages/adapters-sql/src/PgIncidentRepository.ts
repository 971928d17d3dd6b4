/**
 * The IncidentRepository port on Postgres, the `RatedProtocols` port over the
 * ratings tables, and the serialisation that keeps ingest safe when several
 * server processes ingest at once (the rule itself is the IncidentService's).
 *
 * What leaves this module: the domain's `IncidentRecord` to the lifecycle
 * (which needs the nonces to spot a replay), and the served `Incident` to the
 * feed, whose query does not select nonces or victim addresses at all.
 *
 * Concurrency. Ingest is read (findByNonce, findFor), decide (the pure
 * lifecycle), write (upsert). Two processes doing that for one hack at the
 * same moment could each miss the other. Two layers of defence:
 * - `findFor` and `upsert` take a transaction-scoped advisory lock on the
 *   report's aggregation key. `withIngestLock` (the port operation the
 *   IncidentService runs each ingest through) runs it in one transaction, so the lock taken by `findFor` is held until the write
 *   commits, and a second ingest of the same hack reads the first one's result
 *   (in READ COMMITTED each statement after the lock sees it).
 * - `upsert` checks, under that lock, that it is not writing from a stale
 *   read: an update must extend the stored nonce list, a new incident must not
 *   land within the aggregation window of one already stored, and the nonce
 *   table's primary key refuses a nonce held elsewhere. A refusal is a
 *   StoreError marked as a conflict (`isIncidentConflict`), which
 *   `withIngestLock` retries; a caller without it gets an error, never a
 *   second incident for one hack or a nonce applied twice.
 */
import { Effect, Layer, Option, Result, Schedule } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { IncidentFeedFilter } from "@ratings/domain/incidents/IncidentFeed"
import {
  AggregationWindowMillis,
  aggregationKey,
  DefaultConfidenceBps,
  toServed
} from "@ratings/domain/incidents/IncidentLifecycle"
import type { RatedProtocol } from "@ratings/domain/incidents/IncidentMatching"
import { atLeast, type IncidentTier, IncidentTiers } from "@ratings/domain/incidents/IncidentTier"
import {
  type Incident,
  type IncidentFeedPage,
  type IncidentRecord,
  type IncidentReport,
  type IncidentSource,
  parseZonedDateTime
} from "@ratings/domain/model/Incident"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { RatedProtocols } from "@ratings/domain/services/IncidentService"

const ConflictPrefix = "incident write conflict"

/** A write refused because it was decided on a stale read; running the ingest again resolves it. */
export const isIncidentConflict = (error: StoreError): boolean => error.message.startsWith(ConflictPrefix)

const conflict = (why: string) => new StoreError({ message: `${ConflictPrefix}: ${why}` })

const toStoreError = (operation: string) => (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation"
    ? conflict(`${operation}: ${error.message}`)
    : new StoreError({ message: `incidents, ${operation}: ${error.message}` })

const mapSqlError =
  (operation: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError, R> =>
    Effect.catch(
      effect,
      (error): Effect.Effect<never, Exclude<E, SqlError.SqlError> | StoreError> =>
        SqlError.isSqlError(error)
          ? Effect.fail(toStoreError(operation)(error))
          : Effect.fail(error as Exclude<E, SqlError.SqlError>)
    )

/** Advisory locks of this module live in their own key space (the two-int form). */
const IncidentLockSpace = 0x1c1de7

/** A zoned date-time as an instant truncated to milliseconds, as the lifecycle reads it. */
const instantOf = (text: string): Date | undefined => {
  const parsed = parseZonedDateTime(text)
  return Result.isSuccess(parsed) ? new Date(parsed.success) : undefined
}

interface RecordRow {
  readonly incident_id: string
  readonly protocol_name: string
  readonly chain: string | null
  readonly exploit_class: string
  readonly status: IncidentTier | null
  readonly first_seen_at_text: string
  readonly detected_at_text: string | null
  readonly slug: string | null
  readonly matched_protocol: boolean
  readonly loss_estimate_usd: number | null
  readonly victim_addresses: ReadonlyArray<string>
  readonly confidence_bps: number | null
  readonly nonces: ReadonlyArray<string>
  readonly sources: ReadonlyArray<{ handle: string; claimed_tier: IncidentTier; url: string | null }>
  readonly resolved_at_text: string | null
  readonly resolution: string | null
}

const toRecord = (row: RecordRow): IncidentRecord => ({
  incident_id: row.incident_id,
  protocol_name: row.protocol_name,
  chain: row.chain,
  exploit_class: row.exploit_class,
  status: row.status,
  first_seen_at: row.first_seen_at_text,
  detected_at: row.detected_at_text,
  slug: row.slug,
  matched_protocol: row.matched_protocol,
  loss_estimate_usd: row.loss_estimate_usd,
  victim_addresses: row.victim_addresses,
  confidence_bps: row.confidence_bps,
  nonces: row.nonces,
  sources: row.sources.map(
    (s): IncidentSource =>
      s.url === null
        ? { handle: s.handle, claimed_tier: s.claimed_tier }
        : { handle: s.handle, claimed_tier: s.claimed_tier, url: s.url }
  ),
  resolved_at: row.resolved_at_text,
  resolution: row.resolution
})

/** Served columns only: no nonce, no victim address. */
interface FeedRow {
  readonly incident_id: string
  readonly protocol_name: string
  readonly slug: string | null
  readonly matched_protocol: boolean
  readonly status: IncidentTier
  readonly exploit_class: string
  readonly loss_estimate_usd: number | null
  readonly chain: string | null
  readonly confidence_bps: number | null
  readonly handles: ReadonlyArray<string>
  readonly detected_at_text: string
  readonly first_seen_at_text: string
  readonly resolved_at_text: string | null
  readonly resolution: string | null
}

const toIncident = (row: FeedRow): Incident => ({
  incident_id: row.incident_id,
  protocol_name: row.protocol_name,
  slug: row.slug,
  matched_protocol: row.matched_protocol,
  status: row.status,
  exploit_class: row.exploit_class,
  loss_estimate_usd: row.loss_estimate_usd,
  chain: row.chain,
  confidence_bps: row.confidence_bps ?? DefaultConfidenceBps[row.status],
  source_count: row.handles.length,
  sources: row.handles.map((handle) => ({ handle })),
  detected_at: row.detected_at_text,
  first_seen_at: row.first_seen_at_text,
  resolved_at: row.resolved_at_text,
  resolution: row.resolution
})

const clampCount = (n: number): number => Math.max(0, Math.trunc(n))

/** How often a conflicting or serialisation-failed ingest is run again before the error is returned. */
const IngestRetries = 5

const isRetryable = (error: unknown): boolean =>
  (error instanceof StoreError && isIncidentConflict(error)) ||
  (SqlError.isSqlError(error) && error.isRetryable)

/**
 * An ingest in one transaction, so the advisory lock `findFor` takes on the
 * hack's aggregation key is held until its write commits; a write refused as
 * decided on a stale read (or a serialisation failure) runs the ingest again.
 */
const withIngestLock =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(ingest: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    sql
      .withTransaction(ingest)
      .pipe(
        Effect.retry({ while: isRetryable, schedule: Schedule.recurs(IngestRetries) }),
        mapSqlError("ingest")
      )

export const layer: Layer.Layer<IncidentRepository, never, SqlClient.SqlClient> = Layer.effect(
  IncidentRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Held until the surrounding transaction ends; released at once outside one. */
    const lockKey = (key: string) =>
      sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${IncidentLockSpace}, hashtext(${key}))) AS l`

    const recordColumns = sql.literal(`
      i.incident_id, i.protocol_name, i.chain, i.exploit_class, i.status, i.first_seen_at_text,
      i.detected_at_text, i.slug, i.matched_protocol, i.loss_estimate_usd, i.victim_addresses,
      i.confidence_bps, i.resolved_at_text, i.resolution,
      ARRAY(SELECT n.nonce FROM incident_nonces n WHERE n.incident_id = i.incident_id ORDER BY n.position)
        AS nonces,
      (SELECT coalesce(
         jsonb_agg(jsonb_build_object('handle', s.handle, 'claimed_tier', s.claimed_tier, 'url', s.url)
           ORDER BY s.position),
         '[]'::jsonb)
       FROM incident_sources s WHERE s.incident_id = i.incident_id) AS sources`)

    const findByNonce = (nonce: string) =>
      sql<RecordRow>`
        SELECT ${recordColumns}
        FROM incident_nonces x JOIN incidents i ON i.incident_id = x.incident_id
        WHERE x.nonce = ${nonce}
      `.pipe(
        Effect.map((rows) => Option.map(Option.fromUndefinedOr(rows[0]), toRecord)),
        mapSqlError("findByNonce"),
        Effect.withSpan("PgIncidentRepository.findByNonce")
      )

    // Same key, first_seen_at within the window; nearest first, then the earlier, then
    // the smaller id: `selectIncident`'s choice, made by the database.
    const findFor = (report: IncidentReport) =>
      Effect.gen(function* () {
        const at = instantOf(report.first_seen_at)
        if (at === undefined) return Option.none<IncidentRecord>()
        const key = aggregationKey(report)
        yield* lockKey(key)
        const rows = yield* sql<RecordRow>`
          SELECT ${recordColumns}
          FROM incidents i
          WHERE i.aggregation_key = ${key}
            AND i.first_seen_at BETWEEN ${new Date(at.getTime() - AggregationWindowMillis)}
                                    AND ${new Date(at.getTime() + AggregationWindowMillis)}
          ORDER BY GREATEST(i.first_seen_at - ${at}, ${at} - i.first_seen_at), i.first_seen_at, i.incident_id
          LIMIT 1
        `
        return Option.map(Option.fromUndefinedOr(rows[0]), toRecord)
      }).pipe(mapSqlError("findFor"), Effect.withSpan("PgIncidentRepository.findFor"))

    const upsert = (record: IncidentRecord) =>
      Effect.gen(function* () {
        const firstSeen = instantOf(record.first_seen_at)
        const detected = record.detected_at === null ? null : instantOf(record.detected_at)
        const resolved = record.resolved_at === null ? null : instantOf(record.resolved_at)
        if (firstSeen === undefined || detected === undefined || resolved === undefined) {
          return yield* new StoreError({
            message: `incident ${record.incident_id} carries a date-time without a zone`
          })
        }
        const key = aggregationKey(record)
        yield* lockKey(key)
        const [stored] = yield* sql<{ readonly nonces: ReadonlyArray<string> }>`
          SELECT ARRAY(SELECT n.nonce FROM incident_nonces n WHERE n.incident_id = i.incident_id ORDER BY n.position)
            AS nonces
          FROM incidents i WHERE i.incident_id = ${record.incident_id} FOR UPDATE
        `
        if (stored === undefined) {
          const [neighbour] = yield* sql<{ readonly incident_id: string }>`
            SELECT incident_id FROM incidents
            WHERE aggregation_key = ${key}
              AND first_seen_at BETWEEN ${new Date(firstSeen.getTime() - AggregationWindowMillis)}
                                    AND ${new Date(firstSeen.getTime() + AggregationWindowMillis)}
            LIMIT 1
          `
          if (neighbour !== undefined) {
            return yield* conflict(
              `incident ${neighbour.incident_id} of the same hack was stored since the lookup`
            )
          }
        } else if (!stored.nonces.every((nonce, i) => record.nonces[i] === nonce)) {
          return yield* conflict(`incident ${record.incident_id} changed since it was read`)
        }

        yield* sql`
          INSERT INTO incidents (
            incident_id, aggregation_key, protocol_name, chain, exploit_class, status, servable,
            first_seen_at, first_seen_at_text, detected_at, detected_at_text, slug, matched_protocol,
            loss_estimate_usd, victim_addresses, confidence_bps, resolved_at, resolved_at_text, resolution
          ) VALUES (
            ${record.incident_id}, ${key}, ${record.protocol_name}, ${record.chain}, ${record.exploit_class},
            ${record.status}, ${toServed(record) !== undefined},
            ${firstSeen}, ${record.first_seen_at}, ${detected}, ${record.detected_at}, ${record.slug},
            ${record.matched_protocol}, ${record.loss_estimate_usd}::double precision,
            ${[...record.victim_addresses]}::text[], ${record.confidence_bps}, ${resolved}, ${record.resolved_at},
            ${record.resolution}
          )
          ON CONFLICT (incident_id) DO UPDATE SET
            aggregation_key = EXCLUDED.aggregation_key, protocol_name = EXCLUDED.protocol_name,
            chain = EXCLUDED.chain, exploit_class = EXCLUDED.exploit_class, status = EXCLUDED.status,
            servable = EXCLUDED.servable, first_seen_at = EXCLUDED.first_seen_at,
            first_seen_at_text = EXCLUDED.first_seen_at_text, detected_at = EXCLUDED.detected_at,
            detected_at_text = EXCLUDED.detected_at_text, slug = EXCLUDED.slug,
            matched_protocol = EXCLUDED.matched_protocol, loss_estimate_usd = EXCLUDED.loss_estimate_usd,
            victim_addresses = EXCLUDED.victim_addresses, confidence_bps = EXCLUDED.confidence_bps,
            resolved_at = EXCLUDED.resolved_at, resolved_at_text = EXCLUDED.resolved_at_text,
            resolution = EXCLUDED.resolution, updated_at = now()
        `

        yield* sql`DELETE FROM incident_sources WHERE incident_id = ${record.incident_id}`
        const [firstSource, ...moreSources] = record.sources.map((s, position) => ({
          incident_id: record.incident_id,
          position,
          handle: s.handle,
          claimed_tier: s.claimed_tier,
          url: s.url ?? null
        }))
        if (firstSource !== undefined) {
          yield* sql`INSERT INTO incident_sources ${sql.insert([firstSource, ...moreSources])}`
        }

        const storedCount = stored?.nonces.length ?? 0
        const [firstNonce, ...moreNonces] = record.nonces
          .map((nonce, position) => ({ nonce, incident_id: record.incident_id, position }))
          .slice(storedCount)
        if (firstNonce !== undefined) {
          // The primary key refuses a nonce another incident holds: a concurrent ingest applied it.
          yield* sql`INSERT INTO incident_nonces ${sql.insert([firstNonce, ...moreNonces])}`
        }
      }).pipe(sql.withTransaction, mapSqlError("upsert"), Effect.withSpan("PgIncidentRepository.upsert"))

    const feed = (filter: IncidentFeedFilter) =>
      Effect.gen(function* () {
        const tiers = IncidentTiers.filter((tier) => atLeast(tier, filter.min_status))
        const where = sql.and([
          sql`i.servable`,
          sql`i.status = ANY (${[...tiers]}::text[])`,
          ...(filter.slug === undefined ? [] : [sql`i.slug = ${filter.slug}`]),
          ...(filter.sinceMillis === undefined ? [] : [sql`i.detected_at > ${new Date(filter.sinceMillis)}`])
        ])
        const rows = yield* sql<FeedRow>`
          SELECT
            i.incident_id, i.protocol_name, i.slug, i.matched_protocol, i.status, i.exploit_class,
            i.loss_estimate_usd, i.chain, i.confidence_bps, i.detected_at_text, i.first_seen_at_text,
            i.resolved_at_text, i.resolution,
            ARRAY(SELECT s.handle FROM incident_sources s WHERE s.incident_id = i.incident_id ORDER BY s.position)
              AS handles
          FROM incidents i
          WHERE ${where}
          ORDER BY i.detected_at DESC, i.incident_id
          LIMIT ${clampCount(filter.limit)} OFFSET ${clampCount(filter.offset)}
        `
        const [count] = yield* sql<{ readonly total: number }>`
          SELECT count(*)::integer AS total FROM incidents i WHERE ${where}
        `
        return { items: rows.map(toIncident), total: count?.total ?? 0 } satisfies IncidentFeedPage
      }).pipe(mapSqlError("feed"), Effect.withSpan("PgIncidentRepository.feed"))

    return IncidentRepository.of({ findByNonce, findFor, upsert, feed, withIngestLock: withIngestLock(sql) })
  })
)

/**
 * Rated protocols for matching: published protocol entities with a published
 * scorecard. Private and inactive ones are left out: a match puts the slug in
 * the public feed, which would reveal a record that lists hide. `readable`
 * asks the same of a few slugs (the feed names only those).
 */
export const layerRatedProtocols: Layer.Layer<RatedProtocols, never, SqlClient.SqlClient> = Layer.effect(
  RatedProtocols,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rated = sql`e.entity_type = 'protocol' AND e.status = 'published' AND e.is_active AND NOT e.is_private
      AND EXISTS (SELECT 1 FROM scorecards s WHERE s.entity_id = e.id AND s.status = 'published')`
    const published = sql<RatedProtocol>`
      SELECT e.slug, e.name FROM entities e WHERE ${rated}
      ORDER BY e.slug
    `.pipe(
      Effect.map((rows): ReadonlyArray<RatedProtocol> => rows.map((r) => ({ slug: r.slug, name: r.name }))),
      Effect.mapError((error) => new StoreError({ message: `rated protocols: ${error.message}` })),
      Effect.withSpan("PgRatedProtocols.published")
    )
    const readable = (slugs: ReadonlyArray<string>) =>
      sql<{ readonly slug: string }>`
        SELECT e.slug FROM entities e WHERE e.slug = ANY (${[...new Set(slugs)]}::text[]) AND ${rated}
      `.pipe(
        Effect.map((rows): ReadonlySet<string> => new Set(rows.map((r) => r.slug))),
        Effect.mapError((error) => new StoreError({ message: `readable rated protocols: ${error.message}` })),
        Effect.withSpan("PgRatedProtocols.readable")
      )
    return RatedProtocols.of({ published, readable })
  })
)
