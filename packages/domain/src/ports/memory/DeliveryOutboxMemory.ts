/**
 * The in-memory `DeliveryOutbox` of tests and tools; the contract is the
 * port's (`../DeliveryOutbox.ts`). Every transition goes through the pure
 * DeliveryStateMachine, as in SQL.
 */
import { Effect, Layer, Ref, Result } from "effect"
import {
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  DeliveryTransitionRejected,
  type DeliveryWithAttempts,
  millisOf
} from "../../model/Delivery.ts"
import { isDue, recordAttempt, refire } from "../../webhooks/DeliveryStateMachine.ts"
import { DefaultRetryPolicy, type RetryPolicy } from "../../webhooks/RetrySchedule.ts"
import {
  type AttemptRecordResult,
  type AttemptToRecord,
  DefaultLeaseMs,
  DeliveryOutbox
} from "../DeliveryOutbox.ts"

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

function makeMemory(policy: RetryPolicy) {
  return Effect.gen(function* () {
    const state = yield* Ref.make<Entries>(new Map())

    const update = <A, E>(
      deliveryId: string,
      f: (entry: Entry) => Result.Result<readonly [A, Entry], E>
    ): Effect.Effect<A, E | DeliveryNotFound> =>
      Effect.flatten(
        Ref.modify(state, (entries): readonly [Effect.Effect<A, E | DeliveryNotFound>, Entries] => {
          const entry = entries.get(deliveryId)
          if (entry === undefined) {
            return [Effect.fail(new DeliveryNotFound({ delivery_id: deliveryId })), entries]
          }
          const result = f(entry)
          if (Result.isFailure(result)) return [Effect.fail(result.failure), entries]
          const [value, next] = result.success
          return [Effect.succeed(value), new Map(entries).set(deliveryId, next)]
        })
      )

    /** Applies attempts one after the other, each against the outbox as the previous ones left it. */
    const recordOne = (
      entries: Map<string, Entry>,
      { claimed, input }: AttemptToRecord
    ): AttemptRecordResult => {
      const entry = entries.get(claimed.delivery_id)
      if (entry === undefined) return Result.fail(new DeliveryNotFound({ delivery_id: claimed.delivery_id }))
      const stored = entry.delivery
      if (stored.cycle !== claimed.cycle || stored.attempts !== claimed.attempts) {
        return Result.fail(
          new DeliveryTransitionRejected({
            delivery_id: stored.delivery_id,
            status: stored.status,
            reason: "stale claim: the delivery moved on since it was claimed"
          })
        )
      }
      const result = recordAttempt(stored, input, policy)
      if (Result.isSuccess(result)) {
        entries.set(claimed.delivery_id, {
          delivery: result.success.delivery,
          attempts: [...entry.attempts, result.success.attempt],
          leasedUntil: undefined
        })
      }
      return result
    }

    const recordAll = (attempts: ReadonlyArray<AttemptToRecord>) =>
      Ref.modify(state, (entries) => {
        const next = new Map(entries)
        const results = attempts.map((attempt) => recordOne(next, attempt))
        return [results as ReadonlyArray<AttemptRecordResult>, next] as const
      })

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

      refire: (deliveryId, at) =>
        update(deliveryId, (entry) =>
          Result.map(
            refire(entry.delivery, at),
            (delivery) => [delivery, { ...entry, delivery, leasedUntil: undefined }] as const
          )
        )
    })
  })
}

/** The outbox in a Ref, on a (scaled) retry policy. */
const layerWith = (policy: RetryPolicy): Layer.Layer<DeliveryOutbox> =>
  Layer.effect(DeliveryOutbox, makeMemory(policy))

const layer: Layer.Layer<DeliveryOutbox> = layerWith(DefaultRetryPolicy)

export const DeliveryOutboxMemory = { layer, layerWith }
