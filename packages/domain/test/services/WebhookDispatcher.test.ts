import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { AlertRuleRecord } from "../../src/model/AlertRule.ts"
import { type Delivery, millisOf, noResponse, responded } from "../../src/model/Delivery.ts"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { Signer } from "../../src/ports/Signer.ts"
import * as SignerMemory from "../support/SignerMemory.ts"
import { StoreError } from "../../src/ports/StoreError.ts"
import { type WebhookRequest, WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import {
  RuleDeletedMessage,
  WebhookDispatcher,
  type WebhookDispatcherOptions
} from "../../src/services/WebhookDispatcher.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import {
  DefaultRetryPolicy,
  RetryOffsetsMs,
  RetryPolicy,
  retryPolicy
} from "../../src/webhooks/RetrySchedule.ts"
import { signingKeyFromBytes, verifyStandardWebhook } from "../../src/webhooks/WebhookSignature.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import {
  WebhookTransportMemory,
  WebhookTransportScript
} from "../../src/ports/memory/WebhookTransportMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"

const SECOND = 1_000
const HOUR = 3_600 * SECOND
const T0 = Date.UTC(2026, 7, 1)
const RULE = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
const SLOW_RULE = "1c9f8e32-4d5a-4b6a-9f7e-2a3b4c5d6e7f"
const KEY = signingKeyFromBytes(new Uint8Array(32).map((_, i) => i * 7))
const URL = "https://hooks.example.com/ratings"

const deliveryId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const delivery = (n: number, rule_id = RULE, at = T0): Delivery =>
  newDelivery({
    delivery_id: deliveryId(n),
    rule_id,
    event: "rating.changed",
    body: `{"event":"rating.changed","delivery_id":"${deliveryId(n)}","watchlist_id":"${rule_id}"}`,
    at
  })

const rule = (id: string, webhook_url = URL): AlertRuleRecord => ({
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

type Ports = AlertRuleRepository | DeliveryOutbox | Signer | WebhookTransport

/** What the dispatcher asked of the outbox and the rules, as counted by `observedStores`. */
interface StoreCalls {
  readonly claims: Array<{ readonly limit: number; readonly got: number }>
  readonly recordBatches: Array<number>
  recordAlone: number
  destinationBatches: number
  destinationLookups: number
}

/**
 * The in-memory outbox and rules, wrapped to count the dispatcher's calls.
 * `recordMs` makes each batch record take that long on the clock;
 * `failDestinations` makes that many batch lookups of rules die first.
 */
const observedStores = (
  policy: RetryPolicy,
  options: { readonly recordMs?: number; readonly failDestinations?: number } = {}
) => {
  const calls: StoreCalls = {
    claims: [],
    recordBatches: [],
    recordAlone: 0,
    destinationBatches: 0,
    destinationLookups: 0
  }
  let failures = options.failDestinations ?? 0
  const outbox = Layer.effect(
    DeliveryOutbox,
    Effect.gen(function* () {
      const inner = yield* DeliveryOutbox
      return DeliveryOutbox.of({
        ...inner,
        claimDue: (claim) =>
          Effect.tap(inner.claimDue(claim), (got) =>
            Effect.sync(() => calls.claims.push({ limit: claim.limit, got: got.length }))
          ),
        recordAttempt: (claimed, input) => {
          calls.recordAlone++
          return inner.recordAttempt(claimed, input)
        },
        recordAttempts: (attempts) => {
          calls.recordBatches.push(attempts.length)
          return Effect.andThen(Effect.sleep(options.recordMs ?? 0), inner.recordAttempts(attempts))
        }
      })
    })
  ).pipe(Layer.provide(DeliveryOutboxMemory.layer.pipe(Layer.provide(Layer.succeed(RetryPolicy, policy)))))
  const rules = Layer.effect(
    AlertRuleRepository,
    Effect.gen(function* () {
      const inner = yield* AlertRuleRepository
      return AlertRuleRepository.of({
        ...inner,
        destination: (ruleId) => {
          calls.destinationLookups++
          return inner.destination(ruleId)
        },
        destinations: (ruleIds) => {
          calls.destinationBatches++
          return failures-- > 0
            ? Effect.die(new StoreError({ message: "connection lost" }))
            : inner.destinations(ruleIds)
        }
      })
    })
  ).pipe(Layer.provide(AlertRuleRepositoryMemory.layer))
  return { calls, layer: Layer.merge(outbox, rules) }
}

/**
 * In-memory ports and the scripted transport, all on `policy` (provided once, as
 * the app does, for the outbox and the dispatcher); a given `transport` replaces
 * the scripted one's sends, given `stores` the outbox and rules.
 */
const ports = (
  policy: RetryPolicy,
  transport?: Layer.Layer<WebhookTransport>,
  stores?: Layer.Layer<AlertRuleRepository | DeliveryOutbox>
) =>
  Layer.mergeAll(
    stores ?? Layer.merge(AlertRuleRepositoryMemory.layer, DeliveryOutboxMemory.layer),
    SignerMemory.layer,
    WebhookTransportMemory.layer,
    transport ?? Layer.empty
  ).pipe(Layer.provideMerge(Layer.succeed(RetryPolicy, policy)))

/**
 * Seeds the in-memory ports at T0 (rules, deliveries), then builds the
 * dispatcher over them and runs `body` with it. With `loop: true` the
 * dispatcher's `run` is forked for the duration of `body`, starting at T0.
 */
const withDispatcher = <A, E>(
  setup: {
    readonly rules?: ReadonlyArray<AlertRuleRecord>
    readonly deliveries?: ReadonlyArray<Delivery>
    readonly options?: WebhookDispatcherOptions
    /** The retry policy the outbox and the dispatcher read (the spec's by default). */
    readonly policy?: RetryPolicy
    readonly loop?: boolean
    readonly transport?: Layer.Layer<WebhookTransport>
    readonly stores?: Layer.Layer<AlertRuleRepository | DeliveryOutbox>
  },
  body: Effect.Effect<A, E, WebhookDispatcher | Ports | WebhookTransportScript>
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const repository = yield* AlertRuleRepository
    for (const r of setup.rules ?? [rule(RULE)]) yield* repository.create(r)
    yield* (yield* DeliveryOutbox).enqueue(setup.deliveries ?? [])
    const dispatcher = setup.loop === false ? WebhookDispatcher.layerWithoutLoop : WebhookDispatcher.layer
    return yield* Effect.provide(body, dispatcher(setup.options))
  }).pipe(Effect.provide(ports(setup.policy ?? DefaultRetryPolicy, setup.transport, setup.stores)))

/** A transport whose every POST takes `delayMs(request)` of (test) clock time, then answers `status`; it counts sends in flight. */
const timedTransport = (delayMs: (request: WebhookRequest) => number, status = 200) => {
  const stats = { inFlight: 0, maxInFlight: 0, sent: [] as Array<WebhookRequest> }
  const layer = Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      send: (request) =>
        Effect.gen(function* () {
          stats.sent.push(request)
          stats.inFlight++
          stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight)
          const delay = delayMs(request)
          yield* Effect.sleep(delay)
          stats.inFlight--
          return responded(status, delay)
        })
    })
  )
  return { stats, layer }
}

/** The delivery as the outbox holds it, with its attempt log. */
const attemptLog = (id: string) =>
  Effect.gen(function* () {
    return yield* (yield* DeliveryOutbox).get(id)
  })

describe("WebhookDispatcher", () => {
  it.effect(
    "a receiver that always fails is attempted at exactly 0, 30 s, 5 min, 30 min, 2 h and 12 h after the initial attempt, then failed and never attempted again",
    () =>
      withDispatcher(
        // An hour-long poll: the retries are woken by the times the dispatcher recorded, not found by polling.
        { deliveries: [delivery(1)], options: { pollInterval: "1 hour" } },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          yield* script.push(...Array.from({ length: 10 }, () => responded(500, 25)))
          yield* TestClock.adjust(0)
          assert.lengthOf(
            (yield* attemptLog(deliveryId(1))).attempt_log,
            1,
            "the initial attempt runs at once"
          )
          for (const [i, offset] of RetryOffsetsMs.entries()) {
            yield* TestClock.setTime(T0 + offset - 1)
            assert.lengthOf((yield* attemptLog(deliveryId(1))).attempt_log, i + 1, `retry ${i + 1} not early`)
            yield* TestClock.setTime(T0 + offset)
            assert.lengthOf((yield* attemptLog(deliveryId(1))).attempt_log, i + 2, `retry ${i + 1} on time`)
          }
          yield* TestClock.setTime(T0 + 100 * HOUR)
          const stored = yield* attemptLog(deliveryId(1))
          assert.deepStrictEqual(
            stored.attempt_log.map((a) => millisOf(a.started_at) - T0),
            [0, ...RetryOffsetsMs]
          )
          assert.strictEqual(stored.status, "failed")
          assert.strictEqual(stored.last_error, "HTTP 500")
          assert.isNull(stored.next_attempt_at)
          assert.lengthOf(yield* script.requests, 6, "no seventh POST")
        })
      )
  )

  it.effect("a 2xx on retry 3 delivers: the delivery is delivered and never attempted again", () =>
    withDispatcher(
      { deliveries: [delivery(1)], options: { pollInterval: "1 hour" } },
      Effect.gen(function* () {
        const script = yield* WebhookTransportScript
        yield* script.push(
          responded(500, 5),
          noResponse("connection_reset", 3, "socket hang up"),
          noResponse("timeout", 10_000),
          responded(204, 8),
          ...Array.from({ length: 5 }, () => responded(500, 5))
        )
        yield* TestClock.setTime(T0 + 100 * HOUR)
        const stored = yield* attemptLog(deliveryId(1))
        assert.strictEqual(stored.status, "delivered")
        assert.deepStrictEqual(
          stored.attempt_log.map((a) => [a.attempt, millisOf(a.started_at) - T0, a.outcome]),
          [
            [0, 0, "http_error"],
            [1, RetryOffsetsMs[0], "network_error"],
            [2, RetryOffsetsMs[1], "timeout"],
            [3, RetryOffsetsMs[2], "delivered"]
          ]
        )
        assert.lengthOf(yield* script.requests, 4)
      })
    )
  )

  it.effect(
    "every attempt is signed: the same delivery_id and body each time, a fresh webhook-timestamp, signatures that verify",
    () =>
      withDispatcher(
        { deliveries: [delivery(1)] },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          const signer = yield* Signer
          yield* script.push(responded(502, 5), responded(200, 5))
          yield* TestClock.setTime(T0 + RetryOffsetsMs[0]! + 500)
          const requests = yield* script.requests
          const stored = yield* attemptLog(deliveryId(1))
          assert.strictEqual(stored.status, "delivered")
          assert.lengthOf(requests, 2)
          for (const [i, request] of requests.entries()) {
            const startedAt = millisOf(stored.attempt_log[i]!.started_at)
            assert.strictEqual(request.url, URL)
            assert.strictEqual(request.timeoutMs, 10_000, "the spec's receiver timeout")
            assert.strictEqual(request.body, stored.body, "the stored bytes, unchanged")
            assert.strictEqual(request.headers["content-type"], "application/json")
            assert.strictEqual(request.headers["webhook-id"], deliveryId(1))
            assert.strictEqual(request.headers["webhook-timestamp"], String(Math.floor(startedAt / 1_000)))
            const signature = request.headers["X-Service-Signature"]!
            assert.match(signature, /^[0-9a-f]{64}$/)
            assert.isTrue(signer.verify(KEY, request.body, signature))
            assert.isFalse(signer.verify(signingKeyFromBytes(new Uint8Array(32)), request.body, signature))
            const standard = {
              webhookId: request.headers["webhook-id"]!,
              timestampSeconds: Number(request.headers["webhook-timestamp"]),
              body: request.body,
              signatureHeader: request.headers["webhook-signature"]!
            }
            assert.isTrue(verifyStandardWebhook(signer, KEY, standard))
            assert.isFalse(verifyStandardWebhook(signer, KEY, { ...standard, timestampSeconds: 0 }))
          }
          assert.notStrictEqual(
            requests[0]!.headers["webhook-timestamp"],
            requests[1]!.headers["webhook-timestamp"]
          )
          assert.strictEqual(
            Number(requests[1]!.headers["webhook-timestamp"]) -
              Number(requests[0]!.headers["webhook-timestamp"]),
            30
          )
        })
      )
  )

  it.effect("a scaled retry policy gives scaled offsets, each attempt on time even between polls", () => {
    const policy = retryPolicy({ scale: 0.001 })
    return withDispatcher(
      { deliveries: [delivery(1)], policy },
      Effect.gen(function* () {
        const script = yield* WebhookTransportScript
        yield* script.push(...Array.from({ length: 6 }, () => responded(503, 1)))
        yield* TestClock.setTime(T0 + HOUR)
        const stored = yield* attemptLog(deliveryId(1))
        assert.deepStrictEqual(policy.offsetsMs, [30, 300, 1_800, 7_200, 43_200])
        assert.deepStrictEqual(
          stored.attempt_log.map((a) => millisOf(a.started_at) - T0),
          [0, 30, 300, 1_800, 7_200, 43_200]
        )
        assert.strictEqual(stored.status, "failed")
      })
    )
  })

  it.effect(
    "a retry due before the next poll is attempted on time even when its failed attempt was still in flight as the loop went to sleep",
    () => {
      const policy = retryPolicy({ scale: 0.001 })
      const { stats, layer } = timedTransport(() => 10, 500)
      return withDispatcher(
        { deliveries: [delivery(1)], policy, transport: layer },
        Effect.gen(function* () {
          yield* TestClock.setTime(T0 + HOUR)
          const stored = yield* attemptLog(deliveryId(1))
          assert.deepStrictEqual(
            stored.attempt_log.map((a) => millisOf(a.started_at) - T0),
            [0, 30, 300, 1_800, 7_200, 43_200]
          )
          assert.lengthOf(stats.sent, 6)
        })
      )
    }
  )

  it.effect(
    "a 2xx after more than 10 s counts as no response: the attempt failed and a retry is scheduled",
    () =>
      withDispatcher(
        { deliveries: [delivery(1)], loop: false },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          yield* script.push(responded(200, 10_001))
          const summary = yield* (yield* WebhookDispatcher).runOnce
          assert.deepStrictEqual(summary, { claimed: 1, delivered: 0, retrying: 1, failed: 0, abandoned: 0 })
          const stored = yield* attemptLog(deliveryId(1))
          assert.strictEqual(stored.status, "pending")
          assert.strictEqual(stored.attempt_log[0]!.outcome, "late_response")
          assert.strictEqual(millisOf(stored.next_attempt_at!), T0 + 30 * SECOND)
        })
      )
  )

  it.effect(
    "a transport that does not stop at its timeout is cut off 5 s later and recorded as a timeout",
    () =>
      withDispatcher(
        {
          deliveries: [delivery(1)],
          loop: false,
          transport: Layer.succeed(WebhookTransport, WebhookTransport.of({ send: () => Effect.never }))
        },
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild((yield* WebhookDispatcher).runOnce)
          yield* TestClock.adjust(15 * SECOND - 1)
          assert.lengthOf((yield* attemptLog(deliveryId(1))).attempt_log, 0, "still waiting")
          yield* TestClock.adjust(1)
          const summary = yield* Fiber.join(fiber)
          assert.strictEqual(summary.retrying, 1)
          const [attempt] = (yield* attemptLog(deliveryId(1))).attempt_log
          assert.strictEqual(attempt!.outcome, "timeout")
          assert.strictEqual(attempt!.duration_ms, 15_000)
          assert.strictEqual(attempt!.error, "timeout: the transport did not stop at the receiver timeout")
        })
      )
  )

  it.effect(
    "a delivery whose rule was deleted sends nothing: each attempt is recorded as refused on the schedule, and it ends failed",
    () =>
      withDispatcher(
        { rules: [], deliveries: [delivery(1)], options: { pollInterval: "1 hour" } },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          yield* TestClock.setTime(T0 + 13 * HOUR)
          const stored = yield* attemptLog(deliveryId(1))
          assert.lengthOf(yield* script.requests, 0, "nothing is sent for a deleted rule")
          assert.strictEqual(stored.status, "failed")
          assert.deepStrictEqual(
            stored.attempt_log.map((a) => [millisOf(a.started_at) - T0, a.outcome, a.error]),
            [0, ...RetryOffsetsMs].map((offset) => [
              offset,
              "network_error",
              `target_refused: ${RuleDeletedMessage}`
            ])
          )
          assert.strictEqual(stored.last_error, `target_refused: ${RuleDeletedMessage}`)
        })
      )
  )

  it.effect(
    "a rule deleted between attempts: the next attempt sends nothing and is recorded as refused",
    () =>
      withDispatcher(
        { deliveries: [delivery(1)], loop: false },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          const dispatcher = yield* WebhookDispatcher
          yield* script.push(responded(500, 5))
          yield* dispatcher.runOnce
          yield* (yield* AlertRuleRepository).delete("acct-1", RULE)
          yield* TestClock.setTime(T0 + 30 * SECOND)
          yield* dispatcher.runOnce
          const stored = yield* attemptLog(deliveryId(1))
          assert.lengthOf(yield* script.requests, 1)
          assert.deepStrictEqual(
            stored.attempt_log.map((a) => a.error),
            ["HTTP 500", `target_refused: ${RuleDeletedMessage}`]
          )
          assert.strictEqual(
            millisOf(stored.next_attempt_at!),
            T0 + 5 * 60 * SECOND,
            "it keeps to the schedule"
          )
        })
      )
  )

  it.effect("runOnce claims at most `concurrency` due deliveries and sends them all at once", () => {
    const { stats, layer } = timedTransport(() => SECOND)
    return withDispatcher(
      {
        deliveries: Array.from({ length: 10 }, (_, i) => delivery(i + 1)),
        options: { concurrency: 4 },
        loop: false,
        transport: layer
      },
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild((yield* WebhookDispatcher).runOnce)
        yield* TestClock.adjust(SECOND)
        const summary = yield* Fiber.join(fiber)
        assert.deepStrictEqual(summary, { claimed: 4, delivered: 4, retrying: 0, failed: 0, abandoned: 0 })
        assert.strictEqual(stats.maxInFlight, 4, "four sends overlapped, so one second was enough for all")
        assert.lengthOf(stats.sent, 4)
      })
    )
  })

  it.effect(
    "run keeps at most `concurrency` sends in flight, and a receiver that hangs holds one slot while the others drain",
    () => {
      const { stats, layer } = timedTransport((request) => (request.url.endsWith("/slow") ? 9 * SECOND : 100))
      return withDispatcher(
        {
          rules: [rule(RULE), rule(SLOW_RULE, "https://hooks.example.com/slow")],
          // The hanging receiver's delivery is claimed first.
          deliveries: [delivery(0, SLOW_RULE), ...Array.from({ length: 8 }, (_, i) => delivery(i + 1))],
          options: { concurrency: 3 },
          transport: layer
        },
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* TestClock.adjust(400)
          const fast = yield* Effect.forEach(
            Array.from({ length: 8 }, (_, i) => deliveryId(i + 1)),
            (id) => outbox.get(id)
          )
          assert.deepStrictEqual(
            fast.map((d) => d.status),
            Array.from({ length: 8 }, () => "delivered"),
            "two slots drained eight deliveries in 400 ms"
          )
          assert.strictEqual(
            (yield* outbox.get(deliveryId(0))).status,
            "pending",
            "the slow one is still in flight"
          )
          assert.strictEqual(stats.maxInFlight, 3)
          yield* TestClock.adjust(9 * SECOND)
          assert.strictEqual((yield* outbox.get(deliveryId(0))).status, "delivered")
          assert.strictEqual(stats.maxInFlight, 3, "never more than the bound")
          assert.lengthOf(stats.sent, 9, "each delivery sent once")
        })
      )
    }
  )

  it.effect("the loop picks up deliveries enqueued while it sleeps, within one poll interval", () =>
    withDispatcher(
      {},
      Effect.gen(function* () {
        const script = yield* WebhookTransportScript
        yield* TestClock.adjust(10 * SECOND)
        yield* (yield* DeliveryOutbox).enqueue([delivery(1, RULE, T0 + 10 * SECOND)])
        yield* TestClock.adjust(SECOND)
        assert.lengthOf(yield* script.requests, 1)
        assert.strictEqual((yield* attemptLog(deliveryId(1))).status, "delivered")
      })
    )
  )

  it.effect(
    "an attempt whose outcome cannot be recorded does not stop the loop: the delivery returns when its claim expires",
    () => {
      let failures = 1
      const flakyOutbox = Layer.effect(
        DeliveryOutbox,
        Effect.gen(function* () {
          const inner = yield* DeliveryOutbox
          return DeliveryOutbox.of({
            ...inner,
            // The first record fails, whichever way the dispatcher records.
            recordAttempt: (claimed, input) =>
              failures-- > 0
                ? Effect.die(new StoreError({ message: "connection lost" }))
                : inner.recordAttempt(claimed, input),
            recordAttempts: (attempts) =>
              failures-- > 0
                ? Effect.die(new StoreError({ message: "connection lost" }))
                : inner.recordAttempts(attempts)
          })
        })
      ).pipe(Layer.provide(DeliveryOutboxMemory.layer))
      return Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        yield* (yield* AlertRuleRepository).create(rule(RULE))
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([delivery(1)])
        yield* Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          yield* TestClock.adjust(59 * SECOND)
          assert.lengthOf(yield* script.requests, 1, "sent once; the record failed")
          assert.lengthOf((yield* outbox.get(deliveryId(1))).attempt_log, 0)
          yield* TestClock.adjust(SECOND)
          const stored = yield* outbox.get(deliveryId(1))
          assert.strictEqual(stored.status, "delivered", "claimed again when the 60 s lease ran out")
          assert.strictEqual(millisOf(stored.attempt_log[0]!.started_at), T0 + 60 * SECOND)
          yield* outbox.enqueue([delivery(2, RULE, T0 + 60 * SECOND)])
          yield* TestClock.adjust(SECOND)
          assert.strictEqual((yield* outbox.get(deliveryId(2))).status, "delivered", "the loop is alive")
        }).pipe(Effect.provide(WebhookDispatcher.layer()))
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            AlertRuleRepositoryMemory.layer,
            flakyOutbox,
            SignerMemory.layer,
            WebhookTransportMemory.layer
          )
        )
      )
    }
  )

  it.effect(
    "deliverNow makes the initial attempt at once, and no claim takes the delivery while it runs",
    () => {
      const { stats, layer } = timedTransport(() => 2 * SECOND)
      return withDispatcher(
        { loop: false, transport: layer },
        Effect.gen(function* () {
          const dispatcher = yield* WebhookDispatcher
          const fiber = yield* Effect.forkChild(dispatcher.deliverNow(delivery(1)))
          yield* TestClock.adjust(SECOND)
          const meanwhile = yield* dispatcher.runOnce
          assert.strictEqual(meanwhile.claimed, 0, "the delivery is leased to deliverNow")
          yield* TestClock.adjust(SECOND)
          const { delivery: after, attempt } = yield* Fiber.join(fiber)
          assert.strictEqual(after.status, "delivered")
          assert.strictEqual(attempt.started_at, "2026-08-01T00:00:00+00:00")
          assert.lengthOf(stats.sent, 1)
        })
      )
    }
  )

  it.effect(
    "attempts that end while a record is being written are recorded together, in one call to the outbox",
    () => {
      const stores = observedStores(DefaultRetryPolicy, { recordMs: 10 })
      // Delivery n answers after 100 + n ms: the first record (10 ms) overlaps the other seven sends.
      const { layer } = timedTransport((request) => 100 + Number(request.headers["webhook-id"]!.slice(-12)))
      return withDispatcher(
        {
          deliveries: Array.from({ length: 8 }, (_, i) => delivery(i + 1)),
          options: { concurrency: 8 },
          loop: false,
          transport: layer,
          stores: stores.layer
        },
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild((yield* WebhookDispatcher).runOnce)
          yield* TestClock.adjust(SECOND)
          const summary = yield* Fiber.join(fiber)
          assert.deepStrictEqual(summary, { claimed: 8, delivered: 8, retrying: 0, failed: 0, abandoned: 0 })
          assert.deepStrictEqual(stores.calls.recordBatches, [1, 7])
          assert.strictEqual(stores.calls.recordAlone, 0)
          for (let n = 1; n <= 8; n++) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.strictEqual(stored.status, "delivered")
            assert.strictEqual(millisOf(stored.attempt_log[0]!.started_at), T0, "started together")
            assert.strictEqual(stored.attempt_log[0]!.duration_ms, 100 + n)
          }
        })
      )
    }
  )

  it.effect(
    "run claims for many deliveries at once, ahead of its free slots, reads their rules in one lookup per claim, and still keeps at most `concurrency` sends in flight",
    () => {
      const stores = observedStores(DefaultRetryPolicy)
      // Staggered answers: slots free up one at a time, as they do with real receivers.
      const { stats, layer } = timedTransport(
        (request) => 100 + (Number(request.headers["webhook-id"]!.slice(-12)) % 4) * 7
      )
      return withDispatcher(
        {
          deliveries: Array.from({ length: 30 }, (_, i) => delivery(i + 1)),
          options: { concurrency: 4 },
          transport: layer,
          stores: stores.layer
        },
        Effect.gen(function* () {
          yield* TestClock.adjust(2 * SECOND)
          for (let n = 1; n <= 30; n++)
            assert.strictEqual((yield* attemptLog(deliveryId(n))).status, "delivered")
          assert.lengthOf(stats.sent, 30, "each delivery sent once")
          assert.strictEqual(stats.maxInFlight, 4, "the slots were kept full, and never over the bound")
          const fruitful = stores.calls.claims.filter((c) => c.got > 0)
          assert.isTrue(
            stores.calls.claims.every((c) => c.limit >= 4),
            `no claim for fewer than a slot-full: ${JSON.stringify(stores.calls.claims)}`
          )
          assert.isAtMost(
            fruitful.length,
            6,
            "30 deliveries in a handful of claims, not one per finished send"
          )
          assert.strictEqual(
            stores.calls.destinationBatches,
            fruitful.length,
            "one lookup of rules per claim"
          )
          assert.strictEqual(stores.calls.destinationLookups, 0, "no lookup per delivery")
        })
      )
    }
  )

  it.effect(
    "a delivery claimed ahead that could not start in time to end well inside its lease is not sent; it is attempted once its lease has ended",
    () => {
      // The shortest lease allowed: a ready delivery must start within 1 ms of its claim.
      const leaseMs = 2 * (10 * SECOND + 5 * SECOND) + 1
      const { stats, layer } = timedTransport((request) => (request.url.endsWith("/slow") ? 9 * SECOND : 100))
      return withDispatcher(
        {
          rules: [rule(RULE), rule(SLOW_RULE, "https://hooks.example.com/slow")],
          deliveries: [delivery(0, SLOW_RULE), delivery(1)],
          options: { concurrency: 1, leaseMs },
          transport: layer
        },
        Effect.gen(function* () {
          yield* TestClock.adjust(leaseMs - 1)
          assert.deepStrictEqual(
            stats.sent.map((r) => r.headers["webhook-id"]),
            [deliveryId(0)],
            "delivery 1 waited 9 s behind the slow send: too long to start"
          )
          assert.lengthOf((yield* attemptLog(deliveryId(1))).attempt_log, 0)
          yield* TestClock.adjust(2 * SECOND)
          const stored = yield* attemptLog(deliveryId(1))
          assert.strictEqual(stored.status, "delivered")
          assert.lengthOf(stored.attempt_log, 1)
          assert.isAtLeast(millisOf(stored.attempt_log[0]!.started_at), T0 + leaseMs, "after its lease ended")
          assert.lengthOf(stats.sent, 2)
        })
      )
    }
  )

  it.effect(
    "if the rules of a claimed batch cannot be read, none of it is sent, and the deliveries are attempted once their leases end",
    () => {
      const stores = observedStores(DefaultRetryPolicy, { failDestinations: 1 })
      return withDispatcher(
        { deliveries: [delivery(1), delivery(2)], stores: stores.layer },
        Effect.gen(function* () {
          const script = yield* WebhookTransportScript
          yield* TestClock.adjust(60 * SECOND - 1)
          assert.lengthOf(yield* script.requests, 0, "nothing sent without its rule")
          assert.lengthOf((yield* attemptLog(deliveryId(1))).attempt_log, 0)
          yield* TestClock.adjust(2 * SECOND)
          assert.lengthOf(yield* script.requests, 2)
          for (const n of [1, 2]) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.strictEqual(stored.status, "delivered")
            assert.isAtLeast(millisOf(stored.attempt_log[0]!.started_at), T0 + 60 * SECOND)
          }
        })
      )
    }
  )

  /**
   * The loop's dispatcher built in a scope of its own at T0 (the clock
   * withDispatcher set), so the test can close it while sends are in flight.
   * `closed()` tells whether the close has finished.
   */
  const loopInScope = (options: WebhookDispatcherOptions) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(WebhookDispatcher.layer(options), scope)
      let closed = false
      return {
        close: Effect.forkChild(
          Effect.andThen(
            Scope.close(scope, Exit.void),
            Effect.sync(() => {
              closed = true
            })
          )
        ),
        closed: () => closed
      }
    })

  it.effect(
    "a stopped dispatcher claims nothing more and lets the sends in flight finish within its stop grace, recording their attempts (SIGTERM drains webhook sends)",
    () => {
      const { stats, layer } = timedTransport(() => 3 * SECOND)
      return withDispatcher(
        { deliveries: [delivery(1), delivery(2)], loop: false, transport: layer },
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          const dispatcher = yield* loopInScope({ stopGrace: "10 seconds" })
          yield* TestClock.adjust(SECOND)
          assert.strictEqual(stats.inFlight, 2, "both sends are in flight when the stop comes")
          const closing = yield* dispatcher.close
          yield* Effect.yieldNow
          // Due while the dispatcher stops: it is not claimed.
          yield* outbox.enqueue([delivery(3, RULE, T0 + SECOND)])
          yield* TestClock.adjust(2 * SECOND - 1)
          assert.isFalse(dispatcher.closed(), "the stop waits for the sends in flight")
          yield* TestClock.adjust(1)
          yield* Fiber.join(closing)
          assert.isTrue(dispatcher.closed(), "and ends as soon as they are recorded, well inside the grace")
          for (const n of [1, 2]) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.strictEqual(stored.status, "delivered", `delivery ${n}`)
            assert.deepStrictEqual(
              stored.attempt_log.map((a) => [a.outcome, millisOf(a.started_at)]),
              [["delivered", T0]],
              `delivery ${n}: its one attempt is recorded`
            )
          }
          assert.lengthOf(stats.sent, 2, "nothing was sent after the stop")
          const unclaimed = yield* outbox.claimDue({ at: T0 + 3 * SECOND, limit: 10 })
          assert.deepStrictEqual(
            unclaimed.map((d) => d.delivery_id),
            [deliveryId(3)],
            "the delivery due during the stop was never claimed"
          )
        })
      )
    }
  )

  it.effect(
    "sends still running when the stop grace ends are interrupted, not recorded, and left to their claims: attempted again once the lease runs out",
    () => {
      const { stats, layer } = timedTransport(() => 5 * SECOND)
      return withDispatcher(
        { deliveries: [delivery(1)], loop: false, transport: layer },
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          const dispatcher = yield* loopInScope({ stopGrace: "2 seconds" })
          yield* TestClock.adjust(SECOND)
          assert.strictEqual(stats.inFlight, 1)
          const closing = yield* dispatcher.close
          yield* TestClock.adjust(2 * SECOND - 1)
          assert.isFalse(dispatcher.closed(), "the stop waits for the grace")
          yield* TestClock.adjust(1)
          yield* Fiber.join(closing)
          assert.isTrue(dispatcher.closed(), "and ends when the grace does")
          const stored = yield* attemptLog(deliveryId(1))
          assert.strictEqual(stored.status, "pending")
          assert.lengthOf(stored.attempt_log, 0, "the cut send is not recorded")
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND - 1, limit: 10 }), 0, "still claimed")
          const again = yield* outbox.claimDue({ at: T0 + 60 * SECOND, limit: 10 })
          assert.deepStrictEqual(
            again.map((d) => d.delivery_id),
            [deliveryId(1)],
            "claimable again when the lease of its claim ends"
          )
        })
      )
    }
  )

  it.effect(
    "on stop, deliveries claimed but not yet started are handed back at once, not attempted: another dispatcher sends them at once, not after their leases (SIGTERM drains webhook sends)",
    () => {
      const { stats, layer } = timedTransport(() => 3 * SECOND)
      const sentIds = () => stats.sent.map((r) => r.headers["webhook-id"])
      return withDispatcher(
        { deliveries: [delivery(1), delivery(2), delivery(3)], loop: false, transport: layer },
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          // One send slot: the loop claims all three ahead, sends 1, and holds 2 and 3 ready.
          const stopping = yield* loopInScope({ concurrency: 1, stopGrace: "10 seconds" })
          yield* TestClock.adjust(SECOND)
          assert.deepStrictEqual(sentIds(), [deliveryId(1)])
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + SECOND, limit: 10 }), 0, "2 and 3 are claimed")
          const closing = yield* stopping.close
          yield* TestClock.adjust(0)
          for (const n of [2, 3]) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.deepStrictEqual(
              [stored.status, stored.attempts, stored.attempt_log.length, millisOf(stored.next_attempt_at!)],
              ["pending", 0, 0, T0],
              `delivery ${n} was not attempted, and is due as it was`
            )
          }
          // Another server process's dispatcher, started while the first still drains its send.
          const other = yield* loopInScope({})
          yield* TestClock.adjust(0)
          assert.deepStrictEqual(
            sentIds(),
            [deliveryId(1), deliveryId(2), deliveryId(3)],
            "2 and 3 are sent at once, not when their 60 s leases end"
          )
          yield* TestClock.adjust(2 * SECOND)
          yield* Fiber.join(closing)
          assert.isTrue(stopping.closed(), "the stop ended when its one send was recorded")
          yield* TestClock.adjust(SECOND)
          for (const n of [1, 2, 3]) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.strictEqual(stored.status, "delivered", `delivery ${n}`)
            assert.deepStrictEqual(
              stored.attempt_log.map((a) => millisOf(a.started_at)),
              [n === 1 ? T0 : T0 + SECOND],
              `delivery ${n}: one attempt`
            )
          }
          assert.lengthOf(stats.sent, 3, "each sent once")
          yield* Fiber.join(yield* other.close)
        })
      )
    }
  )

  it.effect(
    "options that could let a send outlive its claim, or stall the loop, are refused when the layer is built",
    () =>
      Effect.gen(function* () {
        const refused: ReadonlyArray<WebhookDispatcherOptions> = [
          { leaseMs: 20 * SECOND },
          { concurrency: 0 },
          { concurrency: 1.5 },
          { pollInterval: 0 },
          { stopGrace: -1 },
          { hostConcurrency: 0 },
          { hostConcurrency: 2.5 }
        ]
        for (const options of refused) {
          const exit = yield* Effect.exit(
            Effect.provide(
              Effect.asVoid(WebhookDispatcher),
              WebhookDispatcher.layerWithoutLoop(options).pipe(Layer.provide(ports(DefaultRetryPolicy)))
            )
          )
          assert.strictEqual(exit._tag, "Failure", JSON.stringify(options))
        }
      })
  )

  it.effect(
    "a send slot is free once its send is over, not once its outcome is recorded: a slow database does not " +
      "slow the sends, which stay within `concurrency`, and every outcome is still recorded",
    () => {
      const stores = observedStores(DefaultRetryPolicy, { recordMs: SECOND })
      const { stats, layer } = timedTransport(() => 100)
      return withDispatcher(
        {
          deliveries: Array.from({ length: 12 }, (_, i) => delivery(i + 1)),
          options: { concurrency: 2 },
          transport: layer,
          stores: stores.layer
        },
        Effect.gen(function* () {
          // Two slots, 100 ms a send, while each batch record takes 1 s: the loop holds 4 deliveries per
          // slot (sending, recording or ready), so 8 are sent before the first batch is recorded.
          yield* TestClock.adjust(650)
          assert.lengthOf(stats.sent, 8, "sends went on while the first batch was being recorded")
          assert.strictEqual(stats.maxInFlight, 2)
          yield* TestClock.adjust(5 * SECOND)
          for (let n = 1; n <= 12; n++) {
            const stored = yield* attemptLog(deliveryId(n))
            assert.strictEqual(stored.status, "delivered")
            assert.lengthOf(stored.attempt_log, 1)
          }
        })
      )
    }
  )

  it.effect(
    "once 32 attempts wait for a record being written, another batch is written beside it, up to 4 at once",
    () => {
      const stores = observedStores(DefaultRetryPolicy, { recordMs: 10 })
      // Delivery 1 answers after 100 ms, the 96 others together after 105 ms, while the first record runs.
      const { layer } = timedTransport((request) =>
        request.headers["webhook-id"] === deliveryId(1) ? 100 : 105
      )
      return withDispatcher(
        {
          deliveries: Array.from({ length: 97 }, (_, i) => delivery(i + 1)),
          options: { concurrency: 97 },
          loop: false,
          transport: layer,
          stores: stores.layer
        },
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild((yield* WebhookDispatcher).runOnce)
          yield* TestClock.adjust(SECOND)
          const summary = yield* Fiber.join(fiber)
          assert.deepStrictEqual(summary, {
            claimed: 97,
            delivered: 97,
            retrying: 0,
            failed: 0,
            abandoned: 0
          })
          const batches = stores.calls.recordBatches
          assert.strictEqual(
            batches.reduce((a, b) => a + b, 0),
            97
          )
          assert.strictEqual(batches[0], 1)
          // One writer alone would have written [1, 96]; each further writer takes about 32.
          assert.isAtLeast(batches.length, 4, JSON.stringify(batches))
          assert.isAtMost(batches.length, 6, JSON.stringify(batches))
          assert.isAtLeast(Math.max(...batches), 31)
          assert.strictEqual(stores.calls.recordAlone, 0)
        })
      )
    }
  )
})
