/**
 * Planned entities and drafts whose records stay as bytes in a record store
 * (ImportRecordStore.ts) until they are written, instead of as objects for
 * the whole of `Importer.apply`. The plan's `entity` of an entity and
 * `scorecard` of a draft are own, enumerable properties read afresh on each
 * access, so every reader sees the values the plain objects held; a draft's answers
 * stay in the answer table (ImportAnswerTable.ts).
 */
import type { StoredEntity } from "../ports/EntityRepository.ts"
import type { StoredScorecard } from "../ports/ScorecardRepository.ts"
import { answerSliceOf, type AnswerSlice, withLazyAnswers } from "./ImportAnswerTable.ts"
import type { ImportEntity } from "./ImportFile.ts"
import type { Located } from "./ImportDecode.ts"
import type { ImportScorecard } from "./ImportFile.ts"
import type { Change, DraftStage, PlannedDraft, PlannedEntity } from "./ImportPlan.ts"
import type { RecordRef, RecordStore } from "./ImportRecordStore.ts"
import type { ImportedDraft } from "./ImportReplay.ts"

/** An entity as the entity port stores it. */
export const storedEntity = ({ entity_type, record, domain_weights }: ImportEntity): StoredEntity => ({
  entity_type,
  record,
  ...(domain_weights === undefined ? {} : { domain_weights })
})

/** Where a lazily read planned item keeps its record (not enumerable: not part of its value). */
const Ref: unique symbol = Symbol("@ratings/domain/import/PlannedRecordRef")
/** Where a lazily read planned draft keeps its answers' slice. */
const Answers: unique symbol = Symbol("@ratings/domain/import/PlannedAnswers")

// One getter for every planned entity, and one for every draft, so that they share hidden classes.
function readEntity(this: { readonly [Ref]: RecordRef }): StoredEntity {
  const ref = this[Ref]
  return storedEntity(ref.store.read(ref) as ImportEntity)
}

function readDraft(this: { readonly [Ref]: RecordRef; readonly [Answers]: AnswerSlice }): StoredScorecard {
  const ref = this[Ref]
  return withLazyAnswers(ref.store.read(ref) as Omit<StoredScorecard, "answers">, this[Answers])
}

const lazy = <T extends object>(fields: T, key: string, get: () => unknown, ref: RecordRef): T => {
  Object.defineProperty(fields, Ref, { value: ref, enumerable: false })
  Object.defineProperty(fields, key, { get, enumerable: true, configurable: true })
  return fields
}

/**
 * The own fields of lazily read planned items, set one by one on an empty
 * object: an empty literal has room in itself for four fields, where a literal
 * of two has room for just those and the hidden fields `lazy` adds would need
 * an allocation of their own.
 */
const entityFields = (change: Change, write: boolean): { change: Change; write: boolean } => {
  const fields = {} as { change: Change; write: boolean }
  fields.change = change
  fields.write = write
  return fields
}

const draftFields = (change: Change, stage: DraftStage): { change: Change; stage: DraftStage } => {
  const fields = {} as { change: Change; stage: DraftStage }
  fields.change = change
  fields.stage = stage
  return fields
}

/** A planned entity whose record, decoded into `ref` (ImportDecode.ts), is read on each access of `entity`. */
export const lazyPlannedEntity = (ref: RecordRef, change: Change, write: boolean): PlannedEntity =>
  lazy(entityFields(change, write), "entity", readEntity, ref) as unknown as PlannedEntity

/** A draft's fields without its answers, copied key by key: reading `answers` would make every answer as an object. */
const fieldsOf = (draft: StoredScorecard): Record<string, unknown> => {
  const fields: Record<string, unknown> = {}
  for (const k of Object.keys(draft)) if (k !== "answers") fields[k] = draft[k as keyof StoredScorecard]
  return fields
}

/**
 * A planned draft: its fields kept in `store` and its answers in their table
 * when it holds a slice of one and JSON gives its fields back exactly; else
 * the draft as it is.
 */
export const plannedDraft = (
  store: RecordStore,
  draft: StoredScorecard,
  change: Change,
  stage: DraftStage
): PlannedDraft => {
  const slice = answerSliceOf(draft)
  if (slice === undefined) return { scorecard: draft, change, stage }
  const ref = store.add(fieldsOf(draft))
  if (ref === undefined) return { scorecard: draft, change, stage }
  const planned = draftFields(change, stage)
  Object.defineProperty(planned, Answers, { value: slice, enumerable: false })
  return lazy(planned, "scorecard", readDraft, ref) as unknown as PlannedDraft
}

/** A draft validation accepted, with its change: what it plans. */
export interface KeptDraft extends ImportedDraft {
  readonly change: Change
}

/**
 * A kept draft whose fields are in a record store and its answers in their
 * table: every field in the object itself, and `draft` and `id` read from the
 * record on access (validation reads neither while it holds the drafts).
 */
class StoredKeptDraft implements KeptDraft {
  readonly item: Located<ImportScorecard>
  readonly change: Change
  readonly entity_id: string
  readonly scorecard_version: number
  stage: DraftStage | undefined = undefined
  readonly [Ref]: RecordRef
  readonly [Answers]: AnswerSlice
  constructor(
    item: Located<ImportScorecard>,
    change: Change,
    entity_id: string,
    scorecard_version: number,
    ref: RecordRef,
    slice: AnswerSlice
  ) {
    this.item = item
    this.change = change
    this.entity_id = entity_id
    this.scorecard_version = scorecard_version
    this[Ref] = ref
    this[Answers] = slice
  }
  get draft(): StoredScorecard {
    return readDraft.call(this)
  }
  get id(): string {
    const ref = this[Ref]
    return (ref.store.read(ref) as StoredScorecard).id
  }
}

/**
 * A checked draft whose fields are kept in `store` as soon as it is made,
 * and its answers in their table, as `plannedDraft` keeps it; `draft` is
 * read afresh on each access. Validation holds every draft of an import
 * until the replay has staged them all; as objects they were the largest
 * part of its heap.
 */
export const keptDraft = (
  store: RecordStore,
  item: Located<ImportScorecard>,
  draft: StoredScorecard,
  change: Change
): KeptDraft => {
  const { id, entity_id, scorecard_version } = draft
  const slice = answerSliceOf(draft)
  const ref = slice === undefined ? undefined : store.add(fieldsOf(draft))
  if (ref === undefined || slice === undefined)
    return { item, change, id, entity_id, scorecard_version, stage: undefined, draft }
  return new StoredKeptDraft(item, change, entity_id, scorecard_version, ref, slice)
}

/** The planned draft of a kept one, at `stage`: the same record, not stored again. */
export const plannedOfKept = (store: RecordStore, kept: KeptDraft, stage: DraftStage): PlannedDraft => {
  const held = kept as Partial<{ readonly [Ref]: RecordRef; readonly [Answers]: AnswerSlice }>
  const ref = held[Ref]
  if (ref === undefined) return plannedDraft(store, kept.draft, kept.change, stage)
  const planned = draftFields(kept.change, stage)
  Object.defineProperty(planned, Answers, { value: held[Answers], enumerable: false })
  return lazy(planned, "scorecard", readDraft, ref) as unknown as PlannedDraft
}
