/**
 * Port: scorecards of every type, their versions, answers, evidence and the
 * rating history. Drafts come in by import; `publish` is the one way a draft
 * becomes the published rating (spec part 1 rule 4: never automatic).
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { HistoryEntry, EvidenceItem } from "../model/Responses.ts"
import type { Scorecard, ScorecardDetail } from "../model/Scorecard.ts"
import type { StoreError } from "./StoreError.ts"

export type HistoryEntryRecord = typeof HistoryEntry.Type

/** A dependency as stored on a draft; its score is looked up when the draft is published. */
export interface DependencyRef {
  readonly entity_type: EntityType
  readonly slug: string
  readonly exposure: number
}

export interface EvidenceRecord {
  readonly question_id: string
  readonly evidence: ReadonlyArray<typeof EvidenceItem.Type>
  readonly reasoning: string | null
}

export interface StoredScorecard extends ScorecardDetail {
  readonly dependencies: ReadonlyArray<DependencyRef>
  readonly evidence: ReadonlyArray<EvidenceRecord>
}

/** What publishing writes: the computed figures replace whatever the draft carried. */
export interface PublishRecord {
  readonly entity_type: EntityType
  readonly entity_id: string
  readonly scorecard: StoredScorecard
  readonly history: HistoryEntryRecord
}

export const toListFields = (s: ScorecardDetail): Scorecard => ({
  id: s.id,
  entity_id: s.entity_id,
  entity_type: s.entity_type,
  status: s.status,
  scorecard_version: s.scorecard_version,
  grade: s.grade,
  letter_grade: s.letter_grade,
  composite_score: s.composite_score,
  intrinsic_composite_score: s.intrinsic_composite_score,
  intrinsic_letter_grade: s.intrinsic_letter_grade,
  largest_drag_hint: s.largest_drag_hint,
  has_unrated_dependencies: s.has_unrated_dependencies,
  domain_scores: s.domain_scores,
  mvc_gates: s.mvc_gates,
  last_rated_at: s.last_rated_at,
  scorecard_published_at: s.scorecard_published_at
})

export class ScorecardRepository extends Context.Service<
  ScorecardRepository,
  {
    /** Every version of an entity's scorecard (drafts included), list fields only, newest first. */
    readonly listForEntity: (
      type: EntityType,
      entityId: string
    ) => Effect.Effect<ReadonlyArray<Scorecard>, StoreError>
    readonly findById: (
      type: EntityType,
      scorecardId: string
    ) => Effect.Effect<Option.Option<StoredScorecard>, StoreError>
    /** The highest-version scorecard of an entity with this status. */
    readonly latest: (
      type: EntityType,
      entityId: string,
      status: "published" | "draft"
    ) => Effect.Effect<Option.Option<StoredScorecard>, StoreError>
    /** The latest published scorecard of each of these entities (absent ones are unrated). */
    readonly latestPublishedOf: (
      type: EntityType,
      entityIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, Scorecard>, StoreError>
    /** Rating history, newest first. */
    readonly history: (
      type: EntityType,
      entityId: string
    ) => Effect.Effect<ReadonlyArray<HistoryEntryRecord>, StoreError>
    /** Inserts or replaces a draft (keyed by its id); importing the same draft twice changes nothing. */
    readonly saveDraft: (scorecard: StoredScorecard) => Effect.Effect<void, StoreError>
    /**
     * Imports rating history entries (for example ratings that predate the service),
     * keyed by entity and scorecard_version: an entry already present is left as is.
     */
    readonly importHistory: (
      entityId: string,
      entries: ReadonlyArray<HistoryEntryRecord>
    ) => Effect.Effect<void, StoreError>
    /**
     * Marks the draft published with the computed figures, the previous published
     * version superseded, and appends the history entry.
     */
    readonly publish: (record: PublishRecord) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/ScorecardRepository") {
  static readonly layerMemory = (
    seed: {
      readonly scorecards?: ReadonlyArray<StoredScorecard>
      readonly history?: ReadonlyArray<HistoryEntryRecord & { readonly entity_id: string }>
    } = {}
  ) =>
    Layer.effect(
      ScorecardRepository,
      Effect.gen(function* () {
        const cards = yield* Ref.make(
          new Map<string, StoredScorecard>((seed.scorecards ?? []).map((s) => [s.id, s]))
        )
        const hist = yield* Ref.make<ReadonlyArray<HistoryEntryRecord & { readonly entity_id: string }>>(
          seed.history ?? []
        )
        const ofEntity = (type: EntityType, entityId: string) =>
          Effect.map(Ref.get(cards), (m) =>
            [...m.values()]
              .filter((s) => s.entity_type === type && s.entity_id === entityId)
              .sort((a, b) => b.scorecard_version - a.scorecard_version)
          )
        return ScorecardRepository.of({
          listForEntity: (type, entityId) =>
            Effect.map(ofEntity(type, entityId), (xs) => xs.map(toListFields)),
          findById: (type, id) =>
            Effect.map(Ref.get(cards), (m) => {
              const s = m.get(id)
              return s !== undefined && s.entity_type === type ? Option.some(s) : Option.none()
            }),
          latest: (type, entityId, status) =>
            Effect.map(ofEntity(type, entityId), (xs) =>
              Option.fromNullishOr(xs.find((s) => s.status === status))
            ),
          latestPublishedOf: (type, entityIds) =>
            Effect.map(Ref.get(cards), (m) => {
              const wanted = new Set(entityIds)
              const out = new Map<string, Scorecard>()
              for (const s of m.values()) {
                if (s.entity_type !== type || s.status !== "published" || !wanted.has(s.entity_id)) continue
                const prev = out.get(s.entity_id)
                if (prev === undefined || s.scorecard_version > prev.scorecard_version)
                  out.set(s.entity_id, toListFields(s))
              }
              return out
            }),
          history: (_type, entityId) =>
            Effect.map(Ref.get(hist), (h) =>
              h
                .filter((e) => e.entity_id === entityId)
                .sort((a, b) => b.scorecard_version - a.scorecard_version)
                .map(({ entity_id: _, ...entry }) => entry)
            ),
          saveDraft: (s) => Ref.update(cards, (m) => new Map(m).set(s.id, s)),
          importHistory: (entityId, entries) =>
            Ref.update(hist, (h) => {
              const have = new Set(h.filter((e) => e.entity_id === entityId).map((e) => e.scorecard_version))
              return [
                ...h,
                ...entries
                  .filter((e) => !have.has(e.scorecard_version))
                  .map((e) => ({ ...e, entity_id: entityId }))
              ]
            }),
          publish: (r) =>
            Effect.gen(function* () {
              yield* Ref.update(cards, (m) => {
                const next = new Map(m)
                for (const s of m.values()) {
                  if (
                    s.entity_type === r.entity_type &&
                    s.entity_id === r.entity_id &&
                    s.status === "published"
                  ) {
                    next.set(s.id, { ...s, status: "superseded" })
                  }
                }
                next.set(r.scorecard.id, r.scorecard)
                return next
              })
              yield* Ref.update(hist, (h) => [...h, { ...r.history, entity_id: r.entity_id }])
            })
        })
      })
    )
}
