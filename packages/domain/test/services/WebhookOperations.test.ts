/**
 * The webhook operations of AlertRuleService, on the test clock with the
 * dispatcher driven by hand: an endpoint disabled after failing for the
 * whole period, its events held unsent, enabled again with a re-fire; a key
 * rotation whose overlap signs with both keys; bulk re-fire in bounds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { millisOf, responded } from "../../src/model/Delivery.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { Signer } from "../../src/ports/Signer.ts"
import { WebhookTransportScript } from "../../src/ports/memory/WebhookTransportMemory.ts"
import { AlertRuleService } from "../../src/services/AlertRuleService.ts"
import { EndpointDisabledMessage, WebhookDispatcher } from "../../src/services/WebhookDispatcher.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import { verifyStandardWebhook } from "../../src/webhooks/WebhookSignature.ts"
import * as AlertRuleServiceTest from "../support/AlertRuleServiceTest.ts"

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 7, 1)
const ALICE = "acct-alice"
const BOB = "acct-bob"

const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof AlertRuleServiceTest.layerTest>>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    return yield* effect
  }).pipe(Effect.provide(AlertRuleServiceTest.layerTest))

/** Lets the health recorder's writer (a fiber of the dispatcher) finish. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

/** A rating.changed delivery of the rule, enqueued now. */
const enqueueEvent = (ruleId: string, n: number) =>
  Effect.gen(function* () {
    const at = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
    yield* (yield* DeliveryOutbox).enqueue([
      newDelivery({ delivery_id: id, rule_id: ruleId, event: "rating.changed", body: `{"n":${n}}`, at })
    ])
    return id
  })

/** Moves the clock to `at` and runs the dispatcher once, the receiver answering 500 to every delivery due. */
const failAt = (at: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(at)
    const outbox = yield* DeliveryOutbox
    const service = yield* AlertRuleService
    // A disabled endpoint's deliveries are held, not sent: no answer for them.
    const rules = [...(yield* service.list(ALICE)).items, ...(yield* service.list(BOB)).items].filter(
      (rule) => !rule.disabled
    )
    let due = 0
    for (const rule of rules) {
      for (const d of yield* outbox.listByRule(rule.id))
        if (d.status === "pending" && millisOf(d.next_attempt_at!) <= at) due++
    }
    yield* (yield* WebhookTransportScript).push(...Array.from({ length: due }, () => responded(500, 1)))
    yield* (yield* WebhookDispatcher).runOnce
    yield* settle
  })

const createRule =
  (account = ALICE) =>
  (yield_: AlertRuleService["Service"]) =>
    yield_.create(account, { channels: { webhook_url: "https://hooks.example.com/ratings" } })

describe("AlertRuleService webhook operations", () => {
  it.effect("an endpoint failing for 5 days is disabled; its events are held; enable re-fires them", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const script = yield* WebhookTransportScript
        const rule = yield* createRule()(service)
        yield* failAt(T0) // the webhook.test delivery fails: the failing run starts
        yield* enqueueEvent(rule.id, 1)
        yield* failAt(T0 + 5 * DAY - 1)
        assert.isFalse((yield* service.list(ALICE)).items[0]!.disabled)
        yield* enqueueEvent(rule.id, 2)
        yield* failAt(T0 + 5 * DAY)
        const [disabled] = (yield* service.list(ALICE)).items
        assert.isTrue(disabled!.disabled)
        assert.strictEqual(millisOf(disabled!.disabled_at!), T0 + 5 * DAY)
        assert.include(disabled!.disabled_reason!, "5 days")
        assert.strictEqual(millisOf(disabled!.failing_since!), T0)

        // A new event is recorded but not sent.
        const sentBefore = (yield* script.requests).length
        const held = yield* enqueueEvent(rule.id, 3)
        yield* failAt(T0 + 6 * DAY)
        assert.strictEqual((yield* script.requests).length, sentBefore)
        const stored = yield* (yield* DeliveryOutbox).get(held)
        assert.strictEqual(stored.status, "failed")
        assert.strictEqual(stored.last_error, EndpointDisabledMessage)
        assert.deepStrictEqual(stored.attempt_log, [])

        assert.strictEqual(
          (yield* Effect.flip(service.enable(BOB, rule.id, { refire: true })))._tag,
          "AlertRuleNotFound"
        )
        const enabled = yield* service.enable(ALICE, rule.id, { refire: true })
        assert.isFalse(enabled.rule.disabled)
        assert.strictEqual(millisOf(enabled.was_disabled_at!), T0 + 5 * DAY)
        // Everything that failed or was held since the endpoint began failing, its webhook.test included.
        assert.strictEqual(enabled.refire?.refired, 4)
        assert.include(enabled.refire!.delivery_ids, held)
        yield* (yield* WebhookDispatcher).runOnce
        yield* settle
        assert.strictEqual((yield* (yield* DeliveryOutbox).get(held)).status, "delivered")
        // A delivery ends the failing run.
        assert.strictEqual((yield* service.list(ALICE)).items[0]!.failing_since, null)
      })
    )
  )

  it.effect("a delivered attempt resets the count: failures around it never add up to the period", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const rule = yield* createRule()(service)
        yield* failAt(T0)
        yield* enqueueEvent(rule.id, 1)
        yield* TestClock.setTime(T0 + 3 * DAY)
        yield* (yield* WebhookDispatcher).runOnce // the default answer is 200
        yield* settle
        assert.strictEqual((yield* service.list(ALICE)).items[0]!.failing_since, null)
        yield* enqueueEvent(rule.id, 2)
        yield* failAt(T0 + 4 * DAY)
        yield* enqueueEvent(rule.id, 3)
        yield* failAt(T0 + 8 * DAY)
        const [after] = (yield* service.list(ALICE)).items
        assert.isFalse(after!.disabled)
        assert.strictEqual(millisOf(after!.failing_since!), T0 + 4 * DAY)
      })
    )
  )

  it.effect("a rotated key: both keys sign during the overlap, the newest alone after it", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const signer = yield* Signer
        const script = yield* WebhookTransportScript
        const rule = yield* createRule()(service)
        const oldKey = rule.webhook_signing_key
        assert.strictEqual((yield* Effect.flip(service.rotateSecret(BOB, rule.id)))._tag, "AlertRuleNotFound")
        const rotated = yield* service.rotateSecret(ALICE, rule.id)
        assert.notStrictEqual(rotated.webhook_signing_key, oldKey)
        assert.strictEqual(millisOf(rotated.previous_key_expires_at!), T0 + DAY)
        const signedBy = Effect.gen(function* () {
          yield* (yield* WebhookDispatcher).runOnce
          const request = (yield* script.requests).at(-1)!
          const check = (key: string) =>
            verifyStandardWebhook(signer, key, {
              webhookId: request.headers["webhook-id"]!,
              timestampSeconds: Number(request.headers["webhook-timestamp"]),
              body: request.body,
              signatureHeader: request.headers["webhook-signature"]!
            })
          assert.strictEqual(
            request.headers["X-Service-Signature"],
            signer.sign(rotated.webhook_signing_key, request.body)
          )
          return {
            old: check(oldKey),
            new: check(rotated.webhook_signing_key),
            entries: request.headers["webhook-signature"]!.split(" ").length
          }
        })
        // The create's webhook.test is sent now, during the overlap.
        assert.deepStrictEqual(yield* signedBy, { old: true, new: true, entries: 2 })
        yield* TestClock.setTime(T0 + DAY)
        yield* enqueueEvent(rule.id, 1)
        assert.deepStrictEqual(yield* signedBy, { old: false, new: true, entries: 1 })
      })
    )
  )

  it.effect("bulk re-fire: a rule's or an account's failed deliveries since a time, bounded, ids kept", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const rule = yield* createRule()(service)
        const other = yield* createRule()(service)
        const bobs = yield* createRule(BOB)(service)
        // Every delivery fails for good: through the whole schedule.
        const ids = [
          yield* enqueueEvent(rule.id, 1),
          yield* enqueueEvent(other.id, 2),
          yield* enqueueEvent(bobs.id, 3)
        ]
        for (const offset of [0, 30_000, 300_000, 1_800_000, 2 * HOUR, 12 * HOUR]) yield* failAt(T0 + offset)
        const failed = yield* service.failed(undefined)
        assert.lengthOf(failed, 6) // three webhook.test and three events
        assert.strictEqual(
          (yield* Effect.flip(service.refireFailed(BOB, { ruleId: rule.id }, { since: T0 })))._tag,
          "AlertRuleNotFound"
        )
        const one = yield* service.refireFailed(ALICE, { ruleId: rule.id }, { since: T0, limit: 1 })
        assert.strictEqual(one.refired, 1)
        assert.isTrue(one.more)
        const rest = yield* service.refireFailed(ALICE, { accountId: ALICE }, { since: T0 })
        assert.deepStrictEqual({ refired: rest.refired, more: rest.more }, { refired: 3, more: false })
        assert.include(rest.delivery_ids, ids[0])
        assert.include(rest.delivery_ids, ids[1])
        assert.notInclude(rest.delivery_ids, ids[2])
        // Another account's scope is nothing to this caller; an operator's is any account.
        assert.strictEqual((yield* service.refireFailed(ALICE, { accountId: BOB }, { since: T0 })).refired, 0)
        assert.strictEqual(
          (yield* service.refireFailed(undefined, { accountId: BOB }, { since: T0 })).refired,
          2
        )
        const stored = yield* (yield* DeliveryOutbox).get(ids[0]!)
        assert.deepStrictEqual([stored.status, stored.cycle, stored.delivery_id], ["pending", 1, ids[0]])
      })
    )
  )
})
