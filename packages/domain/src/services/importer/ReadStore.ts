/**
 * What `Importer.validate` reads of the store, in bulk: every stored entity
 * and catalogue, then the scorecards, history, drafts and dependency
 * headlines the import's content needs (ImportStoreView.ts says which).
 */
import { Effect, Option } from "effect"
import type { decodeSources } from "../../import/ImportDecode.ts"
import { matchStoredEntities, matchStoredScorecards } from "../../import/ImportIdMatch.ts"
import {
  draftNeeds,
  emptyStoreView,
  idKey,
  indexEntities,
  type StoreView,
  storeNeeds
} from "../../import/ImportStoreView.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import { type EntityType, EntityTypes } from "../../model/EntityType.ts"
import type { Question } from "../../model/Question.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import type { StoredScorecard } from "../../ports/ScorecardRepository.ts"
import type { ImporterPorts } from "./ImporterPorts.ts"

type Decoded = ReturnType<typeof decodeSources>

/** Stored entities whose scorecards are read in one call during validation. */
const ReadBatch = 5000
/** Reads of the store during validation that may run side by side. */
const ReadConcurrency = 8

/** Ids grouped by entity type. */
const byEntityType = <A extends { readonly entity_type: EntityType }>(
  items: ReadonlyArray<A>,
  idOf: (a: A) => string
): Map<EntityType, Array<string>> => {
  const out = new Map<EntityType, Array<string>>()
  for (const item of items) {
    const list = out.get(item.entity_type)
    if (list === undefined) out.set(item.entity_type, [idOf(item)])
    else list.push(idOf(item))
  }
  return out
}

const inBatches = (groups: ReadonlyMap<EntityType, ReadonlyArray<string>>) =>
  [...groups].flatMap(([type, ids]) => {
    const out: Array<readonly [EntityType, ReadonlyArray<string>]> = []
    for (let i = 0; i < ids.length; i += ReadBatch) out.push([type, ids.slice(i, i + ReadBatch)])
    return out
  })

/** Every stored entity and question catalogue, by type, and the quantum snapshot's date. */
const readBase = Effect.fnUntraced(function* (ports: ImporterPorts) {
  const stored = yield* Effect.forEach(EntityTypes, (t) => ports.entities.all(t), {
    concurrency: ReadConcurrency
  })
  const questions = yield* Effect.forEach(EntityTypes, (t) => ports.rubric.questions(t), {
    concurrency: ReadConcurrency
  })
  const latest = yield* ports.quantumStore.latest
  const byType = <A>(xs: ReadonlyArray<ReadonlyArray<A>>) =>
    Object.fromEntries(EntityTypes.map((t, i) => [t, xs[i]!])) as {
      readonly [T in EntityType]: ReadonlyArray<A>
    }
  return {
    ...emptyStoreView(),
    entities: byType<EntityRecord>(stored),
    catalogues: byType<Question>(questions),
    quantumAsOf: Option.isSome(latest) ? latest.value.as_of : undefined,
    quantumSlugs: Option.isSome(latest) ? latest.value.rows.map((r) => r.slug) : []
  } satisfies StoreView
})

/** The scorecards of each entity the import needs them of, keyed as the import resolved its id. */
const readScorecardLists = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  scorecardsOf: ReturnType<typeof storeNeeds>["scorecardsOf"]
) {
  // Bulk reads by type give rows keyed as the store spells ids; the view keys them as the import resolved them.
  const lists = new Map<string, Array<Scorecard>>(scorecardsOf.map((e) => [e.entity_id, []]))
  const asResolved = new Map(scorecardsOf.map((e) => [idKey(e.entity_id), e.entity_id]))
  const rows = yield* Effect.forEach(
    inBatches(byEntityType(scorecardsOf, (e) => e.entity_id)),
    ([type, ids]) => ports.scorecards.listForEntities(type, ids),
    { concurrency: ReadConcurrency }
  )
  for (const row of rows.flat()) lists.get(asResolved.get(idKey(row.entity_id)) ?? row.entity_id)?.push(row)
  const scorecardMap: ReadonlyMap<string, ReadonlyArray<Scorecard>> = lists
  return scorecardMap
})

/** The stored drafts the import names, and the headline composites of the dependencies it names. */
const readDraftsAndComposites = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  more: ReturnType<typeof draftNeeds>
) {
  const drafts = yield* Effect.forEach(
    inBatches(byEntityType(more.drafts, (d) => d.id)),
    ([type, ids]) => ports.scorecards.findByIds(type, ids),
    { concurrency: ReadConcurrency }
  )
  const composites = yield* Effect.forEach(
    [...more.dependencies],
    ([type, ids]) =>
      Effect.map(ports.scorecards.latestPublishedOf(type, ids), (m) =>
        [...m].map(([id, s]) => [`${type}:${idKey(id)}`, s.composite_score] as const)
      ),
    { concurrency: ReadConcurrency }
  )
  return {
    drafts: new Map(drafts.flat().map((d: StoredScorecard) => [d.id, d] as const)),
    publishedComposites: new Map(composites.flat())
  }
})

/**
 * The view of the store validation checks the decoded import against, and the
 * import's content with the ids it left out matched to what is stored.
 */
export const readStore = Effect.fnUntraced(function* (ports: ImporterPorts, decoded: Decoded) {
  const base = yield* readBase(ports)
  const withEntities = matchStoredEntities(decoded.content, base.entities)
  const index = indexEntities(withEntities, base)
  const needs = storeNeeds(withEntities, index)
  const scorecardMap = yield* readScorecardLists(ports, needs.scorecardsOf)
  const content = matchStoredScorecards(withEntities, index, scorecardMap)
  const history = yield* Effect.forEach(
    needs.historyOf,
    (e) => Effect.map(ports.scorecards.history(e.entity_type, e.entity_id), (h) => [e.entity_id, h] as const),
    { concurrency: ReadConcurrency }
  )
  const more = draftNeeds(content, index, scorecardMap)
  const { drafts, publishedComposites } = yield* readDraftsAndComposites(ports, more)
  const view: StoreView = {
    ...base,
    scorecards: scorecardMap,
    history: new Map(history),
    drafts,
    publishedComposites
  }
  return { view, content }
})
