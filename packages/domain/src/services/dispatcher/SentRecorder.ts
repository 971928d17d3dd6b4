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
import { millisOf } from "../../model/Delivery.ts"
import type { RuleDestination } from "../../ports/AlertRuleRepository.ts"
import type { AttemptRecordResult, AttemptToRecord } from "../../ports/DeliveryOutbox.ts"
import type { AttemptRecorded } from "../../webhooks/DeliveryStateMachine.ts"
import { healthOf, logRecorded, notRecorded } from "./Attempt.ts"
import type { LoopState } from "./LoopState.ts"
import { type DispatcherPorts, MaxRecordBatch, MaxRecordWriters, SentBatchForWriter } from "./Settings.ts"

/** Forks an effect into the loop's fiber set, from plain code. */
export type Fork = (effect: Effect.Effect<void>) => Fiber.Fiber<void>

/** `n` attempts settled: they no longer count against the window; the loop may be waiting for that. */
export const settled = (state: LoopState, kick: Latch.Latch, n: number) => {
  state.recording -= n
  if (state.waitingForRoom || state.stopping) kick.openUnsafe()
}

/**
 * A recorded attempt: its retry time noted, and what it still has to do (its
 * log, a delivery's only at debug; its bearing on endpoint health) pushed to
 * `after`. A delivery of a healthy endpoint, the common case, pushes nothing.
 */
const recorded = (
  ports: DispatcherPorts,
  state: LoopState,
  kick: Latch.Latch,
  attempt: AttemptToRecord,
  destination: RuleDestination | undefined,
  r: AttemptRecorded,
  debug: boolean,
  after: Array<Effect.Effect<void>>
) => {
  const delivered = r.attempt.outcome === "delivered"
  if (r.delivery.status === "pending") {
    const due = millisOf(r.delivery.next_attempt_at!)
    state.dueTimes.add(due)
    if (due < state.wakeAt) kick.openUnsafe()
  }
  if (!delivered || debug) after.push(logRecorded(r))
  if (destination !== undefined && (!delivered || destination.failing))
    after.push(healthOf(ports, attempt.claimed, destination, attempt.input.at, delivered))
}

/** What a batch's results leave to do, in the batch's order (plain code: nothing, mostly). */
const afterBatch = (
  ports: DispatcherPorts,
  state: LoopState,
  kick: Latch.Latch,
  batch: ReadonlyArray<AttemptToRecord>,
  destinations: ReadonlyArray<RuleDestination | undefined>,
  exit: Exit.Exit<ReadonlyArray<AttemptRecordResult>>,
  debug: boolean
): Array<Effect.Effect<void>> => {
  const after: Array<Effect.Effect<void>> = []
  for (let i = 0; i < batch.length; i++) {
    const attempt = batch[i]!
    if (Exit.isFailure(exit)) {
      after.push(notRecorded(attempt.claimed, exit.cause))
      continue
    }
    const result = exit.value[i]
    if (result === undefined)
      after.push(
        notRecorded(attempt.claimed, Cause.die(new Error("the outbox returned fewer results than attempts")))
      )
    else if (Result.isFailure(result)) after.push(notRecorded(attempt.claimed, Cause.fail(result.failure)))
    else recorded(ports, state, kick, attempt, destinations[i], result.success, debug, after)
  }
  return after
}

/** The recorder of the loop's sends: `queue` an outcome or a log line, and writers record them. */
export const makeSentRecorder = (ports: DispatcherPorts, state: LoopState, kick: Latch.Latch, fork: Fork) => {
  // A finished send's attempt, handed to the outbox as it is, and side by side the destination it
  // went to, for endpoint health: a destination (its keys) is never handed to the outbox.
  const sent: Array<AttemptToRecord> = []
  const destinations: Array<RuleDestination | undefined> = []
  const notes: Array<Effect.Effect<void>> = []
  let writers = 0
  let closed = false

  const afterRecord = (
    batch: ReadonlyArray<AttemptToRecord>,
    batchDestinations: ReadonlyArray<RuleDestination | undefined>,
    exit: Exit.Exit<ReadonlyArray<AttemptRecordResult>>
  ) =>
    Effect.gen(function* () {
      const debug = LogLevel.isGreaterThanOrEqualTo("Debug", yield* References.MinimumLogLevel)
      for (const effect of afterBatch(ports, state, kick, batch, batchDestinations, exit, debug))
        yield* effect
      settled(state, kick, batch.length)
    })

  const writeQueued: Effect.Effect<void> = Effect.gen(function* () {
    while (sent.length > 0 || notes.length > 0) {
      if (notes.length > 0) for (const note of notes.splice(0)) yield* note
      const batch = sent.splice(0, MaxRecordBatch)
      const batchDestinations = destinations.splice(0, batch.length)
      if (batch.length === 0) continue
      const exit = yield* Effect.exit(ports.outbox.recordAttempts(batch))
      if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      yield* afterRecord(batch, batchDestinations, exit)
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
    /** Queues a finished send and the destination it went to; it counts as recording until settled. */
    queue: (attempt: AttemptToRecord, destination: RuleDestination | undefined) => {
      state.recording++
      sent.push(attempt)
      destinations.push(destination)
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
