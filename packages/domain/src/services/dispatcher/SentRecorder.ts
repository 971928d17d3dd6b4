/**
 * Group commit of the loop's finished sends: an outcome queued while no
 * writer runs starts one (a fiber), which records what is queued in one
 * `recordAttempts` call (up to `MaxRecordBatch`), then logs, counts endpoint
 * health and settles each attempt, and goes on while more is queued. Once
 * `SentBatchForWriter` outcomes wait, another writer starts beside it (up
 * to `MaxRecordWriters`). Log lines produced outside any fiber are queued
 * here too and written by the next writer.
 */
import { Cause, Effect, Exit, type Fiber, type Latch, LogLevel, References, Result } from "effect"
import { millisOf, type TransportOutcome } from "../../model/Delivery.ts"
import type { AttemptRecordResult, AttemptToRecord } from "../../ports/DeliveryOutbox.ts"
import type { AttemptRecorded } from "../../webhooks/DeliveryStateMachine.ts"
import { healthOf, logRecorded, notRecorded } from "./Attempt.ts"
import type { LoopState } from "./LoopState.ts"
import {
  type Claimed,
  type DispatcherPorts,
  MaxRecordBatch,
  MaxRecordWriters,
  SentBatchForWriter
} from "./Settings.ts"

/** A send that is over, its outcome waiting to be recorded with the next batch. */
export interface Sent {
  readonly claimed: Claimed
  readonly at: number
  readonly outcome: TransportOutcome
}

/** Forks an effect into the loop's fiber set, from plain code. */
export type Fork = (effect: Effect.Effect<void>) => Fiber.Fiber<void>

/** `n` attempts settled: they no longer count against the window; the loop may be waiting for that. */
export const settled = (state: LoopState, kick: Latch.Latch, n: number) => {
  state.recording -= n
  if (state.waitingForRoom || state.stopping) kick.openUnsafe()
}

/** A recorded attempt: its log (a delivery's only at debug), its bearing on endpoint health, its retry time. */
const recorded = (
  ports: DispatcherPorts,
  state: LoopState,
  kick: Latch.Latch,
  { claimed, at }: Sent,
  r: AttemptRecorded,
  debug: boolean
) => {
  const delivered = r.attempt.outcome === "delivered"
  if (r.delivery.status === "pending") {
    const due = millisOf(r.delivery.next_attempt_at!)
    state.dueTimes.add(due)
    if (due < state.wakeAt) kick.openUnsafe()
  }
  const health = healthOf(ports, claimed, at, delivered)
  return delivered && !debug ? health : Effect.andThen(logRecorded(r), health)
}

/** The recorder of the loop's sends: `queue` an outcome or a log line, and writers record them. */
export const makeSentRecorder = (ports: DispatcherPorts, state: LoopState, kick: Latch.Latch, fork: Fork) => {
  const sent: Array<Sent> = []
  const notes: Array<Effect.Effect<void>> = []
  let writers = 0
  let closed = false

  const afterRecord = (batch: ReadonlyArray<Sent>, exit: Exit.Exit<ReadonlyArray<AttemptRecordResult>>) =>
    Effect.gen(function* () {
      const debug = LogLevel.isGreaterThanOrEqualTo("Debug", yield* References.MinimumLogLevel)
      for (const [i, one] of batch.entries()) {
        if (Exit.isFailure(exit)) {
          yield* notRecorded(one.claimed, exit.cause)
          continue
        }
        const result = exit.value[i]
        if (result === undefined)
          yield* notRecorded(
            one.claimed,
            Cause.die(new Error("the outbox returned fewer results than attempts"))
          )
        else if (Result.isFailure(result)) yield* notRecorded(one.claimed, Cause.fail(result.failure))
        else yield* recorded(ports, state, kick, one, result.success, debug)
      }
      settled(state, kick, batch.length)
    })

  const writeQueued: Effect.Effect<void> = Effect.gen(function* () {
    while (sent.length > 0 || notes.length > 0) {
      for (const note of notes.splice(0)) yield* note
      const batch = sent.splice(0, MaxRecordBatch)
      if (batch.length === 0) continue
      const attempts: Array<AttemptToRecord> = batch.map(({ claimed, at, outcome }) => ({
        claimed: claimed.delivery,
        input: { at, outcome }
      }))
      const exit = yield* Effect.exit(ports.outbox.recordAttempts(attempts))
      if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      yield* afterRecord(batch, exit)
    }
  }).pipe(
    Effect.withSpan("WebhookDispatcher.recordSent"),
    Effect.ensuring(
      Effect.sync(() => {
        writers--
        // Queued meanwhile by a callback that saw this writer still running.
        startWriter()
      })
    )
  )

  /** Starts a writer when none runs, or another beside it once many outcomes wait (up to the bound). */
  function startWriter() {
    if (closed || (sent.length === 0 && notes.length === 0)) return
    if (writers > 0 && (writers >= MaxRecordWriters || sent.length < SentBatchForWriter)) return
    writers++
    fork(writeQueued)
  }

  return {
    /** Queues a finished send; it counts as recording until settled. */
    queue: (one: Sent) => {
      state.recording++
      sent.push(one)
      startWriter()
    },
    /** Queues a log line for the next writer. */
    note: (line: Effect.Effect<void>) => {
      notes.push(line)
      startWriter()
    },
    /** Nothing more is written (the loop's scope is closing). */
    close: () => {
      closed = true
    }
  }
}
