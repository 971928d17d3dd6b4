/**
 * The in-memory `DeliveryOutbox` of tests and tools; the contract is the
 * port's (`../DeliveryOutbox.ts`). Every transition is computed by the domain
 * (webhooks/DeliveryTransitions, on the `RetryPolicy` in context) and written
 * here as a guarded write, as in SQL.
 */
import { Effect, Layer, Ref, Result } from "effect"
import {
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  type DeliveryWithAttempts,
  millisOf
} from "../../model/Delivery.ts"
import { isDue } from "../../webhooks/DeliveryStateMachine.ts"
import {
  holdClaimed,
  recordAttempts,
  refireMany,
  refireStored,
  sameState,
  type TransitionStore
} from "../../webhooks/DeliveryTransitions.ts"
import { RetryPolicy } from "../../webhooks/RetrySchedule.ts"
import { type AttemptToRecord, DefaultLeaseMs, DeliveryOutbox } from "../DeliveryOutbox.ts"

interface Entry {
  readonly delivery: Delivery
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  /** Epoch ms until which the delivery is claimed, if it is. */
  readonly leasedUntil: number | undefined
  /** The token of the claim that set the lease, if it was given one. */
  readonly claimToken: string | undefined
}

type Entries = ReadonlyMap<string, Entry>

const withAttempts = (entry: Entry): DeliveryWithAttempts => ({
  ...entry.delivery,
  attempt_log: entry.attempts
})

const newestFirst = (entries: Iterable<Entry>): Array<Entry> => [...entries].reverse()

type Outbox = DeliveryOutbox["Service"]

/** The memory's guarded writes: each applied where the stored delivery is still its `from`. */
const guardedStore = (state: Ref.Ref<Entries>): TransitionStore => ({
  read: (deliveryId) => Effect.map(Ref.get(state), (entries) => entries.get(deliveryId)?.delivery),
  writeGuarded: (writes) =>
    Ref.modify(state, (entries) => {
      const next = new Map(entries)
      const written = writes.map(({ from, to, attempt }) => {
        const entry = next.get(from.delivery_id)
        if (entry === undefined || !sameState(entry.delivery, from)) return undefined
        const attempts = attempt === undefined ? entry.attempts : [...entry.attempts, attempt]
        next.set(from.delivery_id, { delivery: to, attempts, leasedUntil: undefined, claimToken: undefined })
        return to
      })
      return [written, next] as const
    })
})

/** What puts deliveries into the outbox and claims them: enqueue, enqueueClaimed, claimDue, releaseClaims. */
const queueing = (
  state: Ref.Ref<Entries>
): Pick<Outbox, "enqueue" | "enqueueClaimed" | "claimDue" | "releaseClaims"> => ({
  enqueue: (deliveries) =>
    Ref.update(state, (entries) => {
      const next = new Map(entries)
      for (const delivery of deliveries) {
        if (!next.has(delivery.delivery_id)) {
          next.set(delivery.delivery_id, {
            delivery,
            attempts: [],
            leasedUntil: undefined,
            claimToken: undefined
          })
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
                leasedUntil: at + leaseMs,
                claimToken: undefined
              })
            ]
      )
    ),

  claimDue: ({ at, limit, leaseMs = DefaultLeaseMs, token }) =>
    Ref.modify(state, (entries) => {
      const claimable = [...entries.values()]
        .filter((e) => isDue(e.delivery, at) && (e.leasedUntil === undefined || e.leasedUntil <= at))
        .sort((a, b) => millisOf(a.delivery.next_attempt_at!) - millisOf(b.delivery.next_attempt_at!))
        .slice(0, Math.max(0, limit))
      const next = new Map(entries)
      for (const e of claimable) {
        next.set(e.delivery.delivery_id, { ...e, leasedUntil: at + leaseMs, claimToken: token })
      }
      return [claimable.map((e) => e.delivery), next] as const
    }),

  releaseClaims: (claims) =>
    Ref.modify(state, (entries) => {
      const next = new Map(entries)
      const released: Array<string> = []
      for (const { deliveryId, token } of claims) {
        const entry = next.get(deliveryId)
        if (entry === undefined || entry.claimToken !== token) continue
        next.set(deliveryId, { ...entry, leasedUntil: undefined, claimToken: undefined })
        released.push(deliveryId)
      }
      return [released, next] as const
    })
})

/** The reads: one delivery with its attempts, a rule's deliveries, the failed ones; newest first. */
const reads = (state: Ref.Ref<Entries>): Pick<Outbox, "get" | "listByRule" | "listFailed"> => ({
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
    )
})

/** The operations of webhook health and retention: hold, bulk re-fire, and the retention sweep. */
const operations = (
  state: Ref.Ref<Entries>,
  store: TransitionStore
): Pick<Outbox, "hold" | "refireFailed" | "prune"> => ({
  hold: (claimed, reason) => Effect.flatMap(holdClaimed(store, claimed, reason), Effect.fromResult),

  refireFailed: ({ ruleIds, since, at, limit }) =>
    Effect.gen(function* () {
      const entries = yield* Ref.get(state)
      const failed = [...entries.values()]
        .map((e) => e.delivery)
        .filter(
          (d) =>
            d.status === "failed" &&
            ruleIds.includes(d.rule_id) &&
            millisOf(d.first_attempt_at ?? d.created_at) >= since
        )
      const refired = yield* refireMany(store, failed.slice(0, Math.max(0, limit)), at)
      return { refired, more: failed.length > limit }
    }),

  prune: ({ before, limit }) =>
    Ref.modify(state, (entries) => {
      const next = new Map(entries)
      const finishedBefore = (d: Delivery) =>
        d.status !== "pending" && millisOf(d.first_attempt_at ?? d.created_at) < before
      let deliveries = 0
      for (const [id, { delivery }] of entries) {
        if (deliveries >= limit) break
        if (finishedBefore(delivery)) {
          next.delete(id)
          deliveries++
        }
      }
      let attempts = 0
      for (const [id, entry] of next) {
        // An old finished delivery's attempts go with it, in a later batch.
        if (finishedBefore(entry.delivery)) continue
        const kept = entry.attempts.filter((a) => {
          if (attempts >= limit || millisOf(a.started_at) >= before) return true
          attempts++
          return false
        })
        if (kept.length !== entry.attempts.length) next.set(id, { ...entry, attempts: kept })
      }
      return [{ deliveries, attempts }, next] as const
    })
})

/** An empty outbox in a Ref; attempts and refires go through the domain's transitions on `RetryPolicy`. */
function makeMemory() {
  return Effect.gen(function* () {
    const policy = yield* RetryPolicy
    const state = yield* Ref.make<Entries>(new Map())
    const store = guardedStore(state)
    const recordAll = (attempts: ReadonlyArray<AttemptToRecord>) => recordAttempts(store, policy, attempts)

    return DeliveryOutbox.of({
      ...queueing(state),
      recordAttempt: (claimed, input) =>
        Effect.flatMap(recordAll([{ claimed, input }]), ([result]) =>
          Result.isSuccess(result!) ? Effect.succeed(result.success) : Effect.fail(result!.failure)
        ),
      recordAttempts: recordAll,
      ...reads(state),
      refire: (deliveryId, at) => Effect.flatMap(refireStored(store, deliveryId, at), Effect.fromResult),
      ...operations(state, store)
    })
  })
}

/** The outbox in a Ref, on the `RetryPolicy` in context (the spec's schedule unless one is provided). */
const layer: Layer.Layer<DeliveryOutbox> = Layer.effect(DeliveryOutbox, makeMemory())

export const DeliveryOutboxMemory = { layer }
