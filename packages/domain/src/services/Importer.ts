/**
 * Use case: loading an import (docs/import-format.md). `validate` decodes
 * every file, reads what it needs of the store and runs every rule, returning
 * the plan or every error at once; `apply` writes the plan in ONE transaction,
 * so an import lands whole or not at all, and reports what changed. Both only
 * use the ports, so the in-memory stores and the Postgres ones behave alike.
 *
 * Publications are replayed through the Publisher, the one way a draft becomes
 * a rating, with the clock set to each publication's `published_at`: history
 * gets the times the file gives, and the scoring core computes every figure.
 * They go in runs in which no entity repeats (`Publisher.publishMany`), each
 * run after the drafts staged before any of its publications: a draft only
 * matters to publications of its own entity, and the previous publication of
 * that entity lies in an earlier run, so this is the same as saving each draft
 * right before its own publication. Drafts are saved in batches
 * (`ScorecardRepository.saveDrafts`), and the store is read in bulk.
 *
 * An import that makes an entity readable (its status, is_private or
 * is_active) tells subscribers as `ratings status` does
 * (docs/adr/0003-access-and-lists.md): the entity's first publication in the
 * import is a rating.new, and an entity without one gets one rating.new with
 * its latest published figures (`Publisher.announce`), in the import's transaction.
 */
import { Clock, Context, Duration, Effect, Layer, Option, Result, Schema } from "effect"
import { decodeSources } from "../import/ImportDecode.ts"
import { type ImportInvalid, importInvalid } from "../import/ImportIssue.ts"
import type { ImportSource } from "../import/ImportJsonText.ts"
import {
  addCounts,
  countChanges,
  type Counts,
  type ImportPhase,
  type ImportPlan,
  type ImportProgressOptions,
  type ImportReport,
  type PlannedDraft,
  planSteps,
  zeroCounts
} from "../import/ImportPlan.ts"
import {
  draftNeeds,
  emptyStoreView,
  idKey,
  indexEntities,
  type StoreView,
  storeNeeds
} from "../import/ImportStoreView.ts"
import { validateImport } from "../import/ImportValidation.ts"
import { isPubliclyReadable } from "../access/Projection.ts"
import type { EntityRecord } from "../model/Entity.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import { type EntityType, EntityTypes } from "../model/EntityType.ts"
import type { Question } from "../model/Question.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { QuantumSnapshotStore } from "../ports/QuantumSnapshotStore.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { repeatFreeRuns, ScorecardRepository, type StoredScorecard } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"
import { matchRows, readRows } from "../quantum/QuantumRows.ts"
import { DefaultSnapshotTtl, makeSnapshot } from "../quantum/QuantumSnapshot.ts"
import { Scoring } from "../scoring/Scoring.ts"
import { IncidentService, RatedProtocols } from "./IncidentService.ts"
import { entityKey, Publisher, type ShownEntity } from "./Publisher.ts"
import { AlertRuleRepositoryMemory } from "../ports/memory/AlertRuleRepositoryMemory.ts"
import { EntityRepositoryMemory } from "../ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../ports/memory/IncidentRepositoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../ports/memory/QuantumSnapshotStoreMemory.ts"
import { RubricRepositoryMemory } from "../ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../ports/memory/TransactionMemory.ts"
import { DeliveryOutboxMemory } from "../ports/memory/DeliveryOutboxMemory.ts"

/** A write the plan promised failed on the way (the store changed since validation); the transaction is rolled back. */
export class ImportApplyFailed extends Schema.TaggedError<ImportApplyFailed>()("ImportApplyFailed", {
  phase: Schema.String,
  message: Schema.String
}) {}

/** Entities are upserted in batches of this size, which is also the grain of progress reports. */
const EntityBatch = 1000
/** Drafts are saved in batches of this size (some 60 answers each). */
const DraftBatch = 1000
/** Stored entities whose scorecards are read in one call during validation. */
const ReadBatch = 5000
/** Reads of the store during validation that may run side by side. */
const ReadConcurrency = 8

/**
 * A clock that reads `millis` as the wall time, while monotonic time and sleep
 * stay the real ones, so timeouts and spans inside the replayed act still work.
 */
const wallClockAt = (base: Clock.Clock, millis: number): Clock.Clock => ({
  currentTimeMillisUnsafe: () => millis,
  currentTimeMillis: Effect.succeed(millis),
  currentTimeNanosUnsafe: () => BigInt(millis) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => BigInt(millis) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: base.monotonicTimeNanos,
  sleep: (duration) => base.sleep(duration)
})

/** Runs an effect as if the wall clock read `millis`. */
export const atInstant =
  (millis: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Clock.clockWith((clock) => Effect.provideService(effect, Clock.Clock, wallClockAt(clock, millis)))

const failed =
  (phase: ImportPhase) =>
  <E extends { readonly _tag: string; readonly message: string }>(error: E): StoreError | ImportApplyFailed =>
    error._tag === "StoreError"
      ? (error as unknown as StoreError)
      : new ImportApplyFailed({ phase, message: `${error._tag}: ${error.message}` })

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

export class Importer extends Context.Service<
  Importer,
  {
    /** Decodes and checks every source against the store; the plan, or every error found. */
    readonly validate: (
      sources: ReadonlyArray<ImportSource>,
      options?: ImportProgressOptions
    ) => Effect.Effect<ImportPlan, ImportInvalid | StoreError>
    /** Writes a plan in one transaction and reports what changed. */
    readonly apply: (
      plan: ImportPlan,
      options?: ImportProgressOptions
    ) => Effect.Effect<ImportReport, ImportApplyFailed | StoreError>
  }
>()("@ratings/domain/services/Importer") {
  static readonly layer = Layer.effect(
    Importer,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const rubric = yield* RubricRepository
      const scorecards = yield* ScorecardRepository
      const quantumStore = yield* QuantumSnapshotStore
      const tx = yield* Transaction
      const publisher = yield* Publisher
      const incidents = yield* IncidentService

      const readStore = Effect.fnUntraced(function* (decoded: ReturnType<typeof decodeSources>) {
        const stored = yield* Effect.forEach(EntityTypes, (t) => entities.all(t), {
          concurrency: ReadConcurrency
        })
        const questions = yield* Effect.forEach(EntityTypes, (t) => rubric.questions(t), {
          concurrency: ReadConcurrency
        })
        const latest = yield* quantumStore.latest
        const byType = <A>(xs: ReadonlyArray<ReadonlyArray<A>>) =>
          Object.fromEntries(EntityTypes.map((t, i) => [t, xs[i]!])) as {
            readonly [T in EntityType]: ReadonlyArray<A>
          }
        const base: StoreView = {
          ...emptyStoreView(),
          entities: byType<EntityRecord>(stored),
          catalogues: byType<Question>(questions),
          quantumAsOf: Option.isSome(latest) ? latest.value.as_of : undefined
        }
        const index = indexEntities(decoded.content, base)
        const needs = storeNeeds(decoded.content, index)
        // Bulk reads by type give rows keyed as the store spells ids; the view keys them as the import resolved them.
        const lists = new Map<string, Array<Scorecard>>(needs.scorecardsOf.map((e) => [e.entity_id, []]))
        const asResolved = new Map(needs.scorecardsOf.map((e) => [idKey(e.entity_id), e.entity_id]))
        const rows = yield* Effect.forEach(
          inBatches(byEntityType(needs.scorecardsOf, (e) => e.entity_id)),
          ([type, ids]) => scorecards.listForEntities(type, ids),
          { concurrency: ReadConcurrency }
        )
        for (const row of rows.flat())
          lists.get(asResolved.get(idKey(row.entity_id)) ?? row.entity_id)?.push(row)
        const history = yield* Effect.forEach(
          needs.historyOf,
          (e) => Effect.map(scorecards.history(e.entity_type, e.entity_id), (h) => [e.entity_id, h] as const),
          { concurrency: ReadConcurrency }
        )
        const scorecardMap: ReadonlyMap<string, ReadonlyArray<Scorecard>> = lists
        const more = draftNeeds(decoded.content, index, scorecardMap)
        const drafts = yield* Effect.forEach(
          inBatches(byEntityType(more.drafts, (d) => d.id)),
          ([type, ids]) => scorecards.findByIds(type, ids),
          { concurrency: ReadConcurrency }
        )
        const composites = yield* Effect.forEach(
          [...more.dependencies],
          ([type, ids]) =>
            Effect.map(scorecards.latestPublishedOf(type, ids), (m) =>
              [...m].map(([id, s]) => [`${type}:${idKey(id)}`, s.composite_score] as const)
            ),
          { concurrency: ReadConcurrency }
        )
        return {
          ...base,
          scorecards: scorecardMap,
          history: new Map(history),
          drafts: new Map(drafts.flat().map((d: StoredScorecard) => [d.id, d] as const)),
          publishedComposites: new Map(composites.flat())
        } satisfies StoreView
      })

      /**
       * The stored entities this import makes readable: readable as written, not
       * readable as stored when the transaction reads them. (A created entity
       * has no rating yet: its first publication is a rating.new anyway.)
       */
      const shownBy = Effect.fnUntraced(function* (plan: ImportPlan) {
        const candidates = plan.entities.filter(
          (e) => e.write && e.change !== "created" && isPubliclyReadable(e.entity.record)
        )
        const hidden = new Set<string>()
        for (const type of new Set(candidates.map((e) => e.entity.entity_type)))
          for (const ref of yield* entities.unreadable(type)) hidden.add(entityKey(type, ref.id))
        return candidates
          .filter((e) => hidden.has(entityKey(e.entity.entity_type, e.entity.record.id)))
          .map(
            (e): ShownEntity => ({
              entity_type: e.entity.entity_type,
              id: e.entity.record.id,
              slug: e.entity.record.slug
            })
          )
      })

      const validate = Effect.fn("Importer.validate")(function* (
        sources: ReadonlyArray<ImportSource>,
        options?: ImportProgressOptions
      ) {
        options?.onProgress?.(0, 1, "validation")
        const decoded = decodeSources(sources)
        const view = yield* readStore(decoded)
        const result = validateImport(
          decoded,
          view,
          sources.map((s) => s.name)
        )
        options?.onProgress?.(1, 1, "validation")
        if (Result.isFailure(result)) return yield* importInvalid(result.failure)
        return result.success
      })

      const apply = Effect.fn("Importer.apply")(function* (
        plan: ImportPlan,
        options?: ImportProgressOptions
      ) {
        const total = planSteps(plan)
        let done = 0
        const advance = (phase: ImportPhase, n: number) => {
          if (n <= 0) return
          done += n
          options?.onProgress?.(done, total, phase)
        }
        const step = (phase: ImportPhase, n = 1) => Effect.sync(() => advance(phase, n))
        const saveAll = Effect.fnUntraced(function* (drafts: ReadonlyArray<PlannedDraft>) {
          for (let i = 0; i < drafts.length; i += DraftBatch) {
            const batch = drafts.slice(i, i + DraftBatch)
            const writes = batch.filter((d) => d.change !== "unchanged").map((d) => d.scorecard)
            if (writes.length > 0) yield* scorecards.saveDrafts(writes)
            yield* step("scorecards", batch.length)
          }
        })
        const before = new Map<number, Array<PlannedDraft>>()
        for (const d of plan.drafts) {
          if (typeof d.stage !== "object") continue
          const list = before.get(d.stage.beforePublication)
          if (list === undefined) before.set(d.stage.beforePublication, [d])
          else list.push(d)
        }
        const live = plan.publications.flatMap((p, i) => (p.skip ? [] : [{ p, i }]))

        return yield* tx.run(
          Effect.gen(function* () {
            const shown = yield* shownBy(plan)
            // Shown entities not yet announced: by their first publication here, else at the end.
            const unseen = new Set(shown.map((e) => entityKey(e.entity_type, e.id)))
            for (let i = 0; i < plan.entities.length; i += EntityBatch) {
              const batch = plan.entities.slice(i, i + EntityBatch)
              const writes = batch.filter((e) => e.write).map((e) => e.entity)
              if (writes.length > 0) yield* entities.upsert(writes)
              yield* step("entities", batch.length)
            }
            for (const c of plan.catalogues) {
              if (c.replace) yield* rubric.replace(c.entity_type, c.questions)
              yield* step("questions")
            }
            yield* saveAll(plan.drafts.filter((d) => d.stage === "early"))
            for (const h of plan.history) {
              if (h.entries.length > 0) yield* scorecards.importHistory(h.entity_id, h.entries)
              yield* step("history")
            }
            yield* step("publications", plan.publications.length - live.length)
            for (const run of repeatFreeRuns(live, ({ p }) => idKey(p.entity_id))) {
              yield* saveAll(run.flatMap(({ i }) => before.get(i) ?? []))
              let reported = 0
              yield* publisher
                .publishMany(
                  run.map(({ p }) => ({ request: p.request, at: p.published_at })),
                  {
                    onProgress: (n) => {
                      advance("publications", n - reported)
                      reported = n
                    },
                    unseen
                  }
                )
                .pipe(Effect.mapError(failed("publications")))
              for (const { p } of run) unseen.delete(entityKey(p.request.entity_type, p.entity_id))
            }
            yield* publisher.announce(shown.filter((e) => unseen.has(entityKey(e.entity_type, e.id))))
            yield* saveAll(plan.drafts.filter((d) => d.stage === "late"))

            // After the publications, so that matching sees the protocols this import rates.
            let incidentCounts: Counts = zeroCounts
            for (const report of plan.incidents) {
              const ingested = yield* incidents.ingest(report).pipe(Effect.mapError(failed("incidents")))
              const outcome = ingested.outcome
              incidentCounts = addCounts(
                incidentCounts,
                countChanges([
                  outcome === "created" ? "created" : outcome === "duplicate" ? "unchanged" : "updated"
                ])
              )
              yield* step("incidents")
            }

            const q = plan.quantum
            if (q !== undefined) {
              if (q.change !== "unchanged") {
                const chains = yield* entities.all("chain")
                const read = readRows(q.rows)
                yield* quantumStore.save(
                  makeSnapshot(
                    {
                      rows: matchRows(
                        read.rows,
                        // As ChainDirectory.layerEntities: no private or inactive chain is matched.
                        chains
                          .filter((c) => !c.is_private && c.is_active)
                          .map((c) => ({ slug: c.slug, name: c.name, status: c.status }))
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
              yield* step("quantum_snapshot")
            }

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
              incidents: incidentCounts,
              quantum_snapshot: q === undefined ? zeroCounts : countChanges([q.change])
            } satisfies ImportReport
          })
        )
      })

      return Importer.of({ validate, apply })
    })
  )

  /** The importer over in-memory ports, with every port exposed so tests can arrange and inspect them. */
  static readonly layerTest = Importer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Publisher.layer, IncidentService.layer)),
    Layer.provideMerge(
      Layer.mergeAll(
        EntityRepositoryMemory.layer(),
        RubricRepositoryMemory.layer(),
        ScorecardRepositoryMemory.layer(),
        QuantumSnapshotStoreMemory.layer,
        TransactionMemory.layer,
        AlertRuleRepositoryMemory.layer,
        DeliveryOutboxMemory.layer,
        IdGeneratorMemory.layer,
        IncidentRepositoryMemory.layer,
        RatedProtocols.layerMemory,
        Scoring.layer
      )
    )
  )
}
