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
      const cards = new Map<string, StoredScorecard>()
      const ofEntityIds = new Map<string, Set<string>>()
      const hist = new Map<string, Array<HistoryEntryRecord>>()
      const entityKey = (type: EntityType, entityId: string) => `${type}:${entityId}`

      const put = (s: StoredScorecard) => {
        const before = cards.get(s.id)
        if (before !== undefined)
          ofEntityIds.get(entityKey(before.entity_type, before.entity_id))?.delete(s.id)
        cards.set(s.id, s)
        const key = entityKey(s.entity_type, s.entity_id)
        const ids = ofEntityIds.get(key)
        if (ids === undefined) ofEntityIds.set(key, new Set([s.id]))
        else ids.add(s.id)
      }
      const ofEntity = (type: EntityType, entityId: string): Array<StoredScorecard> => {
        const out: Array<StoredScorecard> = []
        for (const id of ofEntityIds.get(entityKey(type, entityId)) ?? []) out.push(cards.get(id)!)
        return out.sort(byVersionDesc)
      }
      const latestWith = (type: EntityType, entityId: string, status: StoredScorecard["status"]) =>
        ofEntity(type, entityId).find((s) => s.status === status)
      const appendHistory = (entityId: string, entry: HistoryEntryRecord) => {
        const list = hist.get(entityId)
        if (list === undefined) hist.set(entityId, [entry])
        else list.push(entry)
      }
      const publishOne = (r: PublishRecord) => {
        for (const s of ofEntity(r.entity_type, r.entity_id))
          if (s.status === "published") put({ ...s, status: "superseded" })
        put(r.scorecard)
        appendHistory(r.entity_id, r.history)
      }

      for (const s of seed.scorecards ?? []) put(s)
      for (const { entity_id, ...entry } of seed.history ?? []) appendHistory(entity_id, entry)

      return ScorecardRepository.of({
        listForEntity: (type, entityId) => Effect.sync(() => ofEntity(type, entityId).map(toListFields)),
        listForEntities: (type, entityIds) =>
          Effect.sync(() => [...new Set(entityIds)].flatMap((id) => ofEntity(type, id).map(toListFields))),
        findById: (type, id) =>
          Effect.sync(() => {
            const s = cards.get(id)
            return s !== undefined && s.entity_type === type ? Option.some(s) : Option.none()
          }),
        findByIds: (type, ids) =>
          Effect.sync(() =>
            [...new Set(ids)].flatMap((id) => {
              const s = cards.get(id)
              return s !== undefined && s.entity_type === type ? [s] : []
            })
          ),
        latest: (type, entityId, status) =>
          Effect.sync(() => Option.fromNullishOr(latestWith(type, entityId, status))),
        latestOf: (type, entityIds, status) =>
          Effect.sync(() =>
            [...new Set(entityIds)].flatMap((id) => {
              const s = latestWith(type, id, status)
              return s === undefined ? [] : [s]
            })
          ),
        latestPublishedOf: (type, entityIds) =>
          Effect.sync(() => {
            const out = new Map<string, Scorecard>()
            for (const id of new Set(entityIds)) {
              const s = latestWith(type, id, "published")
              if (s !== undefined) out.set(s.entity_id, toListFields(s))
            }
            return out
          }),
        history: (_type, entityId) => Effect.sync(() => [...(hist.get(entityId) ?? [])].sort(byVersionDesc)),
        saveDraft: (s) => Effect.sync(() => put(s)),
        saveDrafts: (scorecards) =>
          Effect.sync(() => {
            for (const s of scorecards) put(s)
          }),
        importHistory: (entityId, entries) =>
          Effect.sync(() => {
            const have = new Set((hist.get(entityId) ?? []).map((e) => e.scorecard_version))
            for (const e of entries) {
              if (have.has(e.scorecard_version)) continue
              have.add(e.scorecard_version)
              appendHistory(entityId, e)
            }
          }),
        publish: (r) => Effect.sync(() => publishOne(r)),
        publishMany: (records) =>
          Effect.gen(function* () {
            const drafts = new Map<string, StoredScorecard>()
            for (const r of records) {
              const stored = drafts.has(r.scorecard.id) ? undefined : cards.get(r.scorecard.id)
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
              publishOne({
                ...r,
                scorecard: { ...r.scorecard, answers: stored.answers, evidence: stored.evidence }
              })
            }
          })
      })
    })
  )

export const ScorecardRepositoryMemory = { layer }
