/**
 * An accepted import, ready to write: every record in the shape its port
 * stores, what each write will change, and the order of the publish acts.
 * Validation builds it against the store as it was read; `Importer.apply`
 * writes it in one transaction and reports what changed, so a plan is meant
 * to be applied right after it was made.
 */
import type { EntityType } from "../model/EntityType.ts"
import type { Question } from "../model/Question.ts"
import type { StoredEntity } from "../ports/EntityRepository.ts"
import type { HistoryEntryRecord, StoredScorecard } from "../ports/ScorecardRepository.ts"
import type { PublishRequest } from "../model/PublishRequest.ts"
import type { ImportIncident } from "./ImportFile.ts"

export type Change = "created" | "updated" | "unchanged"

export interface Counts {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
}

export interface QuestionCounts extends Counts {
  /** Stored questions of a replaced catalogue that the import no longer lists. */
  readonly removed: number
}

export interface PlannedEntity {
  readonly entity: StoredEntity
  readonly change: Change
  /**
   * Whether to upsert it. An unchanged record is still written when it carries
   * domain_weights, which the entity port stores but does not give back.
   */
  readonly write: boolean
}

export interface PlannedCatalogue {
  readonly entity_type: EntityType
  readonly questions: ReadonlyArray<Question>
  readonly counts: QuestionCounts
  readonly replace: boolean
  /** Ids of the stored questions the replaced catalogue no longer lists (`counts.removed` of them). */
  readonly removedIds: ReadonlyArray<string>
}

/**
 * When a draft is saved. The Publisher publishes an entity's latest draft, so
 * a draft that a replayed publication concerns is saved right before it, and
 * later drafts of the same entity only after its last publication.
 */
export type DraftStage = "early" | "late" | { readonly beforePublication: number }

export interface PlannedDraft {
  readonly scorecard: StoredScorecard
  /** unchanged: stored identical, or stored published or superseded (left as it is); not written. */
  readonly change: Change
  readonly stage: DraftStage
}

export interface PlannedHistory {
  readonly entity_type: EntityType
  readonly entity_id: string
  /** Only the entries not stored yet. */
  readonly entries: ReadonlyArray<HistoryEntryRecord>
  readonly counts: Counts
}

export interface PlannedPublication {
  readonly request: PublishRequest
  readonly entity_id: string
  readonly scorecard_version: number
  /** Epoch milliseconds: the clock the Publisher sees while replaying it. */
  readonly published_at: number
  /** Already published or superseded in the store: nothing to do. */
  readonly skip: boolean
}

export interface PlannedQuantum {
  readonly as_of: string
  readonly sample: boolean
  readonly rows: ReadonlyArray<unknown>
  readonly change: Change
  /** Slugs of the stored snapshot's rows that the new snapshot does not carry (it replaces the whole table). */
  readonly removedRows: ReadonlyArray<string>
}

/** A stored published scorecard that a publication of the import supersedes: no longer the entity's rating. */
export interface SupersededScorecard {
  readonly entity_type: EntityType
  readonly slug: string
  readonly scorecard_version: number
}

export interface ImportPlan {
  readonly sources: ReadonlyArray<string>
  readonly entities: ReadonlyArray<PlannedEntity>
  readonly catalogues: ReadonlyArray<PlannedCatalogue>
  readonly drafts: ReadonlyArray<PlannedDraft>
  readonly history: ReadonlyArray<PlannedHistory>
  readonly publications: ReadonlyArray<PlannedPublication>
  readonly incidents: ReadonlyArray<ImportIncident>
  readonly quantum: PlannedQuantum | undefined
  readonly superseded: ReadonlyArray<SupersededScorecard>
}

export const ImportPhases = [
  "validation",
  "entities",
  "questions",
  "scorecards",
  "history",
  "publications",
  "incidents",
  "quantum_snapshot"
] as const
export type ImportPhase = (typeof ImportPhases)[number]

export interface ImportProgressOptions {
  /**
   * Called as work is done; `done` reaches `total` when the import completes.
   * `validate` reports the phase "validation" (0 of 1, then 1 of 1); `apply`
   * counts one step per planned item (`planSteps`), and gives the phase's own
   * progress (`phaseSteps`) as `inPhase`.
   */
  readonly onProgress?:
    | ((done: number, total: number, phase: ImportPhase, inPhase?: PhaseProgress) => void)
    | undefined
  /** Called with the webhook deliveries `apply` queues, batch by batch (publications, announcements). */
  readonly onDeliveries?: ((queued: number) => void) | undefined
}

/** Steps done of one phase, of all that phase's steps (its stages may alternate with others'). */
export interface PhaseProgress {
  readonly done: number
  readonly total: number
}

/** The steps of each phase of `apply`: one per planned item of that kind. */
export const phaseSteps = (plan: ImportPlan): Readonly<Record<ImportPhase, number>> => ({
  validation: 0,
  entities: plan.entities.length,
  questions: plan.catalogues.length,
  scorecards: plan.drafts.length,
  history: plan.history.length,
  publications: plan.publications.length,
  incidents: plan.incidents.length,
  quantum_snapshot: plan.quantum === undefined ? 0 : 1
})

/** The number of steps `onProgress` counts to: one per planned item. */
export const planSteps = (plan: ImportPlan): number =>
  plan.entities.length +
  plan.catalogues.length +
  plan.drafts.length +
  plan.history.length +
  plan.publications.length +
  plan.incidents.length +
  (plan.quantum === undefined ? 0 : 1)

export interface ImportReport {
  readonly entities: Counts
  readonly questions: QuestionCounts
  readonly scorecards: Counts
  readonly history: Counts
  readonly publications: Counts
  readonly incidents: Counts
  readonly quantum_snapshot: Counts
}

export const zeroCounts: Counts = { created: 0, updated: 0, unchanged: 0 }

export const countChanges = (changes: ReadonlyArray<Change>): Counts => {
  let created = 0
  let updated = 0
  let unchanged = 0
  for (const c of changes) {
    if (c === "created") created++
    else if (c === "updated") updated++
    else unchanged++
  }
  return { created, updated, unchanged }
}

export const addCounts = (a: Counts, b: Counts): Counts => ({
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged
})

/** True when applying changed nothing at all (a repeated import). */
export const changedNothing = (report: ImportReport): boolean =>
  Object.values(report).every(
    (c: Counts & { removed?: number }) => c.created === 0 && c.updated === 0 && (c.removed ?? 0) === 0
  )

/** The report as a terminal prints it, one line per kind. */
export const formatImportReport = (report: ImportReport): string =>
  (Object.keys(report) as Array<keyof ImportReport>)
    .map((kind) => {
      const c: Counts & { removed?: number } = report[kind]
      const removed = c.removed === undefined ? "" : `, ${c.removed} removed`
      return `${kind.padEnd(17)} ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged${removed}`
    })
    .join("\n")
