/**
 * The IncidentRepository port on Postgres and the `RatedProtocols` port over
 * the ratings tables. The reads, the write and the rows live in incidents/,
 * each applying the lifecycle's rules as `IncidentLifecycle` gives them; the
 * feed's query selects no nonce and no victim address. Concurrent ingest (the
 * rule is the IncidentService's) is made safe twice: `findFor` and `upsert`
 * take a transaction-scoped advisory lock on the report's aggregation key,
 * held to the commit by `withIngestLock`; and `upsert` refuses, as a conflict
 * that `withIngestLock` retries, a write decided on a stale read (a nonce list
 * it does not extend, a new incident within the window of a stored one, a
 * nonce held elsewhere): never a second incident for one hack.
 */
import { Effect, Layer, Schedule, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { IncidentLifecycle } from "@ratings/domain/incidents/IncidentLifecycle"
import type { RatedProtocol } from "@ratings/domain/incidents/IncidentMatching"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { RatedProtocols } from "@ratings/domain/services/IncidentService"
import { feed, findByNonce, findFor, publicFeed, ratedProtocolSql } from "./incidents/IncidentReads.ts"
import { isIncidentConflict, mapSqlError } from "./incidents/IncidentRows.ts"
import { upsert } from "./incidents/IncidentWrites.ts"
import { decodeRows } from "./PgRows.ts"

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
    const lifecycle = yield* IncidentLifecycle
    return IncidentRepository.of({
      findByNonce: findByNonce(sql),
      findFor: findFor(sql, lifecycle),
      upsert: upsert(sql, lifecycle),
      feed: feed(sql, lifecycle),
      publicFeed: publicFeed(sql, lifecycle),
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
    const rated = sql.literal(ratedProtocolSql)
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
