/**
 * The reads of RatingsReader the response cache serves: an entity list, an
 * entity's detail, and its scorecard list. Each applies the caller's list
 * flags, visibility and what a public record may name (ReadAccess.ts).
 */
import { Effect, Option } from "effect"
import { type EntityListQuery, ListParameters } from "../../access/ListFilter.ts"
import type { Caller } from "../../model/Caller.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { dragHintsFor, hiddenFor, NotFound, type ReaderPorts, rated, resolve } from "./ReadAccess.ts"
import { projectRecord } from "./PublicRecord.ts"

export interface ListRequest extends Omit<EntityListQuery, "flags"> {
  readonly include_inactive?: boolean | undefined
  readonly include_frameworks?: boolean | undefined
}

/**
 * A page of the type's listed entities. A chain or curator filter naming an
 * entity the caller may not see filters like an unknown one: an empty page.
 */
export const listEntities = (ports: ReaderPorts, caller: Caller, request: ListRequest) =>
  Effect.gen(function* () {
    const { include_inactive, include_frameworks, ...rest } = request
    const hidden = yield* hiddenFor(ports, caller, request.entity_type)
    // A hidden chain filters like an unknown one: no record names it.
    const chain = ListParameters[request.entity_type].includes("chain") ? request.chain : undefined
    if (hidden !== undefined && chain !== undefined && hidden.chainSlugs.has(chain))
      return { items: [], total: 0 }
    // So does a hidden curator: no record names it either.
    const curator = ListParameters[request.entity_type].includes("curator_id")
      ? request.curator_id
      : undefined
    if (hidden !== undefined && curator !== undefined && hidden.curatorIds.has(curator.toLowerCase()))
      return { items: [], total: 0 }
    const page = yield* ports.entities.list({
      ...rest,
      flags: ports.projection.effectiveListFlags(caller, { include_inactive, include_frameworks })
    })
    return hidden === undefined
      ? page
      : { items: page.items.map((r) => projectRecord(r, hidden)), total: page.total }
  })

/** One entity by id or slug, as this caller may see it, or NotFound. */
export const entityDetail = (
  ports: ReaderPorts,
  caller: Caller,
  type: EntityType,
  identifier: string,
  includeInactive: boolean
) =>
  Effect.gen(function* () {
    const found = yield* resolve(ports, type, identifier)
    if (
      Option.isNone(found) ||
      !ports.projection.isDetailVisible(
        found.value,
        ports.projection.effectiveListFlags(caller, { include_inactive: includeInactive })
      )
    )
      return yield* new NotFound()
    const hidden = yield* hiddenFor(ports, caller, type)
    return hidden === undefined ? found.value : projectRecord(found.value, hidden)
  })

/** The entity's scorecards as the caller's tier lists them (part 4), with drag hints it may read. */
export const entityScorecards = (ports: ReaderPorts, caller: Caller, type: EntityType, idOrSlug: string) =>
  Effect.gen(function* () {
    const record = yield* rated(ports, caller, resolve(ports, type, idOrSlug))
    const all = yield* ports.scorecards.listForEntity(type, record.id)
    const projected = ports.projection.projectScorecardList(caller, type, all)
    const hint = yield* dragHintsFor(
      ports,
      caller,
      projected.map((s) => s.largest_drag_hint)
    )
    const items = projected.map((s) =>
      hint(s.largest_drag_hint) === s.largest_drag_hint
        ? s
        : { ...s, largest_drag_hint: hint(s.largest_drag_hint) }
    )
    return { items, total: items.length }
  })
