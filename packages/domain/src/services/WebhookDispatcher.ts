/**
 * Use case: the webhook dispatcher (spec part 3, "Webhook delivery"; part 6,
 * "Signature" and "Retry and idempotency"). Every server process runs one. It
 * claims due deliveries from the outbox, signs each attempt and POSTs it to
 * the rule's URL, then records the outcome. The outbox passes that outcome
 * through the state machine, which gives "delivered", a retry at the
 * schedule's next offset from the initial attempt, or "failed".
 *
 * This is pure Effect over ports. Claims are leases, so any number of
 * processes can share one outbox. A process that dies mid-send leaves its
 * lease to expire, and another process makes the attempt.
 *
 * Choices, and why:
 * - The concurrency bound (`concurrency`) caps the sends in flight. `runOnce`
 *   claims no more than that and starts every send at once, so a send always
 *   begins well inside its lease. `run` keeps up to `concurrency` sends in
 *   flight and claims again as slots free up. A receiver that hangs for its
 *   whole 10 s therefore holds one slot instead of stalling a batch.
 * - Each attempt gets fresh headers: `webhook-timestamp` is the clock at the
 *   start of the attempt and `webhook-id` is the stable delivery_id, so
 *   receivers can refuse replays and still dedupe retries.
 * - The transport is expected to stop at the receiver timeout. As a guard for
 *   the lease, a send still running `TransportGraceMs` later is cut off and
 *   recorded as a timeout. Otherwise a stuck send could outlive its lease and
 *   another process would attempt the same delivery at the same time.
 * - If the rule was deleted after the delivery was enqueued, nothing is sent.
 *   The attempt is recorded as a NoResponse `target_refused` with the message
 *   "alert rule deleted", so the delivery runs its schedule and ends `failed`
 *   like any other delivery that never reached a receiver. The state machine
 *   has no "fail now" transition, and adding one would create a second way to
 *   reach `failed`. Rule ids are never reused, so the remaining attempts can
 *   reach no one; each costs one lookup.
 * - The loop never dies because of one delivery. If recording an attempt
 *   fails (a store defect, or a stale claim), the failure is logged and the
 *   delivery comes back when its lease ends. If a claim fails, it is logged
 *   and retried at the next poll.
 * - Logs carry delivery_id, rule_id, outcome and error only. The URL (which
 *   may carry a token), the headers, the body and the key are never logged.
 * - `policy` must be the policy the outbox layer was built with. The outbox
 *   applies the retry offsets; the dispatcher reads the receiver timeout from
 *   the policy, and wakes at the retry times it records. With a scaled policy
 *   the retries therefore run on time even when they are closer together
 *   than `pollInterval`.
 */
import { Cause, Clock, Context, Duration, Effect, FiberSet, Latch, Layer, Option } from "effect"
import { type Delivery, millisOf, noResponse, type TransportOutcome } from "../model/Delivery.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DefaultLeaseMs, DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { Signer } from "../ports/Signer.ts"
import { WebhookTransport, type WebhookRequest } from "../ports/WebhookTransport.ts"
import type { AttemptRecorded } from "../webhooks/DeliveryStateMachine.ts"
import { DefaultRetryPolicy, type RetryPolicy } from "../webhooks/RetrySchedule.ts"
import { deliveryHeaders } from "../webhooks/WebhookSignature.ts"

/** How long past the receiver timeout a send may run before the dispatcher cuts it off. */
export const TransportGraceMs = 5_000

/** The message recorded, with reason `target_refused`, for an attempt whose rule no longer exists. */
export const RuleDeletedMessage = "alert rule deleted"

export const DefaultConcurrency = 16

export const DefaultPollInterval: Duration.Input = "1 second"

export interface WebhookDispatcherOptions {
  /** The policy the outbox runs on; the dispatcher reads its receiver timeout. */
  readonly policy?: RetryPolicy | undefined
  /** Most sends in flight at once in this process (default 16). */
  readonly concurrency?: number | undefined
  /** The longest `run` waits between claims when there is nothing to do (default 1 s). */
  readonly pollInterval?: Duration.Input | undefined
  /** The lease of each claim (default `DefaultLeaseMs`); it must cover a whole send and its recording. */
  readonly leaseMs?: number | undefined
}

/** What one `runOnce` did. */
export interface DispatchSummary {
  readonly claimed: number
  readonly delivered: number
  /** Attempts that failed with retries left: the delivery waits for its next offset. */
  readonly retrying: number
  /** Attempts that failed the final retry: the delivery is now `failed`. */
  readonly failed: number
  /** Attempts whose outcome could not be recorded; the delivery returns when its lease ends. */
  readonly abandoned: number
}

export class WebhookDispatcher extends Context.Service<
  WebhookDispatcher,
  {
    /** Claims up to `concurrency` due deliveries at the clock's now, and attempts them all concurrently. */
    readonly runOnce: Effect.Effect<DispatchSummary>
    /** Dispatches forever: claims as send slots free up, and sleeps while nothing is due. */
    readonly run: Effect.Effect<never>
    /**
     * Enqueues a new delivery already claimed by this caller and makes its
     * initial attempt at once, outside the concurrency bound. Used by the
     * test-webhook route, which reports on the attempt. If the attempt is
     * interrupted, the delivery stays in the outbox and the dispatcher
     * attempts it when the lease ends.
     */
    readonly deliverNow: (delivery: Delivery) => Effect.Effect<AttemptRecorded>
  }
>()("@ratings/domain/services/WebhookDispatcher") {
  /** The dispatcher with its `run` loop forked for the lifetime of the layer. */
  static readonly layer = (
    options: WebhookDispatcherOptions = {}
  ): Layer.Layer<
    WebhookDispatcher,
    never,
    AlertRuleRepository | DeliveryOutbox | Signer | WebhookTransport
  > =>
    Layer.effect(
      WebhookDispatcher,
      Effect.gen(function* () {
        const dispatcher = yield* make(options)
        yield* Effect.forkScoped(dispatcher.run)
        return dispatcher
      })
    )

  /**
   * The dispatcher without a background loop, for processes that only make
   * one-off attempts (CLI commands, HTTP tests) and for tests that call
   * `runOnce` themselves.
   */
  static readonly layerWithoutLoop = (
    options: WebhookDispatcherOptions = {}
  ): Layer.Layer<
    WebhookDispatcher,
    never,
    AlertRuleRepository | DeliveryOutbox | Signer | WebhookTransport
  > => Layer.effect(WebhookDispatcher, make(options))
}

const checkOptions = (options: WebhookDispatcherOptions) => {
  const policy = options.policy ?? DefaultRetryPolicy
  const concurrency = options.concurrency ?? DefaultConcurrency
  const pollMs = Duration.toMillis(Duration.fromInputUnsafe(options.pollInterval ?? DefaultPollInterval))
  const leaseMs = options.leaseMs ?? DefaultLeaseMs
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`dispatcher concurrency must be a whole number >= 1, got ${concurrency}`)
  }
  if (!Number.isFinite(pollMs) || pollMs <= 0) {
    throw new RangeError(`dispatcher poll interval must be finite and > 0, got ${pollMs} ms`)
  }
  // A send may run to the timeout plus the grace; the lease must outlast it with room to record.
  if (!(leaseMs > 2 * (policy.receiverTimeoutMs + TransportGraceMs))) {
    throw new RangeError(
      `dispatcher lease (${leaseMs} ms) must exceed twice the receiver timeout plus grace ` +
        `(${2 * (policy.receiverTimeoutMs + TransportGraceMs)} ms)`
    )
  }
  return { policy, concurrency, pollMs, leaseMs }
}

const make = (options: WebhookDispatcherOptions) =>
  Effect.gen(function* () {
    // Bad options are a wiring bug: a defect when the layer is built.
    const { policy, concurrency, pollMs, leaseMs } = yield* Effect.sync(() => checkOptions(options))
    const outbox = yield* DeliveryOutbox
    const rules = yield* AlertRuleRepository
    const signer = yield* Signer
    const transport = yield* WebhookTransport

    /** The transport's answer, or a timeout if it overruns its own timeout by the grace. */
    const send = (request: WebhookRequest, startedAt: number) =>
      transport.send(request).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(request.timeoutMs + TransportGraceMs),
          orElse: () =>
            Effect.map(Clock.currentTimeMillis, (now) =>
              noResponse("timeout", now - startedAt, "the transport did not stop at the receiver timeout")
            )
        })
      )

    /** One attempt of a claimed delivery: sign, send, record. */
    const attempt = Effect.fn("WebhookDispatcher.attempt")(function* (claimed: Delivery) {
      const at = yield* Clock.currentTimeMillis
      const destination = yield* Effect.option(rules.destination(claimed.rule_id))
      const outcome: TransportOutcome = Option.isNone(destination)
        ? noResponse("target_refused", 0, RuleDeletedMessage)
        : yield* send(
            {
              url: destination.value.webhook_url,
              headers: { ...deliveryHeaders(claimed, destination.value.signing_key, at / 1_000, signer) },
              body: claimed.body,
              timeoutMs: policy.receiverTimeoutMs
            },
            at
          )
      const recorded = yield* outbox.recordAttempt(claimed, { at, outcome })
      const { delivery, attempt } = recorded
      const annotations = {
        delivery_id: delivery.delivery_id,
        rule_id: delivery.rule_id,
        cycle: attempt.cycle,
        attempt: attempt.attempt,
        outcome: attempt.outcome
      }
      if (delivery.status === "delivered") {
        yield* Effect.logDebug("webhook delivered").pipe(Effect.annotateLogs(annotations))
      } else if (delivery.status === "failed") {
        yield* Effect.logWarning("webhook delivery failed: retries exhausted").pipe(
          Effect.annotateLogs({ ...annotations, error: attempt.error })
        )
      } else {
        yield* Effect.logInfo("webhook attempt failed; retry scheduled").pipe(
          Effect.annotateLogs({
            ...annotations,
            error: attempt.error,
            next_attempt_at: delivery.next_attempt_at
          })
        )
      }
      return recorded
    })

    /**
     * An attempt that never fails: anything but interruption is logged and
     * reported as undefined, and the delivery comes back when its lease ends.
     */
    const attemptSafely = (claimed: Delivery): Effect.Effect<AttemptRecorded | undefined> =>
      attempt(claimed).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.as(
                Effect.logError(
                  "webhook attempt not recorded; the delivery returns when its claim expires",
                  cause
                ).pipe(Effect.annotateLogs({ delivery_id: claimed.delivery_id, rule_id: claimed.rule_id })),
                undefined
              )
        )
      )

    const claim = (at: number, limit: number): Effect.Effect<ReadonlyArray<Delivery>> =>
      outbox
        .claimDue({ at, limit, leaseMs })
        .pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.interrupt
              : Effect.as(Effect.logError("webhook dispatcher could not claim deliveries", cause), [])
          )
        )

    const runOnce: Effect.Effect<DispatchSummary> = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* claim(now, concurrency)
      const results = yield* Effect.forEach(claimed, attemptSafely, { concurrency })
      const summary = { claimed: claimed.length, delivered: 0, retrying: 0, failed: 0, abandoned: 0 }
      for (const result of results) {
        if (result === undefined) summary.abandoned++
        else if (result.delivery.status === "delivered") summary.delivered++
        else if (result.delivery.status === "failed") summary.failed++
        else summary.retrying++
      }
      return summary
    }).pipe(Effect.withSpan("WebhookDispatcher.runOnce"))

    /**
     * The loop. Its state is local, and fibers only interleave at effect
     * boundaries, so plain variables are enough:
     * - `inFlight`: the sends running now;
     * - `dueTimes`: the retry times this process has recorded, so that it
     *   wakes exactly when one falls due instead of at the next poll;
     * - `wakeAt`: when the current sleep ends (-Infinity while not
     *   sleeping). An attempt that records an earlier retry opens `kick`;
     * - `waitingForSlot`: the loop is blocked on a full house, and the next
     *   attempt that finishes opens `kick`.
     */
    const run: Effect.Effect<never> = Effect.scoped(
      Effect.gen(function* () {
        const fibers = yield* FiberSet.make<void>()
        const kick = yield* Latch.make(false)
        const dueTimes = new Set<number>()
        let inFlight = 0
        let wakeAt = Number.NEGATIVE_INFINITY
        let waitingForSlot = false

        const settle = (result: AttemptRecorded | undefined) =>
          Effect.suspend(() => {
            inFlight--
            let wake = waitingForSlot
            if (result !== undefined && result.delivery.status === "pending") {
              const due = millisOf(result.delivery.next_attempt_at!)
              dueTimes.add(due)
              if (due < wakeAt) wake = true
            }
            return wake ? Effect.asVoid(kick.open) : Effect.void
          })

        /** The earliest recorded retry after `now`; times already past are dropped (claimed, or claimed elsewhere). */
        const soonestDue = (now: number): number => {
          let soonest = Number.POSITIVE_INFINITY
          for (const due of dueTimes) {
            if (due <= now) dueTimes.delete(due)
            else if (due < soonest) soonest = due
          }
          return soonest
        }

        for (;;) {
          yield* kick.close
          wakeAt = Number.NEGATIVE_INFINITY
          const free = concurrency - inFlight
          if (free <= 0) {
            waitingForSlot = true
            yield* kick.await
            waitingForSlot = false
            continue
          }
          const now = yield* Clock.currentTimeMillis
          const claimed = yield* claim(now, free)
          for (const delivery of claimed) {
            inFlight++
            yield* FiberSet.run(fibers, Effect.flatMap(attemptSafely(delivery), settle))
          }
          // Every free slot got work: more may be due at once.
          if (claimed.length === free) continue
          // Any attempt that settles from here on with an earlier retry cuts the sleep short.
          wakeAt = Number.POSITIVE_INFINITY
          const at = yield* Clock.currentTimeMillis
          const wait = Math.max(0, Math.min(pollMs, soonestDue(at) - at))
          wakeAt = at + wait
          if (wait > 0) yield* Effect.raceFirst(Effect.sleep(Duration.millis(wait)), kick.await)
        }
      })
    )

    const deliverNow = Effect.fn("WebhookDispatcher.deliverNow")(function* (delivery: Delivery) {
      const at = yield* Clock.currentTimeMillis
      const claimed = yield* outbox.enqueueClaimed(delivery, { at, leaseMs })
      // We hold a fresh lease on a fresh delivery, so a refused record is a bug, not an outcome.
      return yield* Effect.orDie(attempt(claimed))
    })

    return WebhookDispatcher.of({ runOnce, run, deliverNow })
  })
