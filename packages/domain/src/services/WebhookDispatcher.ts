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
 * - A stop is graceful (the layer's `stopGrace`): the loop claims nothing
 *   more, and the attempts in flight are sent and recorded if they end within
 *   the grace. Cutting a send instead would leave a request the receiver may
 *   have acted on unrecorded, and it would be sent again once its lease ran
 *   out. Claimed deliveries not yet started are handed back at once
 *   (`releaseClaims`, matched by the token of their claim), so another
 *   process sends them without waiting out a lease; nothing reached a
 *   receiver for them and no attempt is counted. Attempts still running when
 *   the grace ends are left to their leases: the receiver may have acted on
 *   the cut request (or may still be handling it), and the lease keeps a
 *   second copy from following it at once.
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
 *
 * The service is defined here; its parts live beside it in dispatcher/: the
 * settings (Settings.ts), the group commit of outcomes (RecordBatch.ts), one
 * attempt (Attempt.ts), a claim (Claim.ts), and `runOnce` and the loop
 * (RunLoop.ts).
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Delivery } from "../model/Delivery.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { Signer } from "../ports/Signer.ts"
import { WebhookTransport } from "../ports/WebhookTransport.ts"
import type { AttemptRecorded } from "../webhooks/DeliveryStateMachine.ts"
import { RetryPolicy } from "../webhooks/RetrySchedule.ts"
import { attempt, attemptSafely } from "./dispatcher/Attempt.ts"
import { claim, makeClaimTokens, release } from "./dispatcher/Claim.ts"
import { makeRecordBatch } from "./dispatcher/RecordBatch.ts"
import { type Dispatching, runLoop, runOnce, runUntilClosed } from "./dispatcher/RunLoop.ts"
import {
  ClaimPerSlot,
  checkOptions,
  type DispatcherPorts,
  type DispatchSummary,
  ReadyPerSlot,
  TransportGraceMs,
  type WebhookDispatcherOptions
} from "./dispatcher/Settings.ts"

export {
  ClaimPerSlot,
  DefaultConcurrency,
  DefaultPollInterval,
  type DispatchSummary,
  MaxRecordBatch,
  ReadyPerSlot,
  RuleDeletedMessage,
  TransportGraceMs,
  type WebhookDispatcherOptions
} from "./dispatcher/Settings.ts"

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
  /**
   * The dispatcher with its `run` loop forked for the lifetime of the layer.
   * Closing the layer stops the loop gracefully: it claims nothing more,
   * hands back what it claimed but did not start, and its attempts in flight
   * have `stopGrace` to be sent and recorded; what still runs then is
   * interrupted and left to its lease.
   */
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
        const { dispatcher, dispatching, stopGraceMs } = yield* make(options)
        yield* runUntilClosed(dispatching, stopGraceMs)
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
  > =>
    Layer.effect(
      WebhookDispatcher,
      Effect.map(make(options), ({ dispatcher }) => dispatcher)
    )
}

/**
 * The dispatcher over its ports and the retry policy in context, with what
 * its loop runs on and the grace of the loop's stop. Bad options
 * are a wiring bug: a defect when the layer is built. The recorder's writers
 * live in the layer's scope.
 */
const make = (options: WebhookDispatcherOptions) =>
  Effect.gen(function* () {
    const policy = yield* RetryPolicy
    const { concurrency, pollMs, leaseMs, stopGraceMs } = yield* Effect.sync(() =>
      checkOptions(options, policy)
    )
    const ports: DispatcherPorts = {
      outbox: yield* DeliveryOutbox,
      rules: yield* AlertRuleRepository,
      signer: yield* Signer,
      transport: yield* WebhookTransport,
      policy
    }
    const recordInBatch = yield* makeRecordBatch(ports.outbox)
    const nextClaimToken = yield* makeClaimTokens
    const recordAlone = (toRecord: Parameters<typeof recordInBatch>[0]) =>
      ports.outbox.recordAttempt(toRecord.claimed, toRecord.input)
    const dispatching: Dispatching = {
      concurrency,
      pollMs,
      // `run` holds up to `window` deliveries (being attempted, or claimed and ready), and claims
      // only when at least `claimBatch` fit: one claim for many deliveries, made while the slots
      // are still busy with the previous ones.
      window: ReadyPerSlot * concurrency,
      claimBatch: ClaimPerSlot * concurrency,
      // A ready delivery must start early enough that its send, cut off at the timeout plus the
      // grace, still ends that long before its lease does: the margin a claim sent at once has.
      startDeadlineMs: leaseMs - 2 * (policy.receiverTimeoutMs + TransportGraceMs),
      claim: (at, limit) =>
        Effect.flatMap(nextClaimToken, (token) => claim(ports, leaseMs, token, at, limit)),
      release: (claims) => release(ports, claims),
      attemptSafely: (claimed) => attemptSafely(ports, claimed, recordInBatch)
    }

    const deliverNow = Effect.fn("WebhookDispatcher.deliverNow")(function* (delivery: Delivery) {
      const at = yield* Clock.currentTimeMillis
      const claimed = yield* ports.outbox.enqueueClaimed(delivery, { at, leaseMs })
      const destination = yield* Effect.option(ports.rules.destination(claimed.rule_id))
      // We hold a fresh lease on a fresh delivery, so a refused record is a bug, not an outcome.
      return yield* Effect.orDie(
        attempt(ports, { delivery: claimed, destination: Option.getOrUndefined(destination) }, recordAlone)
      )
    })

    const dispatcher = WebhookDispatcher.of({
      runOnce: runOnce(dispatching),
      run: runLoop(dispatching),
      deliverNow
    })
    return { dispatcher, dispatching, stopGraceMs }
  })
