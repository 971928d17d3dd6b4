/**
 * The in-memory `IncidentRepository` of tests and tools; the contract is the
 * port's (`../IncidentRepository.ts`). The public feed's readability is
 * `RatedProtocols`' answer, which it requires.
 */
import { Effect, Layer, Option, Ref } from "effect"
import { feedPage, type IncidentFeedFilter } from "../../incidents/IncidentFeed.ts"
import { IncidentLifecycle } from "../../incidents/IncidentLifecycle.ts"
import { RatedProtocols } from "../RatedProtocols.ts"
import type { Incident, IncidentRecord, IncidentReport } from "../../model/Incident.ts"
import { IncidentRepository } from "../IncidentRepository.ts"

const layer = Layer.effect(
  IncidentRepository,
  Effect.gen(function* () {
    const store = yield* Ref.make(new Map<string, IncidentRecord>())
    const { selectIncident, toServed } = yield* IncidentLifecycle
    const rated = yield* RatedProtocols

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

    const publicFeed = (filter: IncidentFeedFilter) =>
      Effect.gen(function* () {
        const page = yield* feed(filter)
        const slugs = page.items.flatMap((i) => (i.slug === null ? [] : [i.slug]))
        if (filter.slug !== undefined) slugs.push(filter.slug)
        const readable = slugs.length === 0 ? new Set<string>() : yield* rated.readable(slugs)
        return {
          page,
          readable: page.items.map((i) => i.slug !== null && readable.has(i.slug)),
          slugReadable: filter.slug === undefined || readable.has(filter.slug)
        }
      })

    // In memory a process is the only writer: an ingest runs as it is.
    return IncidentRepository.of({
      findByNonce,
      findFor,
      upsert,
      feed,
      publicFeed,
      withIngestLock: (ingest) => ingest
    })
  })
)

export const IncidentRepositoryMemory = { layer }
