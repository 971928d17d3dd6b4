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
 * - The concurrency bound (`concurrency`) caps the attempts in flight, each
 *   a send and the record of its outcome: a slot is free only once the
 *   outcome is in the outbox. The next request from a slot thus follows the
 *   previous one's record, not its last byte, and a receiver, however late
 *   it notices that a response is done, sees at most `concurrency` requests
 *   of this process at a time. A receiver that hangs for its whole 10 s
 *   holds one slot instead of stalling a batch. `runOnce` claims no more than `concurrency` and starts
 *   every attempt at once, so a send always begins well inside its lease.
 * - A busy dispatcher is limited by its round trips to the store, not by
 *   HTTP, so they are shared by many deliveries:
 *   - `run` claims ahead. Besides the attempts in flight it holds claimed
 *     deliveries ready to start the moment a slot frees up (up to
 *     `ReadyPerSlot` per slot in all), and claims only when at least
 *     `ClaimPerSlot` per slot fit. A claim is then one round trip for many
 *     deliveries, made while the slots are busy, and no slot waits for it.
 *     A ready delivery that could not start in time to end well inside its
 *     lease (receivers hanging in every slot for a long while) is not sent;
 *     it returns when its lease ends.
 *   - The rules of a claimed batch are read in one lookup (`destinations`).
 *   - Outcomes are recorded in batches, group-commit style: an outcome that
 *     arrives while no batch is being written is written at once, and those
 *     that arrive meanwhile are written together next (`recordAttempts`,
 *     each judged on its own, so a stale claim is refused alone). No timer
 *     is involved: a lone outcome is recorded without delay, and a batch is
 *     as large as the store is slow.
 * - Each attempt gets fresh headers: `webhook-timestamp` is the clock at the
 *   start of the attempt and `webhook-id` is the stable delivery_id, so
 *   receivers can refuse replays and still dedupe retries.
 * - The transport is expected to stop at the receiver timeout. As a guard for
 *   the lease, a send still running `TransportGraceMs` later is cut off and
 *   recorded as a timeout. Otherwise a stuck send could outlive its lease and
 *   another process would attempt the same delivery at the same time.
 * - If the rule was deleted after the delivery was enqueued (its rule is not
 *   found when the delivery is claimed), nothing is sent.
 *   The attempt is recorded as a NoResponse `target_refused` with the message
 *   "alert rule deleted", so the delivery runs its schedule and ends `failed`
 *   like any other delivery that never reached a receiver. The state machine
 *   has no "fail now" transition, and adding one would create a second way to
 *   reach `failed`. Rule ids are never reused, so the remaining attempts can
 *   reach no one.
 * - The loop never dies because of one delivery. If recording an attempt
 *   fails (a store defect, or a stale claim), the failure is logged and the
 *   delivery comes back when its lease ends. If a claim fails, it is logged
 *   and retried at the next poll; if reading the rules of a claimed batch
 *   fails, nothing of it is sent and it comes back when its leases end.
 * - `deliverNow` records its own attempt directly, not in a batch: it answers
 *   a person waiting on the test-webhook route, and never waits on (or is
 *   interrupted with) the loop's recording.
 * - Logs carry delivery_id, rule_id, outcome and error only. The URL (which
 *   may carry a token), the headers, the body and the key are never logged.
 * - The retry policy is the `RetryPolicy` in context, the one the outbox
 *   reads too: the outbox applies its offsets through the state machine; the
 *   dispatcher reads the receiver timeout from it, and wakes at the retry
 *   times it records. With a scaled policy the retries therefore run on time
 *   even when they are closer together than `pollInterval`.
 */
import {
  Cause,
  Clock,
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  FiberSet,
  Latch,
  Layer,
  Option,
  Result
} from "effect"
import {
  type Delivery,
  type DeliveryNotFound,
  type DeliveryTransitionRejected,
  millisOf,
  noResponse,
  type TransportOutcome
} from "../model/Delivery.ts"
import { AlertRuleRepository, type RuleDestination } from "../ports/AlertRuleRepository.ts"
import { type AttemptToRecord, DefaultLeaseMs, DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { Signer } from "../ports/Signer.ts"
import { WebhookTransport, type WebhookRequest } from "../ports/WebhookTransport.ts"
import type { AttemptRecorded } from "../webhooks/DeliveryStateMachine.ts"
import { RetryPolicy } from "../webhooks/RetrySchedule.ts"
import { deliveryHeaders } from "../webhooks/WebhookSignature.ts"

/** How long past the receiver timeout a send may run before the dispatcher cuts it off. */
export const TransportGraceMs = 5_000

/** The message recorded, with reason `target_refused`, for an attempt whose rule no longer exists. */
export const RuleDeletedMessage = "alert rule deleted"

export const DefaultConcurrency = 16

export const DefaultPollInterval: Duration.Input = "1 second"

/**
 * How many deliveries `run` holds per send slot: being attempted, or claimed
 * and ready to start the moment a slot frees up.
 */
export const ReadyPerSlot = 4

/** `run` claims only when at least this many deliveries per slot fit in what it holds. */
export const ClaimPerSlot = 2

/** Attempts recorded in one call to the outbox at most. */
export const MaxRecordBatch = 256

export interface WebhookDispatcherOptions {
  /** Most attempts (send and record) in flight at once in this process (default 16). */
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
    /** Dispatches forever: claims ahead of its send slots, and sleeps while nothing is due. */
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

const checkOptions = (options: WebhookDispatcherOptions, policy: RetryPolicy) => {
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
  return { concurrency, pollMs, leaseMs }
}

/** A claimed delivery with where it goes; no destination means its rule was deleted. */
interface Claimed {
  readonly delivery: Delivery
  readonly destination: RuleDestination | undefined
}

/** A finished attempt waiting to be recorded with the next batch. */
interface QueuedRecord {
  readonly attempt: AttemptToRecord
  readonly done: Deferred.Deferred<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>
}

const make = (options: WebhookDispatcherOptions) =>
  Effect.gen(function* () {
    // Bad options are a wiring bug: a defect when the layer is built.
    const policy = yield* RetryPolicy
    const { concurrency, pollMs, leaseMs } = yield* Effect.sync(() => checkOptions(options, policy))
    const outbox = yield* DeliveryOutbox
    const rules = yield* AlertRuleRepository
    const signer = yield* Signer
    const transport = yield* WebhookTransport
    // `run` holds up to `window` deliveries (being attempted, or claimed and ready), and claims
    // only when at least `claimBatch` fit: one claim for many deliveries, made while the slots
    // are still busy with the previous ones.
    const window = ReadyPerSlot * concurrency
    const claimBatch = ClaimPerSlot * concurrency
    // A ready delivery must start early enough that its send, cut off at the timeout plus the
    // grace, still ends that long before its lease does: the margin a claim sent at once has.
    const startDeadlineMs = leaseMs - 2 * (policy.receiverTimeoutMs + TransportGraceMs)

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

    /**
     * Group commit of attempt outcomes. An attempt that finishes while no
     * batch is being written starts a writer: a fiber of the dispatcher that
     * takes everything queued, writes it in one call, and keeps taking what
     * queued up meanwhile until the queue is empty. Every attempt only waits
     * for its own result, so its slot is free as soon as that is in. One
     * writer at a time keeps the batches large: a statement costs far more
     * than a row. State is plain variables: fibers interleave only at effect
     * boundaries, and none lies between checking and setting them.
     */
    const writers = yield* FiberSet.make<void>()
    const queued: Array<QueuedRecord> = []
    let writing = false

    const writeQueued: Effect.Effect<void> = Effect.suspend(() => {
      let batch: Array<QueuedRecord> = []
      return Effect.gen(function* () {
        while (queued.length > 0) {
          batch = queued.splice(0, MaxRecordBatch)
          const exit = yield* Effect.exit(outbox.recordAttempts(batch.map((q) => q.attempt)))
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
          batch = []
        }
      }).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            writing = false
            if (Exit.isSuccess(exit)) return
            // The writer was interrupted (the dispatcher is stopping): nobody writes the rest, so
            // those attempts end as not recorded, and the deliveries return when their leases end.
            const defect = Effect.die(new Error("recording stopped: the dispatcher is shutting down"))
            for (const { done } of [...batch, ...queued.splice(0)]) Deferred.doneUnsafe(done, defect)
          })
        )
      )
    })

    const recordInBatch = (attempt: AttemptToRecord) =>
      Effect.suspend(() => {
        const done = Deferred.makeUnsafe<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>()
        queued.push({ attempt, done })
        if (writing) return Deferred.await(done)
        writing = true
        return Effect.andThen(FiberSet.run(writers, writeQueued), Deferred.await(done))
      })

    const recordAlone = (attempt: AttemptToRecord) => outbox.recordAttempt(attempt.claimed, attempt.input)

    /**
     * One attempt of a claimed delivery: sign, send, record. Traced as
     * `WebhookDispatcher.attempt`, but without the call-site stack trace
     * `Effect.fn` captures: this runs for every delivery.
     */
    const attempt = Effect.fnUntraced(
      function* (
        { delivery: claimed, destination }: Claimed,
        record: (
          attempt: AttemptToRecord
        ) => Effect.Effect<AttemptRecorded, DeliveryNotFound | DeliveryTransitionRejected>
      ) {
        const at = yield* Clock.currentTimeMillis
        const outcome: TransportOutcome = yield* destination === undefined
          ? Effect.succeed(noResponse("target_refused", 0, RuleDeletedMessage))
          : send(
              {
                url: destination.webhook_url,
                headers: { ...deliveryHeaders(claimed, destination.signing_key, at / 1_000, signer) },
                body: claimed.body,
                timeoutMs: policy.receiverTimeoutMs
              },
              at
            )
        const recorded = yield* record({ claimed, input: { at, outcome } })
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
      },
      (effect) => Effect.withSpan(effect, "WebhookDispatcher.attempt", { captureStackTrace: false })
    )

    /**
     * An attempt of the loop (or of `runOnce`) that never fails: anything but
     * interruption is logged and reported as undefined, and the delivery comes
     * back when its lease ends.
     */
    const attemptSafely = (claimed: Claimed): Effect.Effect<AttemptRecorded | undefined> =>
      attempt(claimed, recordInBatch).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.as(
                Effect.logError(
                  "webhook attempt not recorded; the delivery returns when its claim expires",
                  cause
                ).pipe(
                  Effect.annotateLogs({
                    delivery_id: claimed.delivery.delivery_id,
                    rule_id: claimed.delivery.rule_id
                  })
                ),
                undefined
              )
        )
      )

    /**
     * Up to `limit` due deliveries with their destinations, or none if the
     * claim failed. `lost` counts deliveries claimed whose rules could not be
     * read: nothing of them is sent, and they return when their leases end.
     */
    const claim = (
      at: number,
      limit: number
    ): Effect.Effect<{ readonly claimed: ReadonlyArray<Claimed>; readonly lost: number }> =>
      outbox.claimDue({ at, limit, leaseMs }).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.as(Effect.logError("webhook dispatcher could not claim deliveries", cause), [])
        ),
        Effect.flatMap((deliveries) =>
          deliveries.length === 0
            ? Effect.succeed({ claimed: [], lost: 0 })
            : rules.destinations([...new Set(deliveries.map((d) => d.rule_id))]).pipe(
                Effect.map((destinations) => ({
                  claimed: deliveries.map((delivery) => ({
                    delivery,
                    destination: destinations.get(delivery.rule_id)
                  })),
                  lost: 0
                })),
                Effect.catchCause((cause) =>
                  Cause.hasInterruptsOnly(cause)
                    ? Effect.interrupt
                    : Effect.as(
                        Effect.logError(
                          "webhook dispatcher could not read the rules of claimed deliveries; they return when their claims expire",
                          cause
                        ).pipe(Effect.annotateLogs({ deliveries: deliveries.length })),
                        { claimed: [], lost: deliveries.length }
                      )
                )
              )
        )
      )

    const runOnce: Effect.Effect<DispatchSummary> = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const { claimed, lost } = yield* claim(now, concurrency)
      const results = yield* Effect.forEach(claimed, attemptSafely, { concurrency })
      const summary = {
        claimed: claimed.length + lost,
        delivered: 0,
        retrying: 0,
        failed: 0,
        abandoned: lost
      }
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
     * - `inFlight`: the attempts running now (at most `concurrency`), each a
     *   send and the record of its outcome;
     * - `ready`: claimed deliveries waiting for a slot, with when they were
     *   claimed. An attempt that ends starts the next one at once, so slots
     *   never wait for a claim's round trip;
     * - `dueTimes`: the retry times this process has recorded, so that it
     *   wakes exactly when one falls due instead of at the next poll;
     * - `wakeAt`: when the current sleep ends (-Infinity while not
     *   sleeping). An attempt that records an earlier retry opens `kick`;
     * - `waitingForRoom`: the loop waits for the window to empty enough for
     *   a claim, and the next attempt that ends opens `kick`.
     */
    const run: Effect.Effect<never> = Effect.scoped(
      Effect.gen(function* () {
        const fibers = yield* FiberSet.make<void>()
        const kick = yield* Latch.make(false)
        const dueTimes = new Set<number>()
        const ready: Array<{ readonly claimed: Claimed; readonly at: number }> = []
        let inFlight = 0
        let wakeAt = Number.NEGATIVE_INFINITY
        let waitingForRoom = false

        /** Starts ready deliveries in the free slots; one claimed too long ago is left to its lease. */
        const startReady: Effect.Effect<void> = Effect.gen(function* () {
          while (inFlight < concurrency && ready.length > 0) {
            const next = ready.shift()!
            const now = yield* Clock.currentTimeMillis
            if (now - next.at > startDeadlineMs) {
              yield* Effect.logWarning(
                "webhook delivery not attempted: it waited too long for a send slot; it returns when its claim expires"
              ).pipe(
                Effect.annotateLogs({
                  delivery_id: next.claimed.delivery.delivery_id,
                  rule_id: next.claimed.delivery.rule_id
                })
              )
              continue
            }
            inFlight++
            yield* FiberSet.run(fibers, Effect.flatMap(attemptSafely(next.claimed), settle))
          }
        })

        /**
         * The attempt is over (sent and recorded, or given up): its slot takes
         * the next ready delivery, the window has room for one more, and a retry
         * it scheduled before the current wake-up cuts the sleep short.
         */
        const settle = (result: AttemptRecorded | undefined) =>
          Effect.suspend(() => {
            inFlight--
            let wake = waitingForRoom
            if (result !== undefined && result.delivery.status === "pending") {
              const due = millisOf(result.delivery.next_attempt_at!)
              dueTimes.add(due)
              if (due < wakeAt) wake = true
            }
            return Effect.andThen(startReady, wake ? Effect.asVoid(kick.open) : Effect.void)
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
          const room = window - inFlight - ready.length
          // Claim only for a batch. While waiting, more than `concurrency` deliveries are
          // in flight or ready, so no slot is idle for want of a claim.
          if (room < claimBatch) {
            waitingForRoom = true
            yield* kick.await
            waitingForRoom = false
            continue
          }
          const now = yield* Clock.currentTimeMillis
          const { claimed } = yield* claim(now, room)
          for (const c of claimed) ready.push({ claimed: c, at: now })
          yield* startReady
          // The window was filled: more may be due at once.
          if (claimed.length === room) continue
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
      const destination = yield* Effect.option(rules.destination(claimed.rule_id))
      // We hold a fresh lease on a fresh delivery, so a refused record is a bug, not an outcome.
      return yield* Effect.orDie(
        attempt({ delivery: claimed, destination: Option.getOrUndefined(destination) }, recordAlone)
      )
    })

    return WebhookDispatcher.of({ runOnce, run, deliverNow })
  })
