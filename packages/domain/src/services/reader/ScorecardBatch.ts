/**
 * The scorecards of many listed entities at once, each entity's as the
 * caller's tier lists them on its scorecard route (the projection's
 * `projectScorecardList`): for the "public" class the latest published one
 * only, from one batched read of the latest published scorecards; for the
 * others every published version, from one batched read of all versions.
 * Drag hints are left as stored (never shown from here: the scorecard route
 * projects them). A
 * table of a whole type (the explorer's) is then a fixed number of queries,
 * never one per row.
 */
import { Effect } from "effect"
import { projectionClassOf } from "../../access/Projection.ts"
import type { Caller } from "../../model/Caller.ts"
import type { EntityType } from "../../model/EntityType.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import type { StoreError } from "../../ports/StoreError.ts"
import type { ReaderPorts } from "./ReadAccess.ts"

/** Per entity id (those with any scorecard the caller may see), its scorecard list, newest first. */
export const scorecardsOfMany = (
  ports: ReaderPorts,
  caller: Caller,
  type: EntityType,
  entityIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<Scorecard>>, StoreError> =>
  Effect.gen(function* () {
    const byEntity = new Map<string, Array<Scorecard>>()
    if (entityIds.length === 0) return byEntity
    const project = (cards: ReadonlyArray<Scorecard>) =>
      ports.projection.projectScorecardList(caller, type, cards)
    if (projectionClassOf(caller) === "public") {
      const latest = yield* ports.scorecards.latestPublishedOf(type, entityIds)
      for (const [id, card] of latest) byEntity.set(id, project([card]))
      return byEntity
    }
    for (const card of yield* ports.scorecards.listForEntities(type, entityIds)) {
      const list = byEntity.get(card.entity_id)
      if (list === undefined) byEntity.set(card.entity_id, [card])
      else list.push(card)
    }
    for (const [id, cards] of byEntity) byEntity.set(id, project(cards))
    for (const [id, cards] of byEntity) if (cards.length === 0) byEntity.delete(id)
    return byEntity
  })
