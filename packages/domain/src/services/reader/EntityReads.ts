/**
 * The reads of RatingsReader the response cache serves: an entity list, an
 * entity's detail, and its scorecard list. Each applies the caller's list
 * flags, visibility and what a public record may name (ReadAccess.ts).
 */
import { Effect, Option } from "effect"
import { type EntityListQuery, listCriteriaOf } from "../../access/ListFilter.ts"
import type { Caller } from "../../model/Caller.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { dragHintTarget, typeOnlyDragHint } from "../../scoring/DependencyDrag.ts"
import {
  dragHintsFor,
  hiddenOf,
  hiddenTypes,
  isUuid,
  NotFound,
  type ReaderPorts,
  rated,
  resolve
} from "./ReadAccess.ts"
import { projectRecord } from "./PublicRecord.ts"

export interface ListRequest extends Omit<EntityListQuery, "flags"> {
  readonly include_inactive?: boolean | undefined
  readonly include_frameworks?: boolean | undefined
}

/**
 * A page of the type's listed entities. A chain or curator filter naming an
 * entity the caller may not see filters like an unknown one: an empty page.
 * The page and what it may not name are read together (one round trip); an
 * admin, who sees records as stored, reads the page alone.
 */
export const listEntities = (ports: ReaderPorts, caller: Caller, request: ListRequest) =>
  Effect.gen(function* () {
    const { include_inactive, include_frameworks, ...rest } = request
    const query = {
      ...rest,
      flags: ports.projection.effectiveListFlags(caller, { include_inactive, include_frameworks })
    }
    if (ports.projection.isAdmin(caller)) return yield* ports.entities.list(query)
    const read = yield* ports.entities.listWithUnreadable(query, hiddenTypes(request.entity_type))
    const hidden = hiddenOf(read.unreadable)
    // A hidden chain or curator filters like an unknown one: no record names it.
    const criteria = listCriteriaOf(request)
    if (criteria.chain !== undefined && hidden.chainSlugs.has(criteria.chain)) return { items: [], total: 0 }
    if (typeof criteria.curator === "string" && hidden.curatorIds.has(criteria.curator))
      return { items: [], total: 0 }
    return { items: read.value.items.map((r) => projectRecord(r, hidden)), total: read.value.total }
  })

/**
 * One entity by id or slug, as this caller may see it, or NotFound. The
 * entity and what it may not name are read together (one round trip); an
 * admin reads the entity alone.
 */
export const entityDetail = (
  ports: ReaderPorts,
  caller: Caller,
  type: EntityType,
  identifier: string,
  includeInactive: boolean
) =>
  Effect.gen(function* () {
    const admin = ports.projection.isAdmin(caller)
    const read = admin
      ? { value: yield* resolve(ports, type, identifier), unreadable: undefined }
      : yield* ports.entities.findWithUnreadable(
          type,
          isUuid(identifier) ? "id" : "slug",
          identifier,
          hiddenTypes(type)
        )
    const found = read.value
    if (
      Option.isNone(found) ||
      !ports.projection.isDetailVisible(
        found.value,
        ports.projection.effectiveListFlags(caller, { include_inactive: includeInactive })
      )
    )
      return yield* new NotFound()
    return read.unreadable === undefined ? found.value : projectRecord(found.value, hiddenOf(read.unreadable))
  })

/** The entity's scorecards as the caller's tier lists them (part 4), with drag hints it may read. */
export const entityScorecards = (ports: ReaderPorts, caller: Caller, type: EntityType, idOrSlug: string) =>
  ports.scorecards.entityWithScorecards === undefined
    ? scorecardsInTurn(ports, caller, type, idOrSlug)
    : scorecardsTogether(ports, ports.scorecards.entityWithScorecards, caller, type, idOrSlug)

/** The scorecard list read in turn: the entity, its scorecards, then each drag hint's entity. */
const scorecardsInTurn = (ports: ReaderPorts, caller: Caller, type: EntityType, idOrSlug: string) =>
  Effect.gen(function* () {
    const record = yield* rated(ports, caller, resolve(ports, type, idOrSlug))
    const all = yield* ports.scorecards.listForEntity(type, record.id)
    const projected = ports.projection.projectScorecardList(caller, type, all)
    const hint = yield* dragHintsFor(
      ports,
      caller,
      projected.map((s) => s.largest_drag_hint)
    )
    return withHints(projected, hint)
  })

/**
 * The scorecard list read together (one round trip on Postgres): the same
 * answers, a hint naming its entity only when the store found it readable.
 */
const scorecardsTogether = (
  ports: ReaderPorts,
  read: NonNullable<ReaderPorts["scorecards"]["entityWithScorecards"]>,
  caller: Caller,
  type: EntityType,
  idOrSlug: string
) =>
  Effect.gen(function* () {
    const found = yield* read(type, isUuid(idOrSlug) ? "id" : "slug", idOrSlug)
    if (Option.isNone(found.entity) || !ports.projection.areScorecardsVisible(caller, found.entity.value))
      return yield* new NotFound()
    const projected = ports.projection.projectScorecardList(caller, type, found.scorecards)
    const admin = ports.projection.isAdmin(caller)
    return withHints(projected, (hint) => {
      const target = hint === null ? undefined : dragHintTarget(hint)
      if (admin || hint === null || target === undefined || found.readableHints.has(hint)) return hint
      return typeOnlyDragHint(target.entity_type)
    })
  })

const withHints = <S extends { readonly largest_drag_hint: string | null }>(
  projected: ReadonlyArray<S>,
  hint: (hint: string | null) => string | null
) => {
  const items = projected.map((s) =>
    hint(s.largest_drag_hint) === s.largest_drag_hint
      ? s
      : { ...s, largest_drag_hint: hint(s.largest_drag_hint) }
  )
  return { items, total: items.length }
}
