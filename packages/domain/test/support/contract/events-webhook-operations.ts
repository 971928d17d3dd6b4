/**
 * The webhook-operations half of the AlertRuleRepository and DeliveryOutbox
 * ports, written once and run against both backends (memory in the domain's
 * test/ports/memory, Postgres in adapters-sql): endpoint health, key
 * rotation and its expiry (on the test clock), holding a disabled
 * endpoint's delivery, bulk re-fire and the retention sweep.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { millisOf, noResponse } from "../../../src/model/Delivery.ts"
import { AlertRuleRepository } from "../../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../../src/ports/DeliveryOutbox.ts"
import { observe } from "../../../src/webhooks/EndpointHealth.ts"
import { rule, ruleId } from "./events-alert-rule-repository.ts"
import { delivery, deliveryId, HOUR, OTHER_RULE, RULE, T0 } from "./events-delivery-outbox.ts"

const DAY = 24 * HOUR
const R1 = ruleId(41)
const R2 = ruleId(42)
const REASON = "every delivery attempt failed for 5 days"

const failAt = (rule_id: string, at: number) => observe([{ rule_id, at, delivered: false }])
const okAt = (rule_id: string, at: number) => observe([{ rule_id, at, delivered: true }])

export const alertRuleOperationsContract = (
  name: string,
  makeLayer: () => Layer.Layer<AlertRuleRepository, unknown>
) =>
  describe(`AlertRuleRepository operations contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, AlertRuleRepository>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect(
      "failures for the whole period disable the endpoint; a delivery before that resets the run",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* AlertRuleRepository
            yield* repo.create(rule(R1, "alice"))
            assert.deepStrictEqual(yield* repo.recordHealth(failAt(R1, T0), 5 * DAY, REASON), [])
            assert.strictEqual((yield* repo.get("alice", R1)).failing_since, "2026-08-01T00:00:00+00:00")
            assert.isTrue((yield* repo.destination(R1)).failing)
            yield* repo.recordHealth(okAt(R1, T0 + 4 * DAY), 5 * DAY, REASON)
            assert.strictEqual((yield* repo.get("alice", R1)).failing_since, null)
            yield* repo.recordHealth(failAt(R1, T0 + 5 * DAY), 5 * DAY, REASON)
            assert.deepStrictEqual(
              yield* repo.recordHealth(failAt(R1, T0 + 10 * DAY - 1), 5 * DAY, REASON),
              []
            )
            assert.isFalse((yield* repo.get("alice", R1)).disabled)
            assert.deepStrictEqual(yield* repo.recordHealth(failAt(R1, T0 + 10 * DAY), 5 * DAY, REASON), [R1])
            const disabled = yield* repo.get("alice", R1)
            assert.deepStrictEqual(
              { ...disabled, id: undefined },
              {
                ...disabled,
                id: undefined,
                disabled: true,
                disabled_at: "2026-08-11T00:00:00+00:00",
                disabled_reason: REASON,
                failing_since: "2026-08-06T00:00:00+00:00"
              }
            )
            assert.isTrue((yield* repo.destination(R1)).disabled)
            // Disabled stays disabled: a later failure reports nothing new.
            assert.deepStrictEqual(yield* repo.recordHealth(failAt(R1, T0 + 11 * DAY), 5 * DAY, REASON), [])
          })
        )
    )

    it.effect("enable makes the endpoint healthy again and reports when and why it was disabled", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(R1, "alice"))
          yield* repo.recordHealth(failAt(R1, T0), DAY, REASON)
          yield* repo.recordHealth(failAt(R1, T0 + DAY), DAY, REASON)
          assert.strictEqual((yield* Effect.flip(repo.enable("mallory", R1)))._tag, "AlertRuleNotFound")
          const { rule: enabled, before } = yield* repo.enable("alice", R1)
          assert.isFalse(enabled.disabled)
          assert.strictEqual(enabled.failing_since, null)
          assert.isTrue(before.disabled)
          assert.strictEqual(before.disabled_at, "2026-08-02T00:00:00+00:00")
          assert.strictEqual(before.disabled_reason, REASON)
          assert.deepStrictEqual((yield* repo.destination(R1)).disabled, false)
          // An operator enables any rule, by id alone.
          yield* repo.recordHealth(failAt(R1, T0 + 2 * DAY), DAY, REASON)
          yield* repo.recordHealth(failAt(R1, T0 + 3 * DAY), DAY, REASON)
          assert.isTrue((yield* repo.enable(undefined, R1)).before.disabled)
        })
      )
    )

    it.effect("a rotation signs with both keys until the overlap ends; then the old key is destroyed", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(R1, "alice", { signing_key: "whsec_old" }))
          yield* repo.create(rule(R2, "alice", { signing_key: "whsec_other" }))
          assert.strictEqual(
            (yield* Effect.flip(repo.rotateKey("mallory", R1, "whsec_x", 1_000)))._tag,
            "AlertRuleNotFound"
          )
          const rotated = yield* repo.rotateKey("alice", R1, "whsec_new", 60_000)
          assert.strictEqual(rotated.previous_key_expires_at, "1970-01-01T00:01:00+00:00")
          assert.strictEqual(rotated.rule.id, R1)
          const during = yield* repo.destination(R1)
          assert.strictEqual(during.signing_key, "whsec_new")
          assert.strictEqual(during.previous_signing_key, "whsec_old")
          assert.strictEqual(yield* repo.destroyExpiredKeys(59_999), 0)
          yield* TestClock.adjust(60_000)
          // Past the overlap the old key signs nothing, swept or not.
          assert.strictEqual((yield* repo.destination(R1)).previous_signing_key, null)
          assert.strictEqual(yield* repo.destroyExpiredKeys(60_000), 1)
          assert.strictEqual(yield* repo.destroyExpiredKeys(60_000), 0)
          // No overlap: the replaced key is destroyed at once.
          yield* repo.rotateKey("alice", R2, "whsec_other2", null)
          assert.deepStrictEqual((yield* repo.destinations([R2])).get(R2)?.previous_signing_key, null)
          assert.strictEqual((yield* repo.destination(R2)).signing_key, "whsec_other2")
        })
      )
    )
  })

export const deliveryOutboxOperationsContract = (
  name: string,
  makeLayer: () => Layer.Layer<DeliveryOutbox, unknown>
) =>
  describe(`DeliveryOutbox operations contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, DeliveryOutbox>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    /** Enqueues delivery n and fails it for good: the first attempt and every retry. */
    const failed = (n: number, at: number, rule_id = RULE) =>
      Effect.gen(function* () {
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([delivery(n, at, rule_id)])
        const [claimed] = yield* outbox.claimDue({ at, limit: 1 })
        yield* outbox.hold(claimed!, "held for the test")
      })

    it.effect("a held delivery is failed at once with its reason and no attempt; only a pending one", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
          const held = yield* outbox.hold(claimed!, "endpoint disabled")
          assert.strictEqual(held.status, "failed")
          assert.strictEqual(held.last_error, "endpoint disabled")
          const stored = yield* outbox.get(deliveryId(1))
          assert.deepStrictEqual(stored.attempt_log, [])
          assert.strictEqual(stored.status, "failed")
          assert.strictEqual(
            (yield* Effect.flip(outbox.hold(claimed!, "again")))._tag,
            "DeliveryTransitionRejected"
          )
        })
      )
    )

    it.effect("bulk re-fire takes the rules' failed deliveries since a time, oldest first, bounded", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* failed(1, T0)
          for (const n of [2, 3, 4]) yield* failed(n, T0 + n * HOUR)
          yield* failed(5, T0 + 5 * HOUR, OTHER_RULE)
          const first = yield* outbox.refireFailed({
            ruleIds: [RULE],
            since: T0 + HOUR,
            at: T0 + DAY,
            limit: 2
          })
          assert.deepStrictEqual(
            first.refired.map((d) => d.delivery_id),
            [deliveryId(2), deliveryId(3)]
          )
          assert.isTrue(first.more)
          for (const d of first.refired) {
            assert.strictEqual(d.status, "pending")
            assert.strictEqual(d.cycle, 1)
            assert.strictEqual(millisOf(d.next_attempt_at!), T0 + DAY)
          }
          const second = yield* outbox.refireFailed({
            ruleIds: [RULE],
            since: T0 + HOUR,
            at: T0 + DAY,
            limit: 2
          })
          assert.deepStrictEqual(
            second.refired.map((d) => d.delivery_id),
            [deliveryId(4)]
          )
          assert.isFalse(second.more)
          assert.strictEqual((yield* outbox.get(deliveryId(1))).status, "failed")
          assert.strictEqual((yield* outbox.get(deliveryId(5))).status, "failed")
          const none = yield* outbox.refireFailed({ ruleIds: [], since: 0, at: T0, limit: 10 })
          assert.deepStrictEqual(none, { refired: [], more: false })
        })
      )
    )

    it.effect(
      "the retention sweep removes finished deliveries and old attempts in batches, never pending ones",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            for (const n of [1, 2, 3]) yield* failed(n, T0)
            yield* failed(6, T0 + 40 * DAY)
            yield* outbox.enqueue([delivery(4, T0), delivery(5, T0 + 40 * DAY)])
            // Delivery 4 fails its first attempt and stays pending; 5 is recent.
            const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
            yield* outbox.recordAttempt(claimed!, { at: T0, outcome: noResponse("timeout", 10_000) })
            const before = T0 + 30 * DAY
            assert.deepStrictEqual(yield* outbox.prune({ before, limit: 2 }), { deliveries: 2, attempts: 1 })
            assert.deepStrictEqual(yield* outbox.prune({ before, limit: 2 }), { deliveries: 1, attempts: 0 })
            assert.deepStrictEqual(yield* outbox.prune({ before, limit: 2 }), { deliveries: 0, attempts: 0 })
            assert.strictEqual((yield* outbox.get(deliveryId(4))).status, "pending")
            assert.deepStrictEqual((yield* outbox.get(deliveryId(4))).attempt_log, [])
            assert.strictEqual((yield* outbox.get(deliveryId(5))).status, "pending")
            assert.strictEqual((yield* outbox.get(deliveryId(6))).status, "failed")
            assert.strictEqual((yield* Effect.flip(outbox.get(deliveryId(1))))._tag, "DeliveryNotFound")
          })
        )
    )
  })
