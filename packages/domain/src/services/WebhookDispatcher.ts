/**
 * Use case: the webhook dispatcher (spec part 3, "Webhook delivery"; part 6,
 * "Signature" and "Retry and idempotency"). Every server process runs one. It
 * claims due deliveries from the outbox, signs each attempt and POSTs it to
 * the rule's URL, then records the outcome, which the state machine turns
 * into "delivered", a retry at the schedule's next offset, or "failed". Claims
 * are leases, so any number of processes share one outbox, and a process that
 * dies mid-send leaves its lease to expire. Logs never carry a URL, header,
 * body or key. Choices: docs/design-notes.md, "Webhook dispatcher". Parts, in
 * dispatcher/: Settings, Claim, RunLoop (`runOnce` and the loop), Sending and
 * SentRecorder (the loop's sends and records), Attempt and RecordBatch.
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
import { makeHealthBatch } from "./dispatcher/HealthBatch.ts"
import { makeRecordBatch } from "./dispatcher/RecordBatch.ts"
import { type Dispatching, runLoop, runOnce, runUntilClosed } from "./dispatcher/RunLoop.ts"
import {
  ClaimPerSlot,
  checkOptions,
  HeldPerSlot,
  type DispatcherPorts,
  type DispatchSummary,
  ReadyPerSlot,
  TransportGraceMs,
  type WebhookDispatcherOptions
} from "./dispatcher/Settings.ts"

export {
  ClaimPerSlot,
  DefaultConcurrency,
  DefaultHostConcurrency,
  DefaultPollInterval,
  type DispatchSummary,
  EndpointDisabledMessage,
  HeldPerSlot,
  MaxRecordBatch,
  ReadyPerSlot,
  RuleDeletedMessage,
  TransportGraceMs,
  type WebhookDispatcherOptions
} from "./dispatcher/Settings.ts"

export class WebhookDispatcher extends Context.Service<
  WebhookDispatcher,
  {
    /**
     * Claims up to `concurrency` due deliveries at the clock's now, and
     * attempts them all concurrently, at most `hostConcurrency` to one host.
     */
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
    const { concurrency, hostConcurrency, pollMs, leaseMs, stopGraceMs, disableAfterMs } = yield* Effect.sync(
      () => checkOptions(options, policy)
    )
    const rules = yield* AlertRuleRepository
    const ports: DispatcherPorts = {
      outbox: yield* DeliveryOutbox,
      rules,
      signer: yield* Signer,
      transport: yield* WebhookTransport,
      policy,
      health: yield* makeHealthBatch(rules, disableAfterMs)
    }
    const recordInBatch = yield* makeRecordBatch(ports.outbox)
    const nextClaimToken = yield* makeClaimTokens
    const recordAlone = (toRecord: Parameters<typeof recordInBatch>[0]) =>
      ports.outbox.recordAttempt(toRecord.claimed, toRecord.input)
    const dispatching: Dispatching = {
      ports,
      concurrency,
      hostConcurrency,
      // Deliveries waiting for a host at its bound hold no slot and do not count against the
      // window, so others are still claimed; this caps how many of them are held.
      maxHeld: HeldPerSlot * concurrency,
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
      // runOnce's attempts, a fiber each; the loop's sends are driven by dispatcher/Sending.ts.
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
