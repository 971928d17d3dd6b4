/**
 * Group commit of attempt outcomes. An attempt that finishes while no batch
 * is being written starts a writer: a fiber that takes what is queued (up to
 * `MaxRecordBatch`), writes it in one call, and keeps taking what queued up
 * meanwhile until the queue is empty. Every attempt waits for its own result
 * only. Once `RecordBatchForWriter` attempts wait, another writer starts (up
 * to `MaxRecordWriters`): round trips and commits overlap, and each batch is
 * still large, as a statement costs far more than a row. State is plain
 * variables: fibers interleave only at effect boundaries, and none lies
 * between checking and setting them.
 */
import { Deferred, Effect, Exit, FiberSet, Result } from "effect"
import type { DeliveryNotFound, DeliveryTransitionRejected } from "../../model/Delivery.ts"
import type { AttemptRecordResult, AttemptToRecord, DeliveryOutbox } from "../../ports/DeliveryOutbox.ts"
import type { AttemptRecorded } from "../../webhooks/DeliveryStateMachine.ts"
import { MaxRecordBatch, MaxRecordWriters, RecordBatchForWriter } from "./Settings.ts"

/** A finished attempt waiting to be recorded with the next batch. */
interface QueuedRecord {
  readonly attempt: AttemptToRecord
  readonly done: Deferred.Deferred<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>
}

/** Settles each queued attempt of a batch with its result of `recordAttempts` (or the call's failure). */
const settleBatch = (
  batch: ReadonlyArray<QueuedRecord>,
  exit: Exit.Exit<ReadonlyArray<AttemptRecordResult>>
) => {
  for (const [i, { done }] of batch.entries()) {
    const result = Exit.isSuccess(exit) ? exit.value[i] : undefined
    Deferred.doneUnsafe(
      done,
      Exit.isFailure(exit)
        ? Effect.failCause(exit.cause)
        : result === undefined
          ? Effect.die(new Error("the outbox returned fewer results than attempts"))
          : Result.isSuccess(result)
            ? Effect.succeed(result.success)
            : Effect.fail(result.failure)
    )
  }
}

/**
 * The recorder of a dispatcher: records an attempt with the next batch and
 * waits for its own result. Its writers live in the layer's scope.
 */
export const makeRecordBatch = (outbox: DeliveryOutbox["Service"]) =>
  Effect.gen(function* () {
    const writers = yield* FiberSet.make<void>()
    const queued: Array<QueuedRecord> = []
    let writing = 0

    const writeQueued: Effect.Effect<void> = Effect.suspend(() => {
      let batch: Array<QueuedRecord> = []
      return Effect.gen(function* () {
        while (queued.length > 0) {
          batch = queued.splice(0, MaxRecordBatch)
          const exit = yield* Effect.exit(outbox.recordAttempts(batch.map((q) => q.attempt)))
          settleBatch(batch, exit)
          batch = []
        }
      }).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            writing--
            if (Exit.isSuccess(exit)) return
            // The writer was interrupted (the dispatcher is stopping): nobody writes the rest, so
            // those attempts end as not recorded, and the deliveries return when their leases end.
            const defect = Effect.die(new Error("recording stopped: the dispatcher is shutting down"))
            for (const { done } of [...batch, ...queued.splice(0)]) Deferred.doneUnsafe(done, defect)
          })
        )
      )
    })

    return (attempt: AttemptToRecord) =>
      Effect.suspend(() => {
        const done = Deferred.makeUnsafe<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>()
        queued.push({ attempt, done })
        if (writing > 0 && (writing >= MaxRecordWriters || queued.length < RecordBatchForWriter))
          return Deferred.await(done)
        writing++
        return Effect.andThen(FiberSet.run(writers, writeQueued), Deferred.await(done))
      })
  })
