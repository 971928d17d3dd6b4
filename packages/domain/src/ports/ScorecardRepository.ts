/**
 * Port: scorecards of every type, their versions, answers, evidence and the
 * rating history. Drafts come in by import; `publish` is the one way a draft
 * becomes the published rating (spec part 1 rule 4: never automatic).
 *
 * The bulk methods (`saveDrafts`, `publishMany` and the reads over many
 * entities) exist for imports of 100,000 entities: each behaves exactly as
 * the one-at-a-time method applied in order, in a few statements per batch.
 */
import { Context, type Effect, type Option } from "effect"
import type { EntityRecord } from "../model/Entity.ts"
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

/**
 * Answers a caller saved, held by the object they belong to: its `answers`
 * are read only when needed, since a draft an import decoded makes them
 * afresh on each read and a store may keep them compact instead.
 */
export interface SavedAnswers {
  readonly answers: StoredScorecard["answers"]
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

/**
 * Splits items into consecutive runs in which no key repeats: acts on distinct
 * entities can be applied together without one seeing another's effect, and
 * the runs keep the order of the whole.
 */
export const repeatFreeRuns = <A>(items: ReadonlyArray<A>, keyOf: (a: A) => string): Array<Array<A>> => {
  const runs: Array<Array<A>> = []
  let run: Array<A> = []
  let seen = new Set<string>()
  for (const item of items) {
    const key = keyOf(item)
    if (seen.has(key)) {
      runs.push(run)
      run = []
      seen = new Set()
    }
    seen.add(key)
    run.push(item)
  }
  if (run.length > 0) runs.push(run)
  return runs
}

/** An entity (none when no entity of the type has that id or slug) with its scorecards. */
export interface EntityWithScorecards {
  readonly entity: Option.Option<EntityRecord>
  /** `listForEntity` of the entity found; empty when there is none. */
  readonly scorecards: ReadonlyArray<Scorecard>
  /**
   * The drag hints among them that name an entity (`dragHintTarget`) the
   * public can read now (`isPubliclyReadable`: published, active, not private).
   */
  readonly readableHints: ReadonlySet<string>
}

export class ScorecardRepository extends Context.Service<
  ScorecardRepository,
  {
    /** Every version of an entity's scorecard (drafts included), list fields only, newest first. */
    readonly listForEntity: (
      type: EntityType,
      entityId: string
    ) => Effect.Effect<ReadonlyArray<Scorecard>, StoreError>
    /**
     * Optional: the entity of a type by id (`by` "id") or slug, its
     * `listForEntity`, and which of their drag hints name an entity the
     * public can read now, read together: what a scorecard list needs, in one
     * round trip on Postgres. A store without it is read in turn (the entity,
     * its scorecards, each hint's entity).
     */
    readonly entityWithScorecards?: (
      type: EntityType,
      by: "id" | "slug",
      identifier: string
    ) => Effect.Effect<EntityWithScorecards, StoreError>
    /** `listForEntity` of many entities at once: every version of each, newest first per entity. */
    readonly listForEntities: (
      type: EntityType,
      entityIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<Scorecard>, StoreError>
    readonly findById: (
      type: EntityType,
      scorecardId: string
    ) => Effect.Effect<Option.Option<StoredScorecard>, StoreError>
    /** `findById` of many scorecards at once: those found, in no particular order. */
    readonly findByIds: (
      type: EntityType,
      scorecardIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<StoredScorecard>, StoreError>
    /** The highest-version scorecard of an entity with this status. */
    readonly latest: (
      type: EntityType,
      entityId: string,
      status: "published" | "draft"
    ) => Effect.Effect<Option.Option<StoredScorecard>, StoreError>
    /**
     * `latest` of many entities at once: one scorecard per entity that has one,
     * in no particular order. `savedAnswers` holds the answers of scorecards the
     * caller saved in this transaction, by lower-cased scorecard id: a store
     * may take a found scorecard's answers from there instead of reading them
     * back (they are what it stored); its row and evidence are still read.
     * Answers an import holds compactly (ImportAnswerTable.ts) may stay so.
     */
    readonly latestOf: (
      type: EntityType,
      entityIds: ReadonlyArray<string>,
      status: "published" | "draft",
      savedAnswers?: ReadonlyMap<string, SavedAnswers>
    ) => Effect.Effect<ReadonlyArray<StoredScorecard>, StoreError>
    /** The latest published scorecard of each of these entities (absent ones are unrated). */
    readonly latestPublishedOf: (
      type: EntityType,
      entityIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, Scorecard>, StoreError>
    /**
     * Optional: the entity of a type by slug and its `history`, read together
     * (one round trip on Postgres); a store without it is read in turn.
     */
    readonly entityWithHistory?: (
      type: EntityType,
      slug: string
    ) => Effect.Effect<
      { readonly entity: Option.Option<EntityRecord>; readonly history: ReadonlyArray<HistoryEntryRecord> },
      StoreError
    >
    /**
     * Optional: the entity of a type by slug and its `latest` published
     * scorecard, read together (one round trip on Postgres); a store without
     * it is read in turn.
     */
    readonly entityWithLatestPublished?: (
      type: EntityType,
      slug: string
    ) => Effect.Effect<
      { readonly entity: Option.Option<EntityRecord>; readonly latest: Option.Option<StoredScorecard> },
      StoreError
    >
    /** Rating history, newest first. */
    readonly history: (
      type: EntityType,
      entityId: string
    ) => Effect.Effect<ReadonlyArray<HistoryEntryRecord>, StoreError>
    /** Inserts or replaces a draft (keyed by its id); importing the same draft twice changes nothing. */
    readonly saveDraft: (scorecard: StoredScorecard) => Effect.Effect<void, StoreError>
    /**
     * `saveDraft` of each scorecard in order (the last of an id wins), all or
     * none: saving the same drafts twice changes nothing.
     */
    readonly saveDrafts: (scorecards: ReadonlyArray<StoredScorecard>) => Effect.Effect<void, StoreError>
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
    /**
     * `publish` of each record in order, all or none. Each record publishes a
     * stored draft of its entity (a StoreError otherwise) whose answers and
     * evidence it leaves as stored: only the scorecard's own fields change.
     */
    readonly publishMany: (records: ReadonlyArray<PublishRecord>) => Effect.Effect<void, StoreError>
  }
>()("@ratings/domain/ports/ScorecardRepository") {}
