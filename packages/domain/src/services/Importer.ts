/**
 * Use case: loading an import (docs/import-format.md). `validate` decodes
 * every file, reads what it needs of the store and runs every rule, returning
 * the plan or every error at once; `apply` writes the plan in ONE transaction,
 * so an import lands whole or not at all, and reports what changed. Both only
 * use the ports, so the in-memory stores and the Postgres ones behave alike.
 * Publications are replayed through the Publisher, the one way a draft
 * becomes a rating, at each publication's `published_at`. Validation's reads
 * of the store (importer/ReadStore.ts) and the steps of `apply`
 * (importer/ApplyPlan.ts) live beside it.
 */
import { Clock, Context, Data, Effect, Layer, Result } from "effect"
import { Projection } from "../access/Projection.ts"
import { type Decoded, decodeSources } from "../import/ImportDecode.ts"
import { type ImportInvalid, importInvalid } from "../import/ImportIssue.ts"
import type { ImportSource } from "../import/ImportJsonText.ts"
import type { CatalogueMode } from "../import/ImportCatalogue.ts"
import type { ImportPlan, ImportProgressOptions, ImportReport } from "../import/ImportPlan.ts"
import type { ChunkSpill } from "../import/ImportSpill.ts"
import { validateImport } from "../import/ImportValidation.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { QuantumSnapshotStore } from "../ports/QuantumSnapshotStore.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { ScorecardRepository } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"
import { Scoring } from "../scoring/Scoring.ts"
import { IncidentService, RatedProtocolsMemory } from "./IncidentService.ts"
import { applyPlan, type ImportApplyFailed } from "./importer/ApplyPlan.ts"
import type { ImporterPorts } from "./importer/ImporterPorts.ts"
import { readStore } from "./importer/ReadStore.ts"
import { Publisher } from "./Publisher.ts"
import { AlertRuleRepositoryMemory } from "../ports/memory/AlertRuleRepositoryMemory.ts"
import { EntityRepositoryMemory } from "../ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../ports/memory/IncidentRepositoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../ports/memory/QuantumSnapshotStoreMemory.ts"
import { RubricRepositoryMemory } from "../ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../ports/memory/TransactionMemory.ts"
import { DeliveryOutboxMemory } from "../ports/memory/DeliveryOutboxMemory.ts"

export { ImportApplyFailed } from "./importer/ApplyPlan.ts"

export interface ImportValidateOptions extends ImportProgressOptions {
  /** Whether the import's questions replace a type's catalogue (the default) or merge into it. */
  readonly catalogues?: CatalogueMode | undefined
  /**
   * Where validation's stores put their full chunks (ImportSpill.ts): the
   * spill the sources were decoded with, if any; without one they stay in memory.
   */
  readonly spill?: ChunkSpill | undefined
}

/** The failure that rolls a dry run's transaction back, carrying its report out. */
class Rehearsed extends Data.TaggedError("Rehearsed")<{ readonly report: ImportReport }> {}

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

export class Importer extends Context.Service<
  Importer,
  {
    /** Decodes and checks every source against the store; the plan, or every error found. */
    readonly validate: (
      sources: ReadonlyArray<ImportSource>,
      options?: ImportValidateOptions
    ) => Effect.Effect<ImportPlan, ImportInvalid | StoreError>
    /**
     * `validate` of sources decoded as they were read (ImportDecode's
     * `sourceDecoder`), so that no file's parsed JSON need be held; `sources`
     * names them in order.
     */
    readonly validateDecoded: (
      decoded: Decoded,
      sources: ReadonlyArray<string>,
      options?: ImportValidateOptions
    ) => Effect.Effect<ImportPlan, ImportInvalid | StoreError>
    /** Writes a plan in one transaction and reports what changed. */
    readonly apply: (
      plan: ImportPlan,
      options?: ImportProgressOptions
    ) => Effect.Effect<ImportReport, ImportApplyFailed | StoreError>
    /**
     * A dry run: `apply` in a transaction that is always rolled back, so the
     * report (and the deliveries counted) are a real run's and nothing stays.
     * Needs a Transaction that rolls back (Postgres); the in-memory one does not.
     */
    readonly rehearse: (
      plan: ImportPlan,
      options?: ImportProgressOptions
    ) => Effect.Effect<ImportReport, ImportApplyFailed | StoreError>
  }
>()("@ratings/domain/services/Importer") {
  /**
   * The importer over the stores, the Publisher and the IncidentService,
   * with the tier projection in context (read once, here). Validation's
   * store reads and the apply steps are named functions of importer/.
   */
  static readonly layer = Layer.effect(
    Importer,
    Effect.gen(function* () {
      const ports: ImporterPorts = {
        entities: yield* EntityRepository,
        rubric: yield* RubricRepository,
        scorecards: yield* ScorecardRepository,
        quantumStore: yield* QuantumSnapshotStore,
        tx: yield* Transaction,
        publisher: yield* Publisher,
        incidents: yield* IncidentService,
        projection: yield* Projection
      }

      const validateDecoded = Effect.fn("Importer.validate")(function* (
        decoded: Decoded,
        sources: ReadonlyArray<string>,
        options?: ImportValidateOptions
      ) {
        options?.onProgress?.(0, 1, "validation", { done: 0, total: 1 })
        const { view, content } = yield* readStore(ports, decoded)
        const result = validateImport(
          { ...decoded, content },
          view,
          sources,
          options?.catalogues,
          options?.spill
        )
        options?.onProgress?.(1, 1, "validation", { done: 1, total: 1 })
        if (Result.isFailure(result)) return yield* importInvalid(result.failure)
        return result.success
      })
      const validate = (sources: ReadonlyArray<ImportSource>, options?: ImportValidateOptions) =>
        Effect.suspend(() =>
          validateDecoded(
            decodeSources(sources, options?.spill),
            sources.map((s) => s.name),
            options
          )
        )

      const apply = applyPlan(ports)
      const rehearse = Effect.fn("Importer.rehearse")(function* (
        plan: ImportPlan,
        options?: ImportProgressOptions
      ) {
        return yield* ports.tx
          .run(Effect.flatMap(apply(plan, options), (report) => Effect.fail(new Rehearsed({ report }))))
          .pipe(Effect.catchTag("Rehearsed", (r) => Effect.succeed(r.report)))
      })
      return Importer.of({ validate, validateDecoded, apply, rehearse })
    })
  )

  /** Every in-memory port the importer, the Publisher and the IncidentService need. */
  static readonly memoryPorts = Layer.mergeAll(
    EntityRepositoryMemory.layer(),
    RubricRepositoryMemory.layer(),
    ScorecardRepositoryMemory.layer(),
    QuantumSnapshotStoreMemory.layer,
    TransactionMemory.layer,
    AlertRuleRepositoryMemory.layer,
    DeliveryOutboxMemory.layer,
    IdGeneratorMemory.layer,
    IncidentRepositoryMemory.layer.pipe(Layer.provideMerge(RatedProtocolsMemory.layer)),
    Scoring.layer
  )

  /** The importer over in-memory ports, with every port exposed so tests can arrange and inspect them. */
  static readonly layerTest = Importer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Publisher.layer, IncidentService.layer)),
    Layer.provideMerge(Importer.memoryPorts)
  )
}
