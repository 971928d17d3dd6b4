/**
 * Recording webhook attempts and re-fires: the domain decides, the store
 * stores (spec part 3, "Webhook delivery"). Every transition is computed
 * here, by the pure DeliveryStateMachine on the retry policy in force, and
 * handed to the store as a guarded write: "replace this delivery, as it was
 * read, by this one (and log this attempt)". The store applies a write only
 * where the stored row still holds the state it was computed from, and runs
 * no rule of its own, so the memory and the Postgres outboxes record exactly
 * the same transitions, from this one module.
 */
import { Effect, Result } from "effect"
import {
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  DeliveryTransitionRejected
} from "../model/Delivery.ts"
import {
  type AttemptInput,
  type AttemptRecorded,
  hold,
  recordAttempt,
  refire
} from "./DeliveryStateMachine.ts"
import type { RetryPolicy } from "./RetrySchedule.ts"

/** A transition as the store writes it: `from` (as read) becomes `to`, with `attempt` logged if given. */
export interface GuardedWrite {
  readonly from: Delivery
  readonly to: Delivery
  readonly attempt?: DeliveryAttempt | undefined
}

/** What an outbox's storage offers the recording: guarded writes and a read. */
export interface TransitionStore {
  /**
   * Applies each write whose delivery is still stored exactly as `from`
   * (status, cycle, attempts, next_attempt_at, first_attempt_at), releasing
   * its claim. One answer per write, in order: the delivery as now stored, or
   * undefined where the write was not applied. A store that could not apply
   * the batch at all may answer undefined for every write.
   */
  readonly writeGuarded: (
    writes: ReadonlyArray<GuardedWrite>
  ) => Effect.Effect<ReadonlyArray<Delivery | undefined>>
  /** The delivery as stored now, or undefined if there is none. */
  readonly read: (deliveryId: string) => Effect.Effect<Delivery | undefined>
}

/** One attempt to record: the delivery as it was claimed, and what the attempt gave. */
export interface ClaimedAttempt {
  readonly claimed: Delivery
  readonly input: AttemptInput
}

export type AttemptResult = Result.Result<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>

/** How often the careful path re-reads a delivery whose guarded write was not applied, before giving up. */
const MaxGuardedRetries = 5

/** The fields a guarded write compares: those a transition reads. */
export const sameState = (a: Delivery, b: Delivery): boolean =>
  a.status === b.status &&
  a.cycle === b.cycle &&
  a.attempts === b.attempts &&
  a.next_attempt_at === b.next_attempt_at &&
  a.first_attempt_at === b.first_attempt_at

export const staleClaim = (stored: Delivery) =>
  new DeliveryTransitionRejected({
    delivery_id: stored.delivery_id,
    status: stored.status,
    reason: "stale claim: the delivery moved on since it was claimed"
  })

const notApplied = (deliveryId: string) =>
  Effect.die(
    new Error(`delivery ${deliveryId}: the store did not apply a guarded write ${MaxGuardedRetries} times`)
  )

/**
 * Reads a delivery, computes `decide` on it and writes the result guarded by
 * that read, reading again if the write was not applied (the row moved on).
 */
const guardedLoop = <A, E>(
  store: TransitionStore,
  deliveryId: string,
  decide: (
    stored: Delivery
  ) => Result.Result<{ readonly write: GuardedWrite; readonly done: (stored: Delivery) => A }, E>
): Effect.Effect<Result.Result<A, E | DeliveryNotFound>> =>
  Effect.gen(function* () {
    for (let tries = 0; tries < MaxGuardedRetries; tries++) {
      const stored = yield* store.read(deliveryId)
      if (stored === undefined) return Result.fail(new DeliveryNotFound({ delivery_id: deliveryId }))
      const decided = decide(stored)
      if (Result.isFailure(decided)) return Result.fail(decided.failure)
      const [written] = yield* store.writeGuarded([decided.success.write])
      if (written !== undefined) return Result.succeed(decided.success.done(written))
    }
    return yield* notApplied(deliveryId)
  })

/** The careful way: the attempt judged on the stored delivery, a stale claim refused. */
const recordCarefully = (store: TransitionStore, policy: RetryPolicy, { claimed, input }: ClaimedAttempt) =>
  guardedLoop(store, claimed.delivery_id, (stored) => {
    if (stored.cycle !== claimed.cycle || stored.attempts !== claimed.attempts) {
      return Result.fail(staleClaim(stored))
    }
    return Result.map(recordAttempt(stored, input, policy), (recorded) => ({
      write: { from: stored, to: recorded.delivery, attempt: recorded.attempt },
      done: (delivery: Delivery): AttemptRecorded => ({ delivery, attempt: recorded.attempt })
    }))
  })

interface Planned {
  readonly index: number
  readonly write: GuardedWrite
  readonly attempt: DeliveryAttempt
}

/** Splits a batch: transitions computed from the claimed state, and the indexes that go the careful way. */
const plan = (attempts: ReadonlyArray<ClaimedAttempt>, policy: RetryPolicy) => {
  const fast: Array<Planned> = []
  const careful: Array<number> = []
  const seen = new Set<string>()
  for (const [index, { claimed, input }] of attempts.entries()) {
    const id = claimed.delivery_id.toLowerCase()
    // A delivery's second attempt in one batch is judged after its first, the careful way.
    const transition = seen.has(id) ? undefined : recordAttempt(claimed, input, policy)
    seen.add(id)
    if (transition === undefined || Result.isFailure(transition)) careful.push(index)
    else {
      const { delivery, attempt } = transition.success
      fast.push({ index, write: { from: claimed, to: delivery, attempt }, attempt })
    }
  }
  return { fast, careful }
}

/**
 * Records attempts as if one after the other in the given order; one result
 * per attempt, in that order, each refused alone. The batch is computed from
 * the deliveries as claimed and written at once (one statement in Postgres:
 * the dispatcher's hot path). What it does not record (a guard that failed, an
 * attempt refused on the claimed state, a delivery's second attempt in one
 * batch, a batch the store could not apply) goes the careful way, one by one:
 * so each refusal is judged on the stored delivery, and of two writers racing
 * on one delivery exactly one wins.
 */
export const recordAttempts = (
  store: TransitionStore,
  policy: RetryPolicy,
  attempts: ReadonlyArray<ClaimedAttempt>
): Effect.Effect<ReadonlyArray<AttemptResult>> =>
  Effect.gen(function* () {
    const results: Array<AttemptResult | undefined> = attempts.map(() => undefined)
    const { fast, careful } = plan(attempts, policy)
    const written = fast.length === 0 ? [] : yield* store.writeGuarded(fast.map((p) => p.write))
    for (const [i, { index, attempt }] of fast.entries()) {
      const delivery = written[i]
      if (delivery === undefined) careful.push(index)
      else results[index] = Result.succeed({ delivery, attempt })
    }
    // In input order, so two attempts on one delivery are judged one after the other.
    careful.sort((a, b) => a - b)
    for (const index of careful) results[index] = yield* recordCarefully(store, policy, attempts[index]!)
    return results as ReadonlyArray<AttemptResult>
  })

/** Manual re-fire of a stored failed delivery, written guarded by the read it was decided on. */
export const refireStored = (
  store: TransitionStore,
  deliveryId: string,
  at: number
): Effect.Effect<Result.Result<Delivery, DeliveryNotFound | DeliveryTransitionRejected>> =>
  guardedLoop(store, deliveryId, (stored) =>
    Result.map(refire(stored, at), (delivery) => ({
      write: { from: stored, to: delivery },
      done: () => delivery
    }))
  )

/** A claimed delivery of a disabled endpoint recorded as not sent, guarded by the claimed state. */
export const holdClaimed = (
  store: TransitionStore,
  claimed: Delivery,
  reason: string
): Effect.Effect<Result.Result<Delivery, DeliveryNotFound | DeliveryTransitionRejected>> =>
  guardedLoop(store, claimed.delivery_id, (stored) => {
    if (!sameState(stored, claimed)) return Result.fail(staleClaim(stored))
    return Result.map(hold(stored, reason), (delivery) => ({
      write: { from: stored, to: delivery },
      done: () => delivery
    }))
  })

/**
 * Re-fires failed deliveries as read, in one batch of guarded writes: each
 * due at `at`, a new cycle, the same delivery_id. One that moved on since it
 * was read (re-fired by someone else) is skipped. The re-fired, in order.
 */
export const refireMany = (
  store: TransitionStore,
  failed: ReadonlyArray<Delivery>,
  at: number
): Effect.Effect<ReadonlyArray<Delivery>> =>
  Effect.gen(function* () {
    const writes: Array<GuardedWrite> = []
    for (const stored of failed) {
      const next = refire(stored, at)
      if (Result.isSuccess(next)) writes.push({ from: stored, to: next.success })
    }
    if (writes.length === 0) return []
    const written = yield* store.writeGuarded(writes)
    return written.filter((d): d is Delivery => d !== undefined)
  })
