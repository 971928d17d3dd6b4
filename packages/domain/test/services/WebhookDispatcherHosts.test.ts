/**
 * The dispatcher's bound on sends to one destination host: a host at its
 * bound holds no more slots, so deliveries to other hosts go on; `run` and
 * `runOnce` both honour it. In-memory ports, the test clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { AlertRuleRecord } from "../../src/model/AlertRule.ts"
import { type Delivery, responded } from "../../src/model/Delivery.ts"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { type WebhookRequest, WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import { WebhookDispatcher, type WebhookDispatcherOptions } from "../../src/services/WebhookDispatcher.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import { DefaultRetryPolicy, RetryPolicy } from "../../src/webhooks/RetrySchedule.ts"
import { signingKeyFromBytes } from "../../src/webhooks/WebhookSignature.ts"
import { destinationHost } from "../../src/webhooks/SendScheduler.ts"
import * as SignerMemory from "../support/SignerMemory.ts"

const SECOND = 1_000
const T0 = Date.UTC(2026, 7, 1)
const KEY = signingKeyFromBytes(new Uint8Array(32).map((_, i) => i * 11))
const SLOW_URL = "https://slow.example.com/hook"
const FAST_URL = "https://fast.example.com/hook"
const SLOW_RULE = "1c9f8e32-4d5a-4b6a-9f7e-2a3b4c5d6e7f"
const FAST_RULE = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"

const deliveryId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const delivery = (n: number, rule_id: string): Delivery =>
  newDelivery({
    delivery_id: deliveryId(n),
    rule_id,
    event: "rating.changed",
    body: `{"event":"rating.changed","delivery_id":"${deliveryId(n)}","watchlist_id":"${rule_id}"}`,
    at: T0
  })

const rule = (id: string, webhook_url: string): AlertRuleRecord => ({
  id,
  account_id: "acct-1",
  signing_key: KEY,
  name: null,
  entity_types: [],
  slugs: [],
  events: [],
  channels: { webhook_url },
  created_at: "2026-08-01T00:00:00+00:00"
})

/** A transport where the slow host answers after 9 s and the fast one after 100 ms; it counts sends in flight per host. */
const hostTransport = () => {
  const inFlight = new Map<string, number>()
  const maxInFlight = new Map<string, number>()
  const sent: Array<string> = []
  const layer = Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      send: (request: WebhookRequest) =>
        Effect.gen(function* () {
          const host = destinationHost(request.url)
          sent.push(host)
          inFlight.set(host, (inFlight.get(host) ?? 0) + 1)
          maxInFlight.set(host, Math.max(maxInFlight.get(host) ?? 0, inFlight.get(host)!))
          const delay = request.url === SLOW_URL ? 9 * SECOND : 100
          yield* Effect.sleep(delay)
          inFlight.set(host, inFlight.get(host)! - 1)
          return responded(200, delay)
        })
    })
  )
  return { maxInFlight, sent, layer }
}

/** `slow` deliveries to the slow host (enqueued first, so claimed first), then `fast` to the fast host. */
const withHosts = <A, E>(
  counts: { readonly slow: number; readonly fast: number },
  options: WebhookDispatcherOptions & { readonly loop: boolean },
  body: (
    transport: ReturnType<typeof hostTransport>
  ) => Effect.Effect<A, E, WebhookDispatcher | DeliveryOutbox>
) => {
  const transport = hostTransport()
  const ports = Layer.mergeAll(
    AlertRuleRepositoryMemory.layer,
    DeliveryOutboxMemory.layer,
    SignerMemory.layer,
    transport.layer
  ).pipe(Layer.provideMerge(Layer.succeed(RetryPolicy, DefaultRetryPolicy)))
  return Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const rules = yield* AlertRuleRepository
    yield* rules.create(rule(SLOW_RULE, SLOW_URL))
    yield* rules.create(rule(FAST_RULE, FAST_URL))
    yield* (yield* DeliveryOutbox).enqueue([
      ...Array.from({ length: counts.slow }, (_, i) => delivery(i, SLOW_RULE)),
      ...Array.from({ length: counts.fast }, (_, i) => delivery(1_000 + i, FAST_RULE))
    ])
    const layer = options.loop ? WebhookDispatcher.layer : WebhookDispatcher.layerWithoutLoop
    return yield* Effect.provide(body(transport), layer(options))
  }).pipe(Effect.provide(ports))
}

const statuses = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(Effect.service(DeliveryOutbox), (outbox) =>
    Effect.forEach(ids, (id) => Effect.map(outbox.get(id), (d) => d.status))
  )

describe("WebhookDispatcher, per destination host", () => {
  it.effect(
    "run: a slow host never has more than `hostConcurrency` sends in flight, and its waiting deliveries hold " +
      "no slot: the fast host's deliveries, claimed after 6 slow ones, are all delivered while the slow ones hang",
    () =>
      withHosts({ slow: 6, fast: 10 }, { concurrency: 4, hostConcurrency: 2, loop: true }, (transport) =>
        Effect.gen(function* () {
          // Two slots for the fast host: ten 100 ms sends take 500 ms.
          yield* TestClock.adjust(600)
          const fast = yield* statuses(Array.from({ length: 10 }, (_, i) => deliveryId(1_000 + i)))
          assert.deepStrictEqual(
            fast,
            Array.from({ length: 10 }, () => "delivered")
          )
          const slow = yield* statuses(Array.from({ length: 6 }, (_, i) => deliveryId(i)))
          assert.strictEqual(
            slow.filter((s) => s === "delivered").length,
            0,
            "the slow ones are still in flight"
          )
          // The slow host drains two at a time.
          yield* TestClock.adjust(3 * 9 * SECOND + 100)
          const after = yield* statuses(Array.from({ length: 6 }, (_, i) => deliveryId(i)))
          assert.deepStrictEqual(
            after,
            Array.from({ length: 6 }, () => "delivered")
          )
          assert.strictEqual(transport.maxInFlight.get(destinationHost(SLOW_URL)), 2)
          assert.strictEqual(transport.maxInFlight.get(destinationHost(FAST_URL)), 2)
          assert.lengthOf(transport.sent, 16, "each delivery sent once")
        })
      )
  )

  it.effect("run: with one host, `hostConcurrency` bounds the sends in flight below `concurrency`", () =>
    withHosts({ slow: 0, fast: 40 }, { concurrency: 16, hostConcurrency: 3, loop: true }, (transport) =>
      Effect.gen(function* () {
        yield* TestClock.adjust(2 * SECOND)
        const fast = yield* statuses(Array.from({ length: 40 }, (_, i) => deliveryId(1_000 + i)))
        assert.deepStrictEqual(
          fast,
          Array.from({ length: 40 }, () => "delivered")
        )
        assert.strictEqual(transport.maxInFlight.get(destinationHost(FAST_URL)), 3)
      })
    )
  )

  it.effect(
    "runOnce honours the per-host bound too: the fast host's deliveries do not wait behind the slow host's",
    () =>
      withHosts({ slow: 4, fast: 4 }, { concurrency: 8, hostConcurrency: 2, loop: false }, (transport) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild((yield* WebhookDispatcher).runOnce)
          yield* TestClock.adjust(300)
          const fast = yield* statuses(Array.from({ length: 4 }, (_, i) => deliveryId(1_000 + i)))
          assert.deepStrictEqual(fast, ["delivered", "delivered", "delivered", "delivered"])
          yield* TestClock.adjust(18 * SECOND)
          const summary = yield* Fiber.join(fiber)
          assert.strictEqual(summary.delivered, 8)
          assert.strictEqual(transport.maxInFlight.get(destinationHost(SLOW_URL)), 2)
        })
      )
  )
})
