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
 *
 * The reads, the write and the rows (decoded with schemas built from the
 * domain's) live in incidents/; this module wires them into the ports.
 */
import { Effect, Layer, Schedule, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { RatedProtocol } from "@ratings/domain/incidents/IncidentMatching"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { RatedProtocols } from "@ratings/domain/services/IncidentService"
import { feed, findByNonce, findFor } from "./incidents/IncidentReads.ts"
import { isIncidentConflict, mapSqlError } from "./incidents/IncidentRows.ts"
import { upsert } from "./incidents/IncidentWrites.ts"
import { decodeRows } from "./PgRows.ts"
import { readableSql } from "./ReadableSql.ts"

export { isIncidentConflict } from "./incidents/IncidentRows.ts"

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
    return IncidentRepository.of({
      findByNonce: findByNonce(sql),
      findFor: findFor(sql),
      upsert: upsert(sql),
      feed: feed(sql),
      withIngestLock: withIngestLock(sql)
    })
  })
)

const decodeRated = decodeRows(Schema.Struct({ slug: Schema.String, name: Schema.String }))
const decodeSlugs = decodeRows(Schema.Struct({ slug: Schema.String }))

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
    const rated = sql`e.entity_type = 'protocol' AND ${sql.literal(readableSql("e"))}
      AND EXISTS (SELECT 1 FROM scorecards s WHERE s.entity_id = e.id AND s.status = 'published')`
    const published = sql`
      SELECT e.slug, e.name FROM entities e WHERE ${rated}
      ORDER BY e.slug
    `.pipe(
      Effect.flatMap(decodeRated),
      Effect.map((rows): ReadonlyArray<RatedProtocol> => rows.map((r) => ({ slug: r.slug, name: r.name }))),
      Effect.mapError((error) => new StoreError({ message: `rated protocols: ${error.message}` })),
      Effect.withSpan("PgRatedProtocols.published")
    )
    const readable = (slugs: ReadonlyArray<string>) =>
      sql`
        SELECT e.slug FROM entities e WHERE e.slug = ANY (${[...new Set(slugs)]}::text[]) AND ${rated}
      `.pipe(
        Effect.flatMap(decodeSlugs),
        Effect.map((rows): ReadonlySet<string> => new Set(rows.map((r) => r.slug))),
        Effect.mapError((error) => new StoreError({ message: `readable rated protocols: ${error.message}` })),
        Effect.withSpan("PgRatedProtocols.readable")
      )
    return RatedProtocols.of({ published, readable })
  })
)
