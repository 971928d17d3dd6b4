/**
 * `Importer.apply`: a validated plan written in one transaction, in order:
 * entities, catalogues, early drafts and history; the publications, replayed
 * through the Publisher in runs in which no entity repeats, each after the
 * drafts staged before it; the announcements of entities shown without a
 * publication, the late drafts, the incidents (after the publications, so that
 * matching sees the protocols this import rates) and the quantum snapshot.
 * Progress is reported per batch through `options.onProgress`.
 */
import { Duration, Effect, Schema } from "effect"
import { withCategoryKeys } from "../../access/ListFilter.ts"
import { isVisible } from "../../access/Readable.ts"
import {
  addCounts,
  countChanges,
  type Counts,
  type ImportPhase,
  type ImportPlan,
  type ImportProgressOptions,
  type ImportReport,
  type PlannedDraft,
  type PlannedEntity,
  phaseSteps,
  planSteps,
  zeroCounts
} from "../../import/ImportPlan.ts"
import { idKey } from "../../import/ImportStoreView.ts"
import { repeatFreeRuns } from "../../ports/ScorecardRepository.ts"
import type { SavedAnswers } from "../../ports/ScorecardRepository.ts"
import type { StoreError } from "../../ports/StoreError.ts"
import { matchRows, readRows } from "../../quantum/QuantumRows.ts"
import { DefaultSnapshotTtl, makeSnapshot } from "../../quantum/QuantumSnapshot.ts"
import { entityKey, type PublishManyOptions, type ShownEntity } from "../Publisher.ts"
import type { ImporterPorts } from "./ImporterPorts.ts"

/** A write the plan promised failed on the way (the store changed since validation); the transaction is rolled back. */
export class ImportApplyFailed extends Schema.TaggedError<ImportApplyFailed>()("ImportApplyFailed", {
  phase: Schema.String,
  message: Schema.String
}) {}

/** Entities are upserted in batches of this size, which is also the grain of progress reports. */
const EntityBatch = 1000
/** Drafts are saved in batches of this size (some 60 answers each). */
const DraftBatch = 1000
/**
 * Publications are given to `Publisher.publishMany` in calls of at most this
 * many: a call resolves and holds the entity record of each of its acts, so a
 * run of an entity each must not hold every entity of a large import at once.
 */
export const PublicationBatch = 5000

const failed =
  (phase: ImportPhase) =>
  <E extends { readonly _tag: string; readonly message: string }>(error: E): StoreError | ImportApplyFailed =>
    error._tag === "StoreError"
      ? (error as unknown as StoreError)
      : new ImportApplyFailed({ phase, message: `${error._tag}: ${error.message}` })

/** The progress of one apply: steps done of the plan's total, reported to `options.onProgress`. */
interface Progress {
  readonly advance: (phase: ImportPhase, n: number) => void
  readonly step: (phase: ImportPhase, n?: number) => Effect.Effect<void>
  /**
   * The drafts saved so far (written, or stored as they are), by lower-cased
   * scorecard id: the Publisher need not read their answers back. The planned
   * draft, not its scorecard: a plan may keep scorecards compactly
   * (ImportPlanRecords.ts), and holding them all as objects would undo that.
   */
  readonly saved: Map<string, PlannedDraft>
}

/**
 * The saved drafts' scorecards, holding their answers, read from each draft
 * only when asked: a decoded draft keeps its answers compactly
 * (ImportAnswerTable.ts), and holding them all as arrays would undo that.
 */
const savedAnswers = (saved: ReadonlyMap<string, PlannedDraft>): ReadonlyMap<string, SavedAnswers> => {
  type Answers = SavedAnswers
  function* entries(): MapIterator<[string, Answers]> {
    for (const [id, d] of saved) yield [id, d.scorecard]
  }
  function* values(): MapIterator<Answers> {
    for (const d of saved.values()) yield d.scorecard
  }
  const view: ReadonlyMap<string, Answers> = {
    get: (id) => saved.get(id)?.scorecard,
    has: (id) => saved.has(id),
    get size() {
      return saved.size
    },
    forEach: (f, self) => {
      for (const [id, d] of saved) f.call(self, d.scorecard, id, view)
    },
    keys: () => saved.keys(),
    values,
    entries,
    [Symbol.iterator]: entries
  }
  return view
}

/**
 * The plan's entities by type and slug, as they are stored once written (an
 * unchanged one is stored as planned; categories as stores key them, which
 * is the same record when they already are): the Publisher takes them from
 * here rather than reading a second copy of every record back. One whose id
 * the store would spell otherwise is left to the store.
 */
const plannedEntities = (plan: ImportPlan): NonNullable<PublishManyOptions["entities"]> => {
  // The planned entity, not its record: a plan may keep records compactly
  // (ImportRecordStore.ts), and holding them all as objects would undo that.
  const bySlug = new Map<string, PlannedEntity>()
  for (const planned of plan.entities) {
    const { entity_type, record } = planned.entity
    if (record.id === record.id.toLowerCase()) bySlug.set(`${entity_type}:${record.slug}`, planned)
  }
  return (type, slug) => {
    const planned = bySlug.get(`${type}:${slug}`)
    return planned === undefined ? undefined : withCategoryKeys(planned.entity.record)
  }
}

const progressOf = (plan: ImportPlan, options: ImportProgressOptions | undefined): Progress => {
  const total = planSteps(plan)
  const phaseTotals = phaseSteps(plan)
  const phaseDone = new Map<ImportPhase, number>()
  let done = 0
  const advance = (phase: ImportPhase, n: number) => {
    if (n <= 0) return
    done += n
    const inPhase = (phaseDone.get(phase) ?? 0) + n
    phaseDone.set(phase, inPhase)
    options?.onProgress?.(done, total, phase, { done: inPhase, total: phaseTotals[phase] })
  }
  return { advance, step: (phase, n = 1) => Effect.sync(() => advance(phase, n)), saved: new Map() }
}

/** Saves drafts in batches, writing only those that change. */
const saveAll = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  progress: Progress,
  drafts: ReadonlyArray<PlannedDraft>
) {
  for (let i = 0; i < drafts.length; i += DraftBatch) {
    const batch = drafts.slice(i, i + DraftBatch)
    // Each planned draft read once (it may be read afresh on each access).
    const scorecards = batch.map((d) => d.scorecard)
    const writes = scorecards.filter((_, k) => batch[k]!.change !== "unchanged")
    if (writes.length > 0) yield* ports.scorecards.saveDrafts(writes)
    for (const [k, d] of batch.entries()) progress.saved.set(scorecards[k]!.id.toLowerCase(), d)
    yield* progress.step("scorecards", batch.length)
  }
})

/**
 * The stored entities this import makes readable: readable as written, not
 * readable as stored when the transaction reads them. (A created entity
 * has no rating yet: its first publication is a rating.new anyway.) They are
 * announced as `ratings status` does (docs/adr/0003-access-and-lists.md).
 */
const shownBy = Effect.fnUntraced(function* (ports: ImporterPorts, plan: ImportPlan) {
  // Each planned entity read once (it may be read afresh on each access).
  const candidates: Array<ShownEntity> = []
  for (const e of plan.entities) {
    if (!e.write || e.change === "created") continue
    const { entity_type, record } = e.entity
    if (ports.projection.isPubliclyReadable(record))
      candidates.push({ entity_type, id: record.id, slug: record.slug })
  }
  const hidden = new Set<string>()
  for (const type of new Set(candidates.map((e) => e.entity_type)))
    for (const ref of yield* ports.entities.unreadable(type)) hidden.add(entityKey(type, ref.id))
  return candidates.filter((e) => hidden.has(entityKey(e.entity_type, e.id)))
})

/** Entities in batches, catalogues, the early drafts and the history entries. */
const writeBeforePublications = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  progress: Progress,
  plan: ImportPlan
) {
  for (let i = 0; i < plan.entities.length; i += EntityBatch) {
    const batch = plan.entities.slice(i, i + EntityBatch)
    const writes = batch.filter((e) => e.write).map((e) => e.entity)
    if (writes.length > 0) yield* ports.entities.upsert(writes)
    yield* progress.step("entities", batch.length)
  }
  for (const c of plan.catalogues) {
    if (c.replace) yield* ports.rubric.replace(c.entity_type, c.questions)
    yield* progress.step("questions")
  }
  yield* saveAll(
    ports,
    progress,
    plan.drafts.filter((d) => d.stage === "early")
  )
  for (const h of plan.history) {
    if (h.entries.length > 0) yield* ports.scorecards.importHistory(h.entity_id, h.entries)
    yield* progress.step("history")
  }
})

/**
 * The publications through `Publisher.publishMany`, in runs in which no
 * entity repeats (split in calls of `PublicationBatch`), each after the
 * drafts staged before any of its publications. A draft only matters to
 * publications of its own entity, whose previous publication lies in an
 * earlier run, so this is the same as saving
 * each draft right before its own publication. With the clock at each
 * `published_at`, history gets the file's times and the scoring core computes
 * every figure. An entity of `unseen` is announced by its first publication
 * here and removed from the set; those left are announced after.
 */
const replayPublications = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  progress: Progress,
  plan: ImportPlan,
  unseen: Set<string>,
  options: ImportProgressOptions | undefined
) {
  const before = new Map<number, Array<PlannedDraft>>()
  for (const d of plan.drafts) {
    if (typeof d.stage !== "object") continue
    const list = before.get(d.stage.beforePublication)
    if (list === undefined) before.set(d.stage.beforePublication, [d])
    else list.push(d)
  }
  const entities = plannedEntities(plan)
  const live = plan.publications.flatMap((p, i) => (p.skip ? [] : [{ p, i }]))
  yield* progress.step("publications", plan.publications.length - live.length)
  const runs = repeatFreeRuns(live, ({ p }) => idKey(p.entity_id)).flatMap((whole) =>
    Array.from({ length: Math.ceil(whole.length / PublicationBatch) }, (_, k) =>
      whole.slice(k * PublicationBatch, (k + 1) * PublicationBatch)
    )
  )
  for (const run of runs) {
    yield* saveAll(
      ports,
      progress,
      run.flatMap(({ i }) => before.get(i) ?? [])
    )
    let reported = 0
    const result = yield* ports.publisher
      .publishMany(
        run.map(({ p }) => ({ request: p.request, at: p.published_at })),
        {
          onProgress: (n) => {
            progress.advance("publications", n - reported)
            reported = n
          },
          unseen,
          entities,
          savedAnswers: savedAnswers(progress.saved)
        }
      )
      .pipe(Effect.mapError(failed("publications")))
    options?.onDeliveries?.(result.deliveries)
    for (const { p } of run) unseen.delete(entityKey(p.request.entity_type, p.entity_id))
  }
})

/** The plan's incident reports, ingested in order; what they changed. */
const ingestIncidents = Effect.fnUntraced(function* (
  ports: ImporterPorts,
  progress: Progress,
  plan: ImportPlan
) {
  let incidentCounts: Counts = zeroCounts
  for (const { received_at, ...report } of plan.incidents) {
    const options = received_at === undefined ? undefined : { receivedAt: Date.parse(received_at) }
    const ingested = yield* ports.incidents.ingest(report, options).pipe(Effect.mapError(failed("incidents")))
    const outcome = ingested.outcome
    incidentCounts = addCounts(
      incidentCounts,
      countChanges([outcome === "created" ? "created" : outcome === "duplicate" ? "unchanged" : "updated"])
    )
    yield* progress.step("incidents")
  }
  return incidentCounts
})

/** The plan's quantum snapshot, matched against the stored chains, when it changes. */
const saveQuantum = Effect.fnUntraced(function* (ports: ImporterPorts, progress: Progress, plan: ImportPlan) {
  const q = plan.quantum
  if (q === undefined) return
  if (q.change !== "unchanged") {
    const chains = yield* ports.entities.all("chain")
    const read = readRows(q.rows)
    yield* ports.quantumStore.save(
      makeSnapshot(
        {
          rows: matchRows(
            read.rows,
            // As ChainDirectory.layerEntities: no private or inactive chain is matched.
            chains.filter(isVisible).map((c) => ({ slug: c.slug, name: c.name, status: c.status }))
          ),
          rows_skipped: read.rows_skipped
        },
        {
          now: Date.parse(q.as_of),
          ttlMillis: Duration.toMillis(DefaultSnapshotTtl),
          sample: q.sample
        }
      )
    )
  }
  yield* progress.step("quantum_snapshot")
})

/** What the plan changed, by part. */
const reportOf = (plan: ImportPlan, incidents: Counts): ImportReport => {
  const q = plan.quantum
  const questionCounts = plan.catalogues.reduce(
    (acc, c) => ({ ...addCounts(acc, c.counts), removed: acc.removed + c.counts.removed }),
    { ...zeroCounts, removed: 0 }
  )
  return {
    entities: countChanges(plan.entities.map((e) => e.change)),
    questions: questionCounts,
    scorecards: countChanges(plan.drafts.map((d) => d.change)),
    history: plan.history.reduce((acc, h) => addCounts(acc, h.counts), zeroCounts),
    publications: countChanges(plan.publications.map((p) => (p.skip ? "unchanged" : "created"))),
    incidents,
    quantum_snapshot: q === undefined ? zeroCounts : countChanges([q.change])
  }
}

/** `Importer.apply`. */
export const applyPlan = (ports: ImporterPorts) =>
  Effect.fn("Importer.apply")(function* (plan: ImportPlan, options?: ImportProgressOptions) {
    const progress = progressOf(plan, options)
    return yield* ports.tx.run(
      Effect.gen(function* () {
        const shown = yield* shownBy(ports, plan)
        // Shown entities not yet announced: by their first publication here, else at the end.
        const unseen = new Set(shown.map((e) => entityKey(e.entity_type, e.id)))
        yield* writeBeforePublications(ports, progress, plan)
        yield* replayPublications(ports, progress, plan, unseen, options)
        const announced = yield* ports.publisher.announce(
          shown.filter((e) => unseen.has(entityKey(e.entity_type, e.id)))
        )
        options?.onDeliveries?.(announced)
        yield* saveAll(
          ports,
          progress,
          plan.drafts.filter((d) => d.stage === "late")
        )
        const incidents = yield* ingestIncidents(ports, progress, plan)
        yield* saveQuantum(ports, progress, plan)
        return reportOf(plan, incidents)
      })
    )
  })
