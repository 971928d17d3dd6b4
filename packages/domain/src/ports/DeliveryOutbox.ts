/**
 * Port: the durable outbox of webhook deliveries and their attempt log.
 * Workers `claimDue` deliveries, send them, and `recordAttempt`. A claim is a
 * lease: while it runs no other claim returns the same delivery, so any
 * number of workers (and server processes) can share one outbox, and a
 * worker that dies lets its lease expire. Every transition is computed by the
 * domain (webhooks/DeliveryTransitions, on the `RetryPolicy` in context) and
 * handed to the store as a guarded write, so an attempt is never counted
 * twice. Production: adapters-sql (claims with `FOR UPDATE SKIP LOCKED` and a
 * lease column). `DeliveryOutboxMemory.layer` (memory/DeliveryOutboxMemory.ts)
 * keeps it all in a Ref.
 */
import { Context, type Effect, type Result } from "effect"
import type {
  Delivery,
  DeliveryNotFound,
  DeliveryTransitionRejected,
  DeliveryWithAttempts
} from "../model/Delivery.ts"
import type { AttemptInput, AttemptRecorded } from "../webhooks/DeliveryStateMachine.ts"
import type { ClaimedAttempt } from "../webhooks/DeliveryTransitions.ts"
import { ReceiverTimeoutMs } from "../webhooks/RetrySchedule.ts"

/** Default claim lease: long enough for a send that uses its whole timeout, with room to record it. */
export const DefaultLeaseMs = 6 * ReceiverTimeoutMs

export interface ClaimOptions {
  /** Epoch ms: deliveries due at or before it are claimable. */
  readonly at: number
  readonly limit: number
  readonly leaseMs?: number | undefined
  /**
   * Names the claims of this call, for `releaseClaims`: a token no other
   * claim uses (the dispatcher's are a random id of the process and a
   * counter). Without one, the claims can only end by a record or their lease.
   */
  readonly token?: string | undefined
}

/** A claim its holder hands back: the delivery, and the token of the `claimDue` that took it. */
export interface HeldClaim {
  readonly deliveryId: string
  readonly token: string
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

/**
 * Which failed deliveries a bulk re-fire takes: of these rules, failed since
 * `since` (epoch ms): their last cycle began then or later (one never
 * attempted, held unsent: created then or later).
 */
export interface RefireFailedOptions {
  readonly ruleIds: ReadonlyArray<string>
  readonly since: number
  /** Epoch ms the re-fired deliveries are due. */
  readonly at: number
  /** Most deliveries re-fired by this call. */
  readonly limit: number
}

/** A bulk re-fire: the deliveries re-fired (oldest first), and whether more failed ones remain. */
export interface RefireBatch {
  readonly refired: ReadonlyArray<Delivery>
  readonly more: boolean
}

/** A retention sweep's batch: finished deliveries (and their attempts), and attempts alone, removed. */
export interface Pruned {
  readonly deliveries: number
  readonly attempts: number
}

export class DeliveryOutbox extends Context.Service<
  DeliveryOutbox,
  {
    readonly enqueue: (deliveries: ReadonlyArray<Delivery>) => Effect.Effect<void>
    /**
     * Enqueues one new delivery leased to the caller, so no claim returns it
     * before the caller records its attempt or the lease ends. Its id must be
     * new (ids are fresh UUIDs): an id already in the outbox is a defect. For
     * an attempt made at once (the test-webhook route): enqueueing and then
     * claiming would let a dispatcher take it first.
     */
    readonly enqueueClaimed: (delivery: Delivery, options: EnqueueClaimedOptions) => Effect.Effect<Delivery>
    /** Up to `limit` due, unclaimed deliveries, earliest due first, each leased to the caller. */
    readonly claimDue: (options: ClaimOptions) => Effect.Effect<ReadonlyArray<Delivery>>
    /**
     * Applies an attempt to a claimed delivery and releases the claim; refused
     * when the stored delivery has moved on since the claim (another worker
     * recorded that attempt after the lease expired).
     */
    readonly recordAttempt: (
      claimed: Delivery,
      input: AttemptInput
    ) => Effect.Effect<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>
    /**
     * `recordAttempt` for each attempt, as if one after the other in the
     * given order; one result per attempt, in that order. A refused attempt
     * is refused alone. Only a store failure fails the whole call (a defect),
     * and then any of them may or may not have been recorded. A store applies
     * them together, which lets a busy dispatcher keep up with its receivers.
     */
    readonly recordAttempts: (
      attempts: ReadonlyArray<AttemptToRecord>
    ) => Effect.Effect<ReadonlyArray<AttemptRecordResult>>
    /**
     * Ends the claims still held under their tokens at once: each delivery is
     * claimable again right away (at its due time, unchanged), with no
     * attempt counted. A delivery claimed since with another token, recorded,
     * or unknown is left as it is. Returns the ids of the deliveries released,
     * in the order given. For a worker that claimed more than it will send
     * (a server stopping with deliveries claimed ahead of its send slots).
     */
    readonly releaseClaims: (claims: ReadonlyArray<HeldClaim>) => Effect.Effect<ReadonlyArray<string>>
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
    /**
     * A claimed delivery of a disabled endpoint, recorded as not sent: failed
     * with `reason`, no attempt counted, the claim released. Refused when the
     * stored delivery moved on since the claim.
     */
    readonly hold: (
      claimed: Delivery,
      reason: string
    ) => Effect.Effect<Delivery, DeliveryNotFound | DeliveryTransitionRejected>
    /**
     * Bulk re-fire: up to `limit` failed deliveries of the rules failed since
     * `since` (see `RefireFailedOptions`), in enqueue order, each a new cycle
     * due at `at` with its delivery_id.
     */
    readonly refireFailed: (options: RefireFailedOptions) => Effect.Effect<RefireBatch>
    /**
     * One batch of the retention sweep: removes up to `limit` delivered or
     * failed deliveries whose last cycle started (or, never attempted, which
     * were created) before `before`, with their attempts, then up to `limit`
     * attempts older than `before` of deliveries not themselves that old and
     * finished (earlier cycles of re-fired ones). Never a pending delivery.
     */
    readonly prune: (options: { readonly before: number; readonly limit: number }) => Effect.Effect<Pruned>
    /** Manual re-fire of a failed delivery: a new cycle, the same delivery_id, due at `at`. */
    readonly refire: (
      deliveryId: string,
      at: number
    ) => Effect.Effect<Delivery, DeliveryNotFound | DeliveryTransitionRejected>
  }
>()("@ratings/domain/ports/DeliveryOutbox") {}
