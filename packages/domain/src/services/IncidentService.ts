/**
 * Use cases for hack incidents: ingest one source's report, and serve the
 * feed. Ingest only ever writes incident records; it has no port through which
 * it could touch a rating, because an incident is a signal to look, not an
 * applied downgrade (spec part 1, rule 4).
 */
import { Clock, Context, Effect, Layer, Option, Result, Schema, Semaphore } from "effect"
import { Projection } from "../access/Projection.ts"
import { type IncidentFeedFilter, toFeedFilter } from "../incidents/IncidentFeed.ts"
import { IncidentLifecycle, type IngestOutcome } from "../incidents/IncidentLifecycle.ts"
import { makeMatcher } from "../incidents/IncidentMatching.ts"
import { RatedProtocols } from "../ports/RatedProtocols.ts"
import type { IncidentTier } from "../incidents/IncidentTier.ts"
import type { Caller } from "../model/Caller.ts"
import {
  type Incident,
  type IncidentFeedPage,
  type IncidentFeedQuery,
  IncidentReport
} from "../model/Incident.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { IncidentRepository } from "../ports/IncidentRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { IdGeneratorMemory } from "../ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../ports/memory/IncidentRepositoryMemory.ts"
import { RatedProtocolsMemory } from "../ports/memory/RatedProtocolsMemory.ts"

export { RatedProtocols } from "../ports/RatedProtocols.ts"
export { RatedProtocolsMemory } from "../ports/memory/RatedProtocolsMemory.ts"

export class InvalidIncidentReport extends Schema.TaggedError<InvalidIncidentReport>()(
  "InvalidIncidentReport",
  {
    message: Schema.String
  }
) {}

export class InvalidIncidentFeedQuery extends Schema.TaggedError<InvalidIncidentFeedQuery>()(
  "InvalidIncidentFeedQuery",
  { message: Schema.String }
) {}

/**
 * The feed as the public reads it (docs/adr/0003-access-and-lists.md): an
 * incident whose protocol the public cannot read now (hidden since it
 * matched, or renamed) is served unmatched, slug null and
 * matched_protocol false, as an incident at an unrated protocol is; and
 * `?slug=` by such a protocol answers exactly like an unknown slug.
 */
const makePublicFeed = (repository: IncidentRepository["Service"]) => (filter: IncidentFeedFilter) =>
  Effect.gen(function* () {
    // The page, and whether its protocols and `?slug=` are readable now: one read of the store.
    const { page, readable, slugReadable } = yield* repository.publicFeed(filter)
    if (!slugReadable) return { items: [], total: 0 } satisfies IncidentFeedPage
    const items = page.items.map(
      (i, n): Incident =>
        i.slug === null || readable[n] === true ? i : { ...i, slug: null, matched_protocol: false }
    )
    return { items, total: page.total } satisfies IncidentFeedPage
  })

/** What ingest reports back; carries no nonce and no victim address. */
export interface IngestResult {
  readonly outcome: IngestOutcome
  readonly incident_id: string
  /** Null while the incident is not servable (fewer than two independent sources). */
  readonly status: IncidentTier | null
  readonly served: Incident | undefined
}

export interface IngestOptions {
  /** When the service received the report, epoch milliseconds; the clock when absent. */
  readonly receivedAt?: number
}

export class IncidentService extends Context.Service<
  IncidentService,
  {
    /**
     * Ingests one report, received now, or at `options.receivedAt` (epoch
     * milliseconds) when an import carries when the report was received.
     */
    ingest(
      input: unknown,
      options?: IngestOptions
    ): Effect.Effect<IngestResult, InvalidIncidentReport | StoreError>
    /**
     * One page of the feed as `caller` may read it; without a caller, as the
     * public reads it. Only an admin reads incidents as stored: for everyone
     * else an incident names a protocol only while it is a rated protocol the
     * public can read (`publicFeed`).
     */
    feed(
      query: IncidentFeedQuery,
      caller?: Caller
    ): Effect.Effect<IncidentFeedPage, InvalidIncidentFeedQuery | StoreError>
  }
>()("@ratings/domain/services/IncidentService") {
  static readonly layer = Layer.effect(
    IncidentService,
    Effect.gen(function* () {
      const repository = yield* IncidentRepository
      const rated = yield* RatedProtocols
      const ids = yield* IdGenerator
      const lifecycle = yield* IncidentLifecycle
      const projection = yield* Projection
      // Ingest reads, decides and writes one record; within a process these
      // steps must not interleave or two reports could each miss the other,
      // and across processes the store serialises them (`withIngestLock`).
      const ingestLock = yield* Semaphore.make(1)

      const decode = Schema.decodeUnknownEffect(IncidentReport)

      const ingest = Effect.fn("IncidentService.ingest")(
        function* (
          input: unknown,
          options?: IngestOptions
        ): Effect.fn.Return<IngestResult, InvalidIncidentReport | StoreError> {
          const report = yield* decode(input).pipe(
            Effect.mapError((error) => new InvalidIncidentReport({ message: error.message }))
          )
          const seen = yield* repository.findByNonce(report.nonce)
          if (Option.isSome(seen)) {
            const state = seen.value
            return {
              outcome: "duplicate" as const,
              incident_id: state.incident_id,
              status: state.status,
              served: lifecycle.toServed(state)
            }
          }
          const existing = Option.getOrUndefined(yield* repository.findFor(report))
          const protocols = yield* rated.published
          const now = options?.receivedAt ?? (yield* Clock.currentTimeMillis)
          const incidentId = existing === undefined ? yield* ids.uuid : existing.incident_id
          const applied = lifecycle.applyReport(existing, report, {
            now,
            incidentId,
            matcher: makeMatcher(protocols)
          })
          if (applied.outcome !== "duplicate") yield* repository.upsert(applied.state)
          return {
            outcome: applied.outcome,
            incident_id: applied.state.incident_id,
            status: applied.state.status,
            served: lifecycle.toServed(applied.state)
          }
        },
        (effect) => ingestLock.withPermit(repository.withIngestLock(effect))
      )

      const publicFeed = makePublicFeed(repository)

      const feed = Effect.fn("IncidentService.feed")(function* (query: IncidentFeedQuery, caller?: Caller) {
        const filter = toFeedFilter(query)
        if (Result.isFailure(filter)) return yield* new InvalidIncidentFeedQuery({ message: filter.failure })
        return yield* caller !== undefined && projection.isAdmin(caller)
          ? repository.feed(filter.success)
          : publicFeed(filter.success)
      })

      return IncidentService.of({ ingest, feed })
    })
  )

  /** The service over in-memory ports, with the ports exposed so tests can arrange and inspect them. */
  static readonly layerTest = IncidentService.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        IncidentRepositoryMemory.layer.pipe(Layer.provideMerge(RatedProtocolsMemory.layer)),
        IdGeneratorMemory.layer
      )
    )
  )
}
