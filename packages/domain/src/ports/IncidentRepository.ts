/**
 * Storage port for incidents: what the ingest and feed use cases need, and
 * nothing more. `IncidentRepositoryMemory.layer` (memory/IncidentRepositoryMemory.ts)
 * keeps records in a map and answers the feed with the pure `IncidentFeed`,
 * which is the reference the SQL adapter must agree with. `publicFeed` adds
 * the facts the public feed's visibility rule needs, read with the page.
 */
import { Context, type Effect, type Option } from "effect"
import type { IncidentFeedFilter } from "../incidents/IncidentFeed.ts"
import type { IncidentFeedPage, IncidentRecord, IncidentReport } from "../model/Incident.ts"
import type { StoreError } from "./StoreError.ts"

/** One page of the feed with, read at the same time, what the public may see named in it. */
export interface PublicFeedFacts {
  readonly page: IncidentFeedPage
  /** Per item of the page, in order: whether its slug names a rated protocol readable now (false without a slug). */
  readonly readable: ReadonlyArray<boolean>
  /** Whether the filter's `slug` names a rated protocol readable now (true without a `slug`). */
  readonly slugReadable: boolean
}

export class IncidentRepository extends Context.Service<
  IncidentRepository,
  {
    /** The incident that already holds a report with this nonce, if any. */
    findByNonce(nonce: string): Effect.Effect<Option.Option<IncidentRecord>, StoreError>
    /**
     * The incident a report belongs to (same aggregation key, first_seen_at
     * within the window), chosen as `selectIncident` chooses.
     */
    findFor(report: IncidentReport): Effect.Effect<Option.Option<IncidentRecord>, StoreError>
    /** Inserts or replaces the record with this incident_id. */
    upsert(record: IncidentRecord): Effect.Effect<void, StoreError>
    /** One page of servable incidents, filtered, ordered and counted as `feedPage` does. */
    feed(filter: IncidentFeedFilter): Effect.Effect<IncidentFeedPage, StoreError>
    /**
     * `feed`'s page with the readability of each item's protocol and of the
     * filter's slug under `RatedProtocols`' rule (rated, published, active, public).
     */
    publicFeed(filter: IncidentFeedFilter): Effect.Effect<PublicFeedFacts, StoreError>
    /**
     * Runs one whole ingest (its reads and its write) as a unit the store
     * serialises against other processes' ingests of the same hack, running
     * it again if the store refuses its write as decided on a stale read.
     * In memory a process is the only writer, so it runs as it is.
     */
    withIngestLock<A, E, R>(ingest: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R>
  }
>()("@ratings/domain/ports/IncidentRepository") {}
