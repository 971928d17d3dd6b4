/**
 * Use cases behind /alert-rules (spec part 4; part 6, "Configuration") and
 * the failed-delivery watchlist: the rules of one account, their test
 * webhook, their delivery log, and manual re-fire. A rule or delivery of
 * another account is "not found", never "forbidden", so ids reveal nothing
 * across accounts. The signing key leaves the service once, in the answer to
 * `create`, which enqueues in the same transaction the `webhook.test`
 * delivery that saving a webhook URL fires (Configuration rule 3): a rule
 * never exists without its test event. Enable, key rotation and bulk re-fire
 * are in AlertRuleOperations.ts.
 */
import { Clock, Context, Effect, Layer, Result, Schema } from "effect"
import {
  type AlertRuleCreate,
  type AlertRuleCreated,
  type AlertRuleLimitReached,
  type AlertRuleList,
  type AlertRuleNotFound,
  type AlertRuleRecord,
  normalizeFilters
} from "../model/AlertRule.ts"
import {
  type Delivery,
  DeliveryNotFound,
  DeliveryStatus,
  type DeliveryWithAttempts,
  isoOf
} from "../model/Delivery.ts"
import type { WebhookTestReport } from "../model/WebhookTest.ts"
import type { RefireReport, RuleEnabled, SecretRotated } from "../model/WebhookOperations.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { Signer } from "../ports/Signer.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"
import { newDelivery } from "../webhooks/DeliveryStateMachine.ts"
import { addressEvent, serializeEvent, webhookTest } from "../webhooks/EventPayloads.ts"
import {
  validateWebhookUrl,
  WebhookTargetPolicy,
  type WebhookUrlRejected
} from "../webhooks/WebhookTargetPolicy.ts"
import {
  enable,
  type RefireOptions,
  type RefireScope,
  refireFailed,
  rotateSecret
} from "./AlertRuleOperations.ts"
import { WebhookDispatcher } from "./WebhookDispatcher.ts"

/** Re-fire of a delivery that is not failed: a pending one is still in its cycle, a delivered one was acknowledged. */
export class DeliveryNotFailed extends Schema.TaggedError<DeliveryNotFailed>()("DeliveryNotFailed", {
  delivery_id: Schema.String,
  status: DeliveryStatus,
  message: Schema.String
}) {}

export interface ListOptions {
  readonly limit?: number | undefined
}

/** The test delivery of a rule: the synthetic `webhook.test` event, addressed to it. */
const testDelivery = (
  rule: Pick<AlertRuleRecord, "id" | "entity_types" | "slugs">,
  deliveryId: string,
  at: number
): Delivery =>
  newDelivery({
    delivery_id: deliveryId,
    rule_id: rule.id,
    event: "webhook.test",
    body: serializeEvent(
      addressEvent(webhookTest(rule, at), { delivery_id: deliveryId, watchlist_id: rule.id })
    ),
    at
  })

/** What the alert-rule use cases work with, read once when the layer is built. */
interface AlertRulePorts {
  readonly rules: AlertRuleRepository["Service"]
  readonly outbox: DeliveryOutbox["Service"]
  readonly ids: IdGenerator["Service"]
  readonly signer: Signer["Service"]
  readonly tx: Transaction["Service"]
  readonly dispatcher: WebhookDispatcher["Service"]
  readonly targets: WebhookTargetPolicy["Service"]
}

/** `create`: the URL checked against the target policy, then the rule and its test delivery in one transaction. */
const createRule = (ports: AlertRulePorts) =>
  Effect.fn("AlertRuleService.create")(function* (accountId: string, request: AlertRuleCreate) {
    const { rules, outbox, ids, signer, tx, targets } = ports
    const url = validateWebhookUrl(request.channels.webhook_url, targets)
    if (Result.isFailure(url)) return yield* url.failure
    const now = yield* Clock.currentTimeMillis
    const record: AlertRuleRecord = {
      id: yield* ids.uuid,
      account_id: accountId,
      ...normalizeFilters(request),
      created_at: isoOf(now),
      signing_key: yield* signer.newSigningKey
    }
    const test = testDelivery(record, yield* ids.uuid, now)
    const stored = yield* tx.run(
      Effect.gen(function* () {
        const stored = yield* rules.create(record)
        yield* outbox.enqueue([test])
        return stored
      })
    )
    return { ...stored, webhook_signing_key: record.signing_key }
  })

/** `testWebhook`: a new webhook.test delivery attempted at once through the dispatcher, and how it ended. */
const testRuleWebhook = (ports: AlertRulePorts) =>
  Effect.fn("AlertRuleService.testWebhook")(function* (accountId: string, ruleId: string) {
    const { rules, ids, dispatcher } = ports
    const rule = yield* rules.get(accountId, ruleId)
    const now = yield* Clock.currentTimeMillis
    const { delivery, attempt } = yield* dispatcher.deliverNow(testDelivery(rule, yield* ids.uuid, now))
    return {
      delivery_id: delivery.delivery_id,
      delivered: delivery.status === "delivered",
      outcome: attempt.outcome,
      status_code: attempt.status_code,
      elapsed_ms: attempt.duration_ms,
      error: attempt.error,
      attempted_at: attempt.started_at,
      next_attempt_at: delivery.status === "pending" ? delivery.next_attempt_at : null
    } satisfies WebhookTestReport
  })

/** `refire`: a failed delivery of the account's (or, for an operator, of a rule that still exists) due again now. */
const refireDelivery = (ports: AlertRulePorts) =>
  Effect.fn("AlertRuleService.refire")(function* (accountId: string | undefined, deliveryId: string) {
    const { rules, outbox } = ports
    const delivery = yield* outbox.get(deliveryId)
    if (accountId !== undefined) {
      // Another account's delivery, or one whose rule is gone, is not the caller's to see.
      yield* rules
        .get(accountId, delivery.rule_id)
        .pipe(Effect.mapError(() => new DeliveryNotFound({ delivery_id: deliveryId })))
    } else {
      yield* rules.destination(delivery.rule_id)
    }
    const now = yield* Clock.currentTimeMillis
    return yield* outbox.refire(deliveryId, now).pipe(
      Effect.catchTag("DeliveryTransitionRejected", (rejected) =>
        Effect.fail(
          new DeliveryNotFailed({
            delivery_id: rejected.delivery_id,
            status: rejected.status,
            message: `delivery ${rejected.delivery_id} is ${rejected.status}: only a failed delivery can be re-fired`
          })
        )
      )
    )
  })

export class AlertRuleService extends Context.Service<
  AlertRuleService,
  {
    /** The account's rules, oldest first, without signing keys. */
    readonly list: (accountId: string) => Effect.Effect<AlertRuleList>
    /**
     * A new rule with a fresh signing key, served this once, and its
     * webhook.test delivery enqueued; a URL the target policy refuses is
     * `WebhookUrlRejected`, a rule past the account's bound is
     * `AlertRuleLimitReached`, and either stores nothing. The policy refuses
     * http outside development and private, loopback or link-local literal
     * targets unless allowed; DNS names are checked again at every send.
     */
    readonly create: (
      accountId: string,
      request: AlertRuleCreate
    ) => Effect.Effect<AlertRuleCreated, StoreError | WebhookUrlRejected | AlertRuleLimitReached>
    /**
     * Deletes a rule. Its deliveries stay in the outbox, the record of what was
     * sent; the dispatcher sends nothing more for it, so its pending ones end `failed`.
     */
    readonly delete: (accountId: string, ruleId: string) => Effect.Effect<void, AlertRuleNotFound>
    /**
     * A real, signed webhook.test attempt made now (the dispatcher's
     * `deliverNow`), and how it ended; recorded in the rule's log and retried
     * on the schedule if it failed.
     */
    readonly testWebhook: (
      accountId: string,
      ruleId: string
    ) => Effect.Effect<WebhookTestReport, AlertRuleNotFound>
    /** The rule's deliveries with their attempts, newest first. */
    readonly deliveries: (
      accountId: string,
      ruleId: string,
      options?: ListOptions
    ) => Effect.Effect<ReadonlyArray<DeliveryWithAttempts>, AlertRuleNotFound>
    /** Failed deliveries, newest first: the account's, or every account's when none is given. */
    readonly failed: (
      accountId: string | undefined,
      options?: ListOptions
    ) => Effect.Effect<ReadonlyArray<Delivery>>
    /**
     * Manual re-fire of a failed delivery: a new cycle with the same
     * delivery_id, due now. An account when an account asks (the API), none
     * when an operator does (the CLI, the dashboard). A delivery whose rule is
     * gone cannot be re-fired: it could only fail again.
     */
    readonly refire: (
      accountId: string | undefined,
      deliveryId: string
    ) => Effect.Effect<Delivery, DeliveryNotFound | DeliveryNotFailed | AlertRuleNotFound>
    /**
     * Enables a rule's endpoint again (healthy, no failing run); with
     * `refire`, its deliveries that failed since its failing run began
     * are re-fired (at most `RefireBatchLimit`; the report says if more remain).
     */
    readonly enable: (
      accountId: string | undefined,
      ruleId: string,
      options: { readonly refire: boolean }
    ) => Effect.Effect<RuleEnabled, AlertRuleNotFound>
    /**
     * A new signing key for the rule, served this once; the replaced key keeps
     * signing beside it for `overlapSeconds` (default 24 h, at most 7 days;
     * 0 destroys it at once), then is destroyed.
     */
    readonly rotateSecret: (
      accountId: string,
      ruleId: string,
      overlapSeconds?: number
    ) => Effect.Effect<SecretRotated, AlertRuleNotFound>
    /**
     * Bulk re-fire of the failed deliveries of a rule, or of every rule of an
     * account, that failed since a time (their last cycle began then): oldest first, at most `RefireBatchLimit`
     * per call, each keeping its delivery_id.
     */
    readonly refireFailed: (
      accountId: string | undefined,
      scope: RefireScope,
      options: RefireOptions
    ) => Effect.Effect<RefireReport, AlertRuleNotFound>
  }
>()("@ratings/domain/services/AlertRuleService") {
  static readonly layer = Layer.effect(
    AlertRuleService,
    Effect.gen(function* () {
      const ports: AlertRulePorts = {
        rules: yield* AlertRuleRepository,
        outbox: yield* DeliveryOutbox,
        ids: yield* IdGenerator,
        signer: yield* Signer,
        tx: yield* Transaction,
        dispatcher: yield* WebhookDispatcher,
        targets: yield* WebhookTargetPolicy
      }
      const { rules, outbox } = ports

      const list = Effect.fn("AlertRuleService.list")(function* (accountId: string) {
        const items = yield* rules.list(accountId)
        return { items, total: items.length }
      })

      const del = Effect.fn("AlertRuleService.delete")(function* (accountId: string, ruleId: string) {
        yield* rules.delete(accountId, ruleId)
      })

      const deliveries = Effect.fn("AlertRuleService.deliveries")(function* (
        accountId: string,
        ruleId: string,
        options?: ListOptions
      ) {
        yield* rules.get(accountId, ruleId)
        return yield* outbox.listByRule(ruleId, { limit: options?.limit })
      })

      const failed = Effect.fn("AlertRuleService.failed")(function* (
        accountId: string | undefined,
        options?: ListOptions
      ) {
        const ruleIds =
          accountId === undefined ? undefined : (yield* rules.list(accountId)).map((rule) => rule.id)
        return yield* outbox.listFailed({ ruleIds, limit: options?.limit })
      })

      return AlertRuleService.of({
        list,
        create: createRule(ports),
        delete: del,
        testWebhook: testRuleWebhook(ports),
        deliveries,
        failed,
        refire: refireDelivery(ports),
        enable: enable(ports),
        rotateSecret: rotateSecret(ports),
        refireFailed: refireFailed(ports)
      })
    })
  )
}
