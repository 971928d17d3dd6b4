/**
 * Port: the durable outbox of webhook deliveries and their attempt log.
 *
 * Workers `claimDue` deliveries, send them, and `recordAttempt`. A claim is
 * a lease: while it runs no other claim returns the same delivery, so any
 * number of workers (and server processes) can share one outbox; a worker
 * that dies lets its lease expire and the delivery becomes claimable again.
 * `recordAttempt` takes the delivery as claimed and is refused if the stored
 * one has moved on since (another worker recorded that attempt after a lease
 * expired), so an attempt is never counted twice.
 *
 * `recordAttempts` records many attempts at once, each judged on its own: a
 * stale or refused one gets its own failure and does not hold back the
 * others. A busy dispatcher finishes many sends while one record is being
 * written, and a store that applies them together (one SQL statement instead
 * of a transaction each) is what lets it keep up with its receivers.
 *
 * `enqueueClaimed` writes a new delivery already leased to its caller, for an
 * attempt made at once (the test-webhook route): enqueueing and then claiming
 * would leave a window in which a dispatcher takes it first, and the caller
 * could not report the outcome of its own attempt.
 *
 * Every transition is computed by the domain (webhooks/DeliveryTransitions:
 * the pure DeliveryStateMachine on the `RetryPolicy` in context) and handed to
 * the store as a guarded write, in memory and in SQL alike. Production:
 * adapters-sql (a table claimed with `FOR UPDATE SKIP LOCKED` and a lease
 * column). `layerMemory` keeps it all in a Ref.
 */
import { Context, Effect, Layer, Ref, Result } from "effect"
import {
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  type DeliveryTransitionRejected,
  type DeliveryWithAttempts,
  millisOf
} from "../model/Delivery.ts"
import { type AttemptInput, type AttemptRecorded, isDue } from "../webhooks/DeliveryStateMachine.ts"
import {
  type ClaimedAttempt,
  recordAttempts,
  refireStored,
  sameState,
  type TransitionStore
} from "../webhooks/DeliveryTransitions.ts"
import { ReceiverTimeoutMs, RetryPolicy } from "../webhooks/RetrySchedule.ts"

/** Default claim lease: long enough for a send that uses its whole timeout, with room to record it. */
export const DefaultLeaseMs = 6 * ReceiverTimeoutMs

export interface ClaimOptions {
  /** Epoch ms: deliveries due at or before it are claimable. */
  readonly at: number
  readonly limit: number
  readonly leaseMs?: number | undefined
}

/** One attempt to record: the delivery as it was claimed, and what the attempt gave. */
export type AttemptToRecord = ClaimedAttempt

/** The result of recording one attempt: recorded, or refused for that delivery alone. */
export type AttemptRecordResult = Result.Result<
  AttemptRecorded,
  DeliveryNotFound | DeliveryTransitionRejected
>

export interface EnqueueClaimedOptions {
  /** Epoch ms the claim starts; the lease runs to `at + leaseMs`. */
  readonly at: number
  readonly leaseMs?: number | undefined
}

export class DeliveryOutbox extends Context.Service<
  DeliveryOutbox,
  {
    readonly enqueue: (deliveries: ReadonlyArray<Delivery>) => Effect.Effect<void>
    /**
     * Enqueues one new delivery leased to the caller, so no claim returns it
     * before the caller records its attempt or the lease ends. Its id must be
     * new (ids are fresh UUIDs): an id already in the outbox is a defect.
     */
    readonly enqueueClaimed: (delivery: Delivery, options: EnqueueClaimedOptions) => Effect.Effect<Delivery>
    /** Up to `limit` due, unclaimed deliveries, earliest due first, each leased to the caller. */
    readonly claimDue: (options: ClaimOptions) => Effect.Effect<ReadonlyArray<Delivery>>
    /** Applies an attempt to a claimed delivery and releases the claim. */
    readonly recordAttempt: (
      claimed: Delivery,
      input: AttemptInput
    ) => Effect.Effect<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>
    /**
     * `recordAttempt` for each attempt, as if one after the other in the
     * given order; one result per attempt, in that order. A refused attempt
     * is refused alone. Only a store failure fails the whole call (a defect),
     * and then any of them may or may not have been recorded.
     */
    readonly recordAttempts: (
      attempts: ReadonlyArray<AttemptToRecord>
    ) => Effect.Effect<ReadonlyArray<AttemptRecordResult>>
    readonly get: (deliveryId: string) => Effect.Effect<DeliveryWithAttempts, DeliveryNotFound>
    /** A rule's deliveries with their attempts, newest first. */
    readonly listByRule: (
      ruleId: string,
      options?: { readonly limit?: number | undefined }
    ) => Effect.Effect<ReadonlyArray<DeliveryWithAttempts>>
    /** Failed deliveries (of the given rules, or of all), newest first. */
    readonly listFailed: (options?: {
      readonly ruleIds?: ReadonlyArray<string> | undefined
      readonly limit?: number | undefined
    }) => Effect.Effect<ReadonlyArray<Delivery>>
    /** Manual re-fire of a failed delivery: a new cycle, the same delivery_id, due at `at`. */
    readonly refire: (
      deliveryId: string,
      at: number
    ) => Effect.Effect<Delivery, DeliveryNotFound | DeliveryTransitionRejected>
  }
>()("@ratings/domain/ports/DeliveryOutbox") {
  /** In a Ref, on the `RetryPolicy` in context (the spec's schedule unless one is provided). */
  static readonly layerMemory: Layer.Layer<DeliveryOutbox> = Layer.effect(DeliveryOutbox, makeMemory())
}

interface Entry {
  readonly delivery: Delivery
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  /** Epoch ms until which the delivery is claimed, if it is. */
  readonly leasedUntil: number | undefined
}

type Entries = ReadonlyMap<string, Entry>

const withAttempts = (entry: Entry): DeliveryWithAttempts => ({
  ...entry.delivery,
  attempt_log: entry.attempts
})

const newestFirst = (entries: Iterable<Entry>): Array<Entry> => [...entries].reverse()

function makeMemory() {
  return Effect.gen(function* () {
    const policy = yield* RetryPolicy
    const state = yield* Ref.make<Entries>(new Map())

    /** The memory's guarded writes: each applied where the stored delivery is still its `from`. */
    const store: TransitionStore = {
      read: (deliveryId) => Effect.map(Ref.get(state), (entries) => entries.get(deliveryId)?.delivery),
      writeGuarded: (writes) =>
        Ref.modify(state, (entries) => {
          const next = new Map(entries)
          const written = writes.map(({ from, to, attempt }) => {
            const entry = next.get(from.delivery_id)
            if (entry === undefined || !sameState(entry.delivery, from)) return undefined
            const attempts = attempt === undefined ? entry.attempts : [...entry.attempts, attempt]
            next.set(from.delivery_id, { delivery: to, attempts, leasedUntil: undefined })
            return to
          })
          return [written, next] as const
        })
    }

    const recordAll = (attempts: ReadonlyArray<AttemptToRecord>) => recordAttempts(store, policy, attempts)

    return DeliveryOutbox.of({
      enqueue: (deliveries) =>
        Ref.update(state, (entries) => {
          const next = new Map(entries)
          for (const delivery of deliveries) {
            if (!next.has(delivery.delivery_id)) {
              next.set(delivery.delivery_id, { delivery, attempts: [], leasedUntil: undefined })
            }
          }
          return next
        }),

      enqueueClaimed: (delivery, { at, leaseMs = DefaultLeaseMs }) =>
        Effect.flatten(
          Ref.modify(state, (entries): readonly [Effect.Effect<Delivery>, Entries] =>
            entries.has(delivery.delivery_id)
              ? [Effect.die(new Error(`delivery ${delivery.delivery_id} is already in the outbox`)), entries]
              : [
                  Effect.succeed(delivery),
                  new Map(entries).set(delivery.delivery_id, {
                    delivery,
                    attempts: [],
                    leasedUntil: at + leaseMs
                  })
                ]
          )
        ),

      claimDue: ({ at, limit, leaseMs = DefaultLeaseMs }) =>
        Ref.modify(state, (entries) => {
          const claimable = [...entries.values()]
            .filter((e) => isDue(e.delivery, at) && (e.leasedUntil === undefined || e.leasedUntil <= at))
            .sort((a, b) => millisOf(a.delivery.next_attempt_at!) - millisOf(b.delivery.next_attempt_at!))
            .slice(0, Math.max(0, limit))
          const next = new Map(entries)
          for (const e of claimable) next.set(e.delivery.delivery_id, { ...e, leasedUntil: at + leaseMs })
          return [claimable.map((e) => e.delivery), next] as const
        }),

      recordAttempt: (claimed, input) =>
        Effect.flatMap(recordAll([{ claimed, input }]), ([result]) =>
          Result.isSuccess(result!) ? Effect.succeed(result.success) : Effect.fail(result!.failure)
        ),

      recordAttempts: recordAll,

      get: (deliveryId) =>
        Effect.flatMap(Ref.get(state), (entries) => {
          const entry = entries.get(deliveryId)
          return entry === undefined
            ? Effect.fail(new DeliveryNotFound({ delivery_id: deliveryId }))
            : Effect.succeed(withAttempts(entry))
        }),

      listByRule: (ruleId, options) =>
        Effect.map(Ref.get(state), (entries) =>
          newestFirst(entries.values())
            .filter((e) => e.delivery.rule_id === ruleId)
            .slice(0, options?.limit ?? Number.POSITIVE_INFINITY)
            .map(withAttempts)
        ),

      listFailed: (options) =>
        Effect.map(Ref.get(state), (entries) =>
          newestFirst(entries.values())
            .filter(
              (e) =>
                e.delivery.status === "failed" &&
                (options?.ruleIds === undefined || options.ruleIds.includes(e.delivery.rule_id))
            )
            .slice(0, options?.limit ?? Number.POSITIVE_INFINITY)
            .map((e) => e.delivery)
        ),

      refire: (deliveryId, at) => Effect.flatMap(refireStored(store, deliveryId, at), Effect.fromResult)
    })
  })
}
