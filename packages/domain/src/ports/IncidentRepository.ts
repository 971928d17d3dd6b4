/**
 * Storage port for incidents: what the ingest and feed use cases need, and
 * nothing more. `layerMemory` keeps records in a map and answers the feed with
 * the pure `IncidentFeed`, which is the reference the SQL adapter must agree with.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import { feedPage, type IncidentFeedFilter } from "../incidents/IncidentFeed.ts"
import { selectIncident, toServed } from "../incidents/IncidentLifecycle.ts"
import type { Incident, IncidentFeedPage, IncidentRecord, IncidentReport } from "../model/Incident.ts"
import type { StoreError } from "./StoreError.ts"

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
     * Runs one whole ingest (its reads and its write) as a unit the store
     * serialises against other processes' ingests of the same hack, running
     * it again if the store refuses its write as decided on a stale read.
     * In memory a process is the only writer, so it runs as it is.
     */
    withIngestLock<A, E, R>(ingest: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R>
  }
>()("@ratings/domain/ports/IncidentRepository") {
  static readonly layerMemory = Layer.effect(
    IncidentRepository,
    Effect.gen(function* () {
      const store = yield* Ref.make(new Map<string, IncidentRecord>())

      const findByNonce = (nonce: string) =>
        Ref.get(store).pipe(
          Effect.map((records) =>
            Option.fromUndefinedOr([...records.values()].find((r) => r.nonces.includes(nonce)))
          )
        )

      const findFor = (report: IncidentReport) =>
        Ref.get(store).pipe(
          Effect.map((records) => Option.fromUndefinedOr(selectIncident(records.values(), report)))
        )

      const upsert = (record: IncidentRecord) =>
        Ref.update(store, (records) => new Map(records).set(record.incident_id, record))

      const feed = (filter: IncidentFeedFilter) =>
        Ref.get(store).pipe(
          Effect.map((records) => {
            const served: Array<Incident> = []
            for (const record of records.values()) {
              const item = toServed(record)
              if (item !== undefined) served.push(item)
            }
            return feedPage(served, filter)
          })
        )

      return IncidentRepository.of({ findByNonce, findFor, upsert, feed, withIngestLock: (ingest) => ingest })
    })
  )
}
