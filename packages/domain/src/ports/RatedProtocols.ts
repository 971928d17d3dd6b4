/**
 * The protocols incidents match and the public feed may name: those rated
 * (published, with a published scorecard) and readable now. A port of its
 * own because the in-memory incident store answers the public feed's
 * readability from it; the in-memory list is memory/RatedProtocolsMemory.ts.
 */
import { Context, Effect, Layer, Option } from "effect"
import { Projection } from "../access/Projection.ts"
import { EntityRepository } from "./EntityRepository.ts"
import { ScorecardRepository } from "./ScorecardRepository.ts"
import type { StoreError } from "./StoreError.ts"
import type { RatedProtocol } from "../incidents/IncidentMatching.ts"

/**
 * The protocols that count as rated for matching: those with a published
 * scorecard, and only those. Implemented over the protocol store in the app.
 */
export class RatedProtocols extends Context.Service<
  RatedProtocols,
  {
    readonly published: Effect.Effect<ReadonlyArray<RatedProtocol>, StoreError>
    /** Those of `slugs` that are slugs of `published` protocols now: the ones the public may see named. */
    readonly readable: (slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, StoreError>
  }
>()("@ratings/domain/services/RatedProtocols") {
  /**
   * Over the entity and scorecard ports: published, public, active protocols
   * with a published scorecard (a match puts the slug in the public feed, so
   * nothing a list hides may match). Postgres has its own single query.
   */
  static readonly layerStores = Layer.effect(
    RatedProtocols,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      const projection = yield* Projection
      const published = Effect.gen(function* () {
        const records = yield* entities.published("protocol", Number.MAX_SAFE_INTEGER)
        const rated = yield* scorecards.latestPublishedOf(
          "protocol",
          records.map((r) => r.id)
        )
        return records.filter((r) => rated.has(r.id)).map((r) => ({ slug: r.slug, name: r.name }))
      })
      const readable = (slugs: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const out = new Set<string>()
          for (const slug of new Set(slugs)) {
            const found = yield* entities.findBySlug("protocol", slug)
            if (Option.isNone(found) || !projection.isPubliclyReadable(found.value)) continue
            const card = yield* scorecards.latest("protocol", found.value.id, "published")
            if (Option.isSome(card)) out.add(slug)
          }
          return out as ReadonlySet<string>
        })
      return RatedProtocols.of({ published, readable })
    })
  )
}
