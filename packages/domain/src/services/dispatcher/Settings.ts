/**
 * The WebhookDispatcher's settings and the shapes its parts share: the
 * defaults, the options checked when the layer is built, and what a claimed
 * delivery carries. See WebhookDispatcher.ts for the choices behind them.
 */
import { Duration, type Effect } from "effect"
import type { Delivery } from "../../model/Delivery.ts"
import type { AlertRuleRepository, RuleDestination } from "../../ports/AlertRuleRepository.ts"
import { DefaultLeaseMs, type DeliveryOutbox } from "../../ports/DeliveryOutbox.ts"
import type { Signer } from "../../ports/Signer.ts"
import type { WebhookTransport } from "../../ports/WebhookTransport.ts"
import { type AttemptSeen, DefaultDisableAfterMs } from "../../webhooks/EndpointHealth.ts"
import type { RetryPolicy } from "../../webhooks/RetrySchedule.ts"

/** How long past the receiver timeout a send may run before the dispatcher cuts it off. */
export const TransportGraceMs = 5_000

/** The last_error of a delivery held unsent because its endpoint is disabled. */
export const EndpointDisabledMessage = "not sent: the rule's endpoint is disabled; enable it to send"

/** The message recorded, with reason `target_refused`, for an attempt whose rule no longer exists. */
export const RuleDeletedMessage = "alert rule deleted"

/** Sends are network-bound and cheap to hold open, so a process keeps many in flight. */
export const DefaultConcurrency = 256

/** Sends in flight to one destination host (scheme, host and port) at once in each process (default of `hostConcurrency`). */
export const DefaultHostConcurrency = 64

export const DefaultPollInterval: Duration.Input = "1 second"

/**
 * How many deliveries `run` holds per send slot: being attempted, or claimed
 * and ready to start the moment a slot frees up.
 */
export const ReadyPerSlot = 4

/** `run` claims only when at least this many deliveries per slot fit in what it holds. */
export const ClaimPerSlot = 2

/**
 * Deliveries `run` holds per send slot at most, counting those waiting for a
 * host at its bound: past this it stops claiming even for other hosts.
 */
export const HeldPerSlot = 16

/** Attempts recorded in one call to the outbox at most. */
export const MaxRecordBatch = 256

/** Calls to record attempts in flight at once at most (each a batch). */
export const MaxRecordWriters = 4

/** Attempts waiting to be recorded that start another writer, while one is writing. */
export const RecordBatchForWriter = 32

/**
 * The same for the loop's sends (SentRecorder.ts): a statement and its commit
 * cost far more than a row, and the loop's window holds what waits, so
 * another writer starts only once a whole batch waits.
 */
export const SentBatchForWriter = MaxRecordBatch

export interface WebhookDispatcherOptions {
  /** Most attempts (send and record) in flight at once in this process (default 256). */
  readonly concurrency?: number | undefined
  /**
   * Most attempts in flight at once to one destination host (scheme, host
   * and port) in this process (default 64); the others wait without a slot.
   */
  readonly hostConcurrency?: number | undefined
  /** The longest `run` waits between claims when there is nothing to do (default 1 s). */
  readonly pollInterval?: Duration.Input | undefined
  /** The lease of each claim (default `DefaultLeaseMs`); it must cover a whole send and its recording. */
  readonly leaseMs?: number | undefined
  /**
   * When the layer closes (the server stops): how long the attempts in
   * flight may take to finish and be recorded before they are interrupted
   * and left to their leases; deliveries claimed but not started are handed
   * back meanwhile (default 0: interrupted at once, everything claimed left
   * to its lease).
   */
  readonly stopGrace?: Duration.Input | undefined
  /** How long every attempt to an endpoint must have failed before it is disabled (default 5 days). */
  readonly disableAfter?: Duration.Input | undefined
}

/** What one `runOnce` did. */
export interface DispatchSummary {
  readonly claimed: number
  readonly delivered: number
  /** Attempts that failed with retries left: the delivery waits for its next offset. */
  readonly retrying: number
  /** Attempts that failed the final retry, and deliveries of disabled endpoints held unsent: now `failed`. */
  readonly failed: number
  /** Attempts whose outcome could not be recorded; the delivery returns when its lease ends. */
  readonly abandoned: number
}

/** The options with their defaults, refused (a RangeError) when they cannot work together. */
export const checkOptions = (options: WebhookDispatcherOptions, policy: RetryPolicy) => {
  const concurrency = options.concurrency ?? DefaultConcurrency
  const hostConcurrency = options.hostConcurrency ?? DefaultHostConcurrency
  const pollMs = Duration.toMillis(Duration.fromInputUnsafe(options.pollInterval ?? DefaultPollInterval))
  const leaseMs = options.leaseMs ?? DefaultLeaseMs
  const stopGraceMs = Duration.toMillis(Duration.fromInputUnsafe(options.stopGrace ?? 0))
  const disableAfterMs = Duration.toMillis(
    Duration.fromInputUnsafe(options.disableAfter ?? Duration.millis(DefaultDisableAfterMs))
  )
  if (!Number.isFinite(disableAfterMs) || disableAfterMs <= 0) {
    throw new RangeError(`dispatcher disable-after period must be finite and > 0, got ${disableAfterMs} ms`)
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`dispatcher concurrency must be a whole number >= 1, got ${concurrency}`)
  }
  if (!Number.isInteger(hostConcurrency) || hostConcurrency < 1) {
    throw new RangeError(`dispatcher host concurrency must be a whole number >= 1, got ${hostConcurrency}`)
  }
  if (!Number.isFinite(pollMs) || pollMs <= 0) {
    throw new RangeError(`dispatcher poll interval must be finite and > 0, got ${pollMs} ms`)
  }
  if (!Number.isFinite(stopGraceMs) || stopGraceMs < 0) {
    throw new RangeError(`dispatcher stop grace must be finite and >= 0, got ${stopGraceMs} ms`)
  }
  // A send may run to the timeout plus the grace; the lease must outlast it with room to record.
  if (!(leaseMs > 2 * (policy.receiverTimeoutMs + TransportGraceMs))) {
    throw new RangeError(
      `dispatcher lease (${leaseMs} ms) must exceed twice the receiver timeout plus grace ` +
        `(${2 * (policy.receiverTimeoutMs + TransportGraceMs)} ms)`
    )
  }
  return { concurrency, hostConcurrency, pollMs, leaseMs, stopGraceMs, disableAfterMs }
}

/** What the dispatcher works with: its ports and the retry policy in context. */
export interface DispatcherPorts {
  readonly outbox: DeliveryOutbox["Service"]
  readonly rules: AlertRuleRepository["Service"]
  readonly signer: Signer["Service"]
  readonly transport: WebhookTransport["Service"]
  readonly policy: RetryPolicy
  /** Queues what an attempt showed of its endpoint's health (HealthBatch); never waits. */
  readonly health: (seen: AttemptSeen) => Effect.Effect<void>
}

/** A claimed delivery with where it goes; no destination means its rule was deleted. */
export interface Claimed {
  readonly delivery: Delivery
  readonly destination: RuleDestination | undefined
}
