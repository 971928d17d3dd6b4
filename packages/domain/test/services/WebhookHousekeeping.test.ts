/**
 * The webhook history sweep on the test clock, over the in-memory stores:
 * its loop sweeps at start and then every interval, in batches until one is
 * not full, removing finished deliveries past the retention and replaced keys
 * past their overlap; pending deliveries stay. Postgres: adapters-sql's
 * PgWebhookHousekeeping.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { WebhookHousekeeping } from "../../src/services/WebhookHousekeeping.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import { rule, ruleId } from "../support/contract/events-alert-rule-repository.ts"

const DAY = 86_400_000
const RULE = ruleId(7)

const stores = Layer.mergeAll(AlertRuleRepositoryMemory.layer, DeliveryOutboxMemory.layer)

/** `count` deliveries created at `at`, held (failed at once) when `failed`. */
const deliveries = (from: number, count: number, at: number, failed: boolean) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox
    for (let n = from; n < from + count; n++) {
      const d = newDelivery({
        delivery_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
        rule_id: RULE,
        event: "rating.changed",
        body: "{}",
        at
      })
      yield* outbox.enqueue([d])
      if (failed) yield* outbox.hold(d, "held")
    }
  })

const count = Effect.map(
  Effect.flatMap(DeliveryOutbox, (outbox) => outbox.listByRule(RULE)),
  (all) => all.length
)

describe("WebhookHousekeeping", () => {
  it.effect("the loop sweeps at start and every interval, in batches, and destroys expired keys", () =>
    Effect.gen(function* () {
      const rules = yield* AlertRuleRepository
      yield* rules.create(rule(RULE, "alice", { signing_key: "whsec_old" }))
      yield* rules.rotateKey("alice", RULE, "whsec_new", 40 * DAY)
      yield* deliveries(1, 5, 0, true)
      yield* deliveries(100, 2, 0, false) // pending: never removed
      yield* TestClock.setTime(31 * DAY)
      yield* Effect.gen(function* () {
        yield* Effect.yieldNow
        // The first sweep ran at start: batches of 2, pausing 1 s between full ones.
        yield* TestClock.adjust("3 seconds")
        assert.strictEqual(yield* count, 2)
        yield* deliveries(10, 3, 31 * DAY, true)
        yield* TestClock.adjust(9 * DAY)
        yield* TestClock.adjust("1 hour")
        assert.strictEqual((yield* rules.destination(RULE)).previous_signing_key, null)
        assert.strictEqual(yield* count, 5, "recent failed deliveries are kept until past retention")
        yield* TestClock.adjust(22 * DAY)
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(yield* count, 2)
      }).pipe(
        Effect.provide(
          WebhookHousekeeping.layer({
            retention: "30 days",
            batchSize: 2,
            pause: "1 second",
            interval: "1 hour"
          })
        )
      )
      const summary = yield* Effect.provide(
        Effect.flatMap(WebhookHousekeeping, (h) => h.sweep),
        WebhookHousekeeping.layerWithoutLoop()
      )
      assert.deepStrictEqual(summary, { deliveries: 0, attempts: 0, keys: 0 })
    }).pipe(Effect.provide(stores))
  )
})
