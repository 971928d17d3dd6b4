/**
 * Use case: comparison (spec part 4, Enterprise). Each entity's grade,
 * composite_score, domain_scores and last_rated_at from its latest published
 * scorecard. Identifiers are ids or slugs; an unknown, hidden or unpublished
 * entity fails the whole request with the same answer, so nothing reveals a draft.
 */
import { Context, Effect, Layer, Result, Schema } from "effect"
import type { AccessDenied } from "../access/Capabilities.ts"
import { Projection } from "../access/Projection.ts"
import type { Caller } from "../model/Caller.ts"
import type { EntityRecord } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { ExportField } from "../model/ExportFields.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { ScorecardRepository } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { isUuid } from "./RatingsReader.ts"

/** Separator of the `ids` parameter: a comma (ids and slugs never contain one). */
export const CompareIdsSeparator = ","
export const CompareIds = { min: 1, max: 25 } as const

export class CompareNotFound extends Schema.TaggedError<CompareNotFound>()("CompareNotFound", {
  identifiers: Schema.Array(Schema.String)
}) {}

export interface CompareRequest {
  readonly entity_type: EntityType
  readonly ids: ReadonlyArray<string>
  readonly fields: ReadonlyArray<ExportField>
}

export type CompareItem = { readonly [K in ExportField]?: unknown } & { readonly id: string }

export class CompareService extends Context.Service<
  CompareService,
  {
    readonly compare: (
      caller: Caller,
      request: CompareRequest
    ) => Effect.Effect<
      { readonly items: ReadonlyArray<CompareItem> },
      AccessDenied | CompareNotFound | StoreError
    >
  }
>()("@ratings/domain/services/CompareService") {
  static readonly layer = Layer.effect(
    CompareService,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      const projection = yield* Projection
      return CompareService.of({
        compare: Effect.fn("CompareService.compare")(function* (caller, request) {
          const allowed = projection.authorize(caller, "compare")
          if (Result.isFailure(allowed)) return yield* allowed.failure
          // Every identifier in one read; which record answers which identifier is decided here,
          // as findById and findBySlug would: a UUID names an id (any case), anything else a slug.
          const records = yield* entities.findMany(request.entity_type, {
            ids: request.ids.filter(isUuid),
            slugs: request.ids.filter((identifier) => !isUuid(identifier))
          })
          const byId = new Map(records.map((r) => [r.id.toLowerCase(), r]))
          const bySlug = new Map(records.map((r) => [r.slug, r]))
          const found: Array<EntityRecord> = []
          const missing: Array<string> = []
          for (const identifier of request.ids) {
            const r = isUuid(identifier) ? byId.get(identifier.toLowerCase()) : bySlug.get(identifier)
            if (r !== undefined && projection.isPubliclyReadable(r)) found.push(r)
            else missing.push(identifier)
          }
          if (missing.length > 0) return yield* new CompareNotFound({ identifiers: missing })
          const cards = yield* scorecards.latestPublishedOf(
            request.entity_type,
            found.map((r) => r.id)
          )
          return {
            items: found.map((r) => {
              const card = cards.get(r.id)
              const item: Record<string, unknown> = { id: r.id }
              for (const f of request.fields) {
                item[f] = f === "slug" ? r.slug : f === "name" ? r.name : (card?.[f] ?? null)
              }
              return item as CompareItem
            })
          }
        })
      })
    })
  )
}
