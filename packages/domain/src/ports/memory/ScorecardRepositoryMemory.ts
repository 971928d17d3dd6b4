/** The in-memory `ScorecardRepository` of tests and tools; the contract is the port's (`../ScorecardRepository.ts`). */
import { Effect, Layer, Option } from "effect"
import type { EntityType } from "../../model/EntityType.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import { StoreError } from "../StoreError.ts"
import {
  type HistoryEntryRecord,
  type PublishRecord,
  ScorecardRepository,
  type StoredScorecard,
  toListFields
} from "../ScorecardRepository.ts"

/** Newest version first. */
const byVersionDesc = (a: { scorecard_version: number }, b: { scorecard_version: number }) =>
  b.scorecard_version - a.scorecard_version

type Repository = ScorecardRepository["Service"]

/** The scorecards by id, the ids of each entity's scorecards, and each entity's history. */
interface Cards {
  readonly cards: Map<string, StoredScorecard>
  /** By `type:entityId`: the ids of the entity's scorecards. */
  readonly ofEntityIds: Map<string, Set<string>>
  /** By entity id: its history entries, in the order written. */
  readonly hist: Map<string, Array<HistoryEntryRecord>>
}

const entityKey = (type: EntityType, entityId: string) => `${type}:${entityId}`

/** Stores a scorecard, moving it between entities if a stored one with its id had another. */
const put = (store: Cards, s: StoredScorecard) => {
  const before = store.cards.get(s.id)
  if (before !== undefined)
    store.ofEntityIds.get(entityKey(before.entity_type, before.entity_id))?.delete(s.id)
  store.cards.set(s.id, s)
  const key = entityKey(s.entity_type, s.entity_id)
  const ids = store.ofEntityIds.get(key)
  if (ids === undefined) store.ofEntityIds.set(key, new Set([s.id]))
  else ids.add(s.id)
}

/** An entity's scorecards, newest version first. */
const ofEntity = (store: Cards, type: EntityType, entityId: string): Array<StoredScorecard> => {
  const out: Array<StoredScorecard> = []
  for (const id of store.ofEntityIds.get(entityKey(type, entityId)) ?? []) out.push(store.cards.get(id)!)
  return out.sort(byVersionDesc)
}

/** An entity's newest scorecard with the status. */
const latestWith = (store: Cards, type: EntityType, entityId: string, status: StoredScorecard["status"]) =>
  ofEntity(store, type, entityId).find((s) => s.status === status)

const appendHistory = (store: Cards, entityId: string, entry: HistoryEntryRecord) => {
  const list = store.hist.get(entityId)
  if (list === undefined) store.hist.set(entityId, [entry])
  else list.push(entry)
}

/** Publishes one record: the published scorecard is superseded, the record's stored, its history appended. */
const publishOne = (store: Cards, r: PublishRecord) => {
  for (const s of ofEntity(store, r.entity_type, r.entity_id))
    if (s.status === "published") put(store, { ...s, status: "superseded" })
  put(store, r.scorecard)
  appendHistory(store, r.entity_id, r.history)
}

/** The reads of the port. */
const reads = (
  store: Cards
): Pick<
  Repository,
  | "listForEntity"
  | "listForEntities"
  | "findById"
  | "findByIds"
  | "latest"
  | "latestOf"
  | "latestPublishedOf"
  | "history"
> => ({
  listForEntity: (type, entityId) => Effect.sync(() => ofEntity(store, type, entityId).map(toListFields)),
  listForEntities: (type, entityIds) =>
    Effect.sync(() => [...new Set(entityIds)].flatMap((id) => ofEntity(store, type, id).map(toListFields))),
  findById: (type, id) =>
    Effect.sync(() => {
      const s = store.cards.get(id)
      return s !== undefined && s.entity_type === type ? Option.some(s) : Option.none()
    }),
  findByIds: (type, ids) =>
    Effect.sync(() =>
      [...new Set(ids)].flatMap((id) => {
        const s = store.cards.get(id)
        return s !== undefined && s.entity_type === type ? [s] : []
      })
    ),
  latest: (type, entityId, status) =>
    Effect.sync(() => Option.fromNullishOr(latestWith(store, type, entityId, status))),
  latestOf: (type, entityIds, status) =>
    Effect.sync(() =>
      [...new Set(entityIds)].flatMap((id) => {
        const s = latestWith(store, type, id, status)
        return s === undefined ? [] : [s]
      })
    ),
  latestPublishedOf: (type, entityIds) =>
    Effect.sync(() => {
      const out = new Map<string, Scorecard>()
      for (const id of new Set(entityIds)) {
        const s = latestWith(store, type, id, "published")
        if (s !== undefined) out.set(s.entity_id, toListFields(s))
      }
      return out
    }),
  history: (_type, entityId) => Effect.sync(() => [...(store.hist.get(entityId) ?? [])].sort(byVersionDesc))
})

/** The writes of the port but `publishMany`. */
const writes = (
  store: Cards
): Pick<Repository, "saveDraft" | "saveDrafts" | "importHistory" | "publish"> => ({
  saveDraft: (s) => Effect.sync(() => put(store, s)),
  saveDrafts: (scorecards) =>
    Effect.sync(() => {
      for (const s of scorecards) put(store, s)
    }),
  importHistory: (entityId, entries) =>
    Effect.sync(() => {
      const have = new Set((store.hist.get(entityId) ?? []).map((e) => e.scorecard_version))
      for (const e of entries) {
        if (have.has(e.scorecard_version)) continue
        have.add(e.scorecard_version)
        appendHistory(store, entityId, e)
      }
    }),
  publish: (r) => Effect.sync(() => publishOne(store, r))
})

/**
 * Publishes every record or none: there is no rollback (see Transaction), so
 * each record must name a stored draft of its entity (each draft once) before
 * any is published. The published scorecards keep the stored answers and evidence.
 */
const publishMany = (store: Cards, records: ReadonlyArray<PublishRecord>) =>
  Effect.gen(function* () {
    const drafts = new Map<string, StoredScorecard>()
    for (const r of records) {
      const stored = drafts.has(r.scorecard.id) ? undefined : store.cards.get(r.scorecard.id)
      if (
        stored === undefined ||
        stored.status !== "draft" ||
        stored.entity_type !== r.entity_type ||
        stored.entity_id !== r.entity_id ||
        r.scorecard.entity_type !== r.entity_type ||
        r.scorecard.entity_id !== r.entity_id
      ) {
        return yield* new StoreError({
          message: `publish scorecards: ${r.scorecard.id} is not a stored draft of ${r.entity_type} ${r.entity_id}`
        })
      }
      drafts.set(r.scorecard.id, stored)
    }
    for (const r of records) {
      const stored = drafts.get(r.scorecard.id)!
      publishOne(store, {
        ...r,
        scorecard: { ...r.scorecard, answers: stored.answers, evidence: stored.evidence }
      })
    }
  })

/**
 * In memory, indexed by id and by entity, so that every operation costs in
 * proportion to what it touches, not to the size of the store. There is no
 * rollback (see Transaction), so `publishMany` checks every record first.
 */
const layer = (
  seed: {
    readonly scorecards?: ReadonlyArray<StoredScorecard>
    readonly history?: ReadonlyArray<HistoryEntryRecord & { readonly entity_id: string }>
  } = {}
) =>
  Layer.effect(
    ScorecardRepository,
    Effect.sync(() => {
      const store: Cards = { cards: new Map(), ofEntityIds: new Map(), hist: new Map() }
      for (const s of seed.scorecards ?? []) put(store, s)
      for (const { entity_id, ...entry } of seed.history ?? []) appendHistory(store, entity_id, entry)
      return ScorecardRepository.of({
        ...reads(store),
        ...writes(store),
        publishMany: (records) => publishMany(store, records)
      })
    })
  )

export const ScorecardRepositoryMemory = { layer }
