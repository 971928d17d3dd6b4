/**
 * The dispatcher's loop over a transport that has `start` (the production
 * transport's callback form): the loop drives its sends without `send`,
 * within its bounds, signs every request, records every outcome; a send that
 * never reports is cut off at the timeout plus the grace; closing the
 * dispatcher aborts what is in flight, or with a stop grace lets it finish.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { AlertRuleRecord } from "../../src/model/AlertRule.ts"
import {
  type Delivery,
  millisOf,
  noResponse,
  responded,
  type TransportOutcome
} from "../../src/model/Delivery.ts"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { type SendDone, type WebhookRequest, WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import {
  EndpointDisabledMessage,
  WebhookDispatcher,
  type WebhookDispatcherOptions
} from "../../src/services/WebhookDispatcher.ts"
import { newDelivery } from "../../src/webhooks/DeliveryStateMachine.ts"
import { DefaultRetryPolicy, RetryPolicy } from "../../src/webhooks/RetrySchedule.ts"
import { signingKeyFromBytes, verifyStandardWebhook } from "../../src/webhooks/WebhookSignature.ts"
import * as SignerMemory from "../support/SignerMemory.ts"

const SECOND = 1_000
const DAY = 24 * 60 * 60 * SECOND
const T0 = Date.UTC(2026, 7, 1)
const RULE = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
const KEY = signingKeyFromBytes(new Uint8Array(32).map((_, i) => i * 5))
const deliveryId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const delivery = (n: number): Delivery =>
  newDelivery({
    delivery_id: deliveryId(n),
    rule_id: RULE,
    event: "rating.changed",
    body: `{"event":"rating.changed","delivery_id":"${deliveryId(n)}"}`,
    at: T0
  })

const rule: AlertRuleRecord = {
  id: RULE,
  account_id: "acct-1",
  signing_key: KEY,
  name: null,
  entity_types: [],
  slugs: [],
  events: [],
  channels: { webhook_url: "https://hooks.example.com/ratings" },
  created_at: "2026-08-01T00:00:00+00:00"
}

/** A started send the test answers by hand. */
interface Started {
  readonly request: WebhookRequest
  readonly done: SendDone
  aborted: boolean
}

/** A transport with `start` only (its `send` is a defect): sends wait until the test answers them. */
const startedTransport = () => {
  const started: Array<Started> = []
  const open = () => started.filter((s) => !s.aborted && !answered.has(s))
  const answered = new Set<Started>()
  const answer = (outcome: TransportOutcome, count = Number.POSITIVE_INFINITY) => {
    for (const s of open().slice(0, count)) {
      answered.add(s)
      s.done(outcome)
    }
  }
  const layer = Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      send: () => Effect.die(new Error("the loop must drive `start`, not `send`")),
      start: (request, done) => {
        const s: Started = { request, done, aborted: false }
        started.push(s)
        // As the port requires of an abort (and undici does): the send reports at once.
        return () => {
          s.aborted = true
          done(noResponse("other", 0, "ERR_WEBHOOK_INTERRUPTED: the send was interrupted"))
        }
      }
    })
  )
  return { started, open, answer, layer }
}

/** The in-memory outbox with each batch record taking `recordMs` of the clock; `batches` lists their sizes as they start. */
const slowOutbox = (recordMs: number) => {
  const batches: Array<number> = []
  const layer = Layer.effect(
    DeliveryOutbox,
    Effect.gen(function* () {
      const inner = yield* DeliveryOutbox
      return DeliveryOutbox.of({
        ...inner,
        recordAttempts: (attempts) => {
          batches.push(attempts.length)
          return Effect.andThen(Effect.sleep(recordMs), inner.recordAttempts(attempts))
        }
      })
    })
  ).pipe(Layer.provide(DeliveryOutboxMemory.layer))
  return { batches, layer }
}

const ports = (
  transport: Layer.Layer<WebhookTransport>,
  outbox: Layer.Layer<DeliveryOutbox> = DeliveryOutboxMemory.layer
) =>
  Layer.mergeAll(AlertRuleRepositoryMemory.layer, outbox, SignerMemory.layer, transport).pipe(
    Layer.provideMerge(Layer.succeed(RetryPolicy, DefaultRetryPolicy))
  )

/** Seeds the rule and `n` deliveries at T0, then starts the dispatcher's loop in a scope the test closes. */
const withLoop = <A, E>(
  n: number,
  options: WebhookDispatcherOptions,
  transport: Layer.Layer<WebhookTransport>,
  body: (
    close: Effect.Effect<Fiber.Fiber<void>>,
    closed: () => boolean
  ) => Effect.Effect<A, E, DeliveryOutbox>,
  outbox?: Layer.Layer<DeliveryOutbox>,
  arrange: (rules: AlertRuleRepository["Service"]) => Effect.Effect<unknown> = () => Effect.void
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const rules = yield* AlertRuleRepository
    yield* rules.create(rule)
    yield* arrange(rules)
    yield* (yield* DeliveryOutbox).enqueue(Array.from({ length: n }, (_, i) => delivery(i + 1)))
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(WebhookDispatcher.layer(options), scope)
    let closed = false
    const close = Effect.forkChild(
      Effect.andThen(
        Scope.close(scope, Exit.void),
        Effect.sync(() => {
          closed = true
        })
      )
    )
    return yield* body(close, () => closed)
  }).pipe(Effect.provide(ports(transport, outbox)))

const stored = (n: number) =>
  Effect.gen(function* () {
    return yield* (yield* DeliveryOutbox).get(deliveryId(n))
  })

describe("WebhookDispatcher over a transport's start", () => {
  it.effect("the loop hands the outbox its attempts only: no destination, URL or key goes with them", () => {
    const t = startedTransport()
    const handed: Array<string> = []
    const outbox = Layer.effect(
      DeliveryOutbox,
      Effect.gen(function* () {
        const inner = yield* DeliveryOutbox
        return DeliveryOutbox.of({
          ...inner,
          recordAttempts: (attempts) => {
            for (const a of attempts) handed.push(JSON.stringify(a))
            return inner.recordAttempts(attempts)
          }
        })
      })
    ).pipe(Layer.provide(DeliveryOutboxMemory.layer))
    return withLoop(
      3,
      { concurrency: 4 },
      t.layer,
      (close) =>
        Effect.gen(function* () {
          yield* TestClock.adjust(0)
          t.answer(responded(204, 5))
          yield* TestClock.adjust(0)
          assert.lengthOf(handed, 3)
          for (const text of handed) {
            assert.deepStrictEqual(Object.keys(JSON.parse(text)).sort(), ["claimed", "input"])
            assert.notInclude(text, KEY)
            assert.notInclude(text, rule.channels.webhook_url)
          }
          yield* Fiber.join(yield* close)
        }),
      outbox
    )
  })

  it.effect(
    "the loop drives `start` within its slots: every request signed, every outcome recorded, one attempt each",
    () => {
      const t = startedTransport()
      return withLoop(10, { concurrency: 4 }, t.layer, (close) =>
        Effect.gen(function* () {
          yield* TestClock.adjust(0)
          assert.lengthOf(t.open(), 4, "as many sends in flight as slots")
          for (let round = 0; round < 3; round++) {
            t.answer(responded(204, 5))
            yield* TestClock.adjust(0)
          }
          assert.lengthOf(t.started, 10, "each delivery started once")
          for (let n = 1; n <= 10; n++) {
            const d = yield* stored(n)
            assert.strictEqual(d.status, "delivered", `delivery ${n}`)
            assert.deepStrictEqual(
              d.attempt_log.map((a) => [a.outcome, a.status_code]),
              [["delivered", 204]]
            )
          }
          for (const { request } of t.started) {
            assert.isTrue(
              verifyStandardWebhook(SignerMemory.make(), KEY, {
                webhookId: request.headers["webhook-id"]!,
                timestampSeconds: Number(request.headers["webhook-timestamp"]),
                body: request.body,
                signatureHeader: request.headers["webhook-signature"]!
              })
            )
            assert.strictEqual(request.timeoutMs, DefaultRetryPolicy.receiverTimeoutMs)
          }
          yield* Fiber.join(yield* close)
        })
      )
    }
  )

  it.effect(
    "a disabled endpoint's deliveries are held by the loop: never started, failed at once without an attempt, and the loop goes on",
    () => {
      const t = startedTransport()
      const disable = (rules: AlertRuleRepository["Service"]) =>
        rules.recordHealth(
          [{ rule_id: RULE, delivered: false, failing_from: T0 - DAY, last_failure: T0 }],
          DAY,
          "failing for a day"
        )
      return withLoop(
        3,
        { concurrency: 2 },
        t.layer,
        (close) =>
          Effect.gen(function* () {
            yield* TestClock.adjust(0)
            assert.lengthOf(t.started, 0, "nothing sent")
            for (let n = 1; n <= 3; n++) {
              const d = yield* stored(n)
              assert.strictEqual(d.status, "failed", `delivery ${n}`)
              assert.strictEqual(d.last_error, EndpointDisabledMessage)
              assert.deepStrictEqual(d.attempt_log, [])
            }
            yield* Fiber.join(yield* close)
          }),
        undefined,
        disable
      )
    }
  )

  it.effect(
    "a started send that never reports is aborted at the receiver timeout plus 5 s and recorded as a timeout",
    () => {
      const t = startedTransport()
      return withLoop(1, {}, t.layer, (close) =>
        Effect.gen(function* () {
          yield* TestClock.adjust(15 * SECOND - 1)
          assert.lengthOf((yield* stored(1)).attempt_log, 0, "still waiting")
          assert.isFalse(t.started[0]!.aborted)
          yield* TestClock.adjust(1)
          assert.isTrue(t.started[0]!.aborted, "the send was aborted")
          const d = yield* stored(1)
          assert.strictEqual(d.status, "pending")
          assert.strictEqual(millisOf(d.next_attempt_at!), T0 + 30 * SECOND)
          const [attempt] = d.attempt_log
          assert.strictEqual(attempt!.outcome, "timeout")
          assert.strictEqual(attempt!.duration_ms, 15_000)
          assert.strictEqual(attempt!.error, "timeout: the transport did not stop at the receiver timeout")
          // Its late report changes nothing.
          t.started[0]!.done(responded(200, 20_000))
          yield* TestClock.adjust(0)
          assert.lengthOf((yield* stored(1)).attempt_log, 1)
          // Nothing in flight until the retry at 30 s; the retry's send, silent too, is cut off in turn.
          yield* TestClock.adjust(15 * SECOND)
          assert.lengthOf(t.started, 2, "the retry was started at 30 s")
          yield* TestClock.adjust(15 * SECOND)
          assert.isTrue(t.started[1]!.aborted)
          assert.deepStrictEqual(
            (yield* stored(1)).attempt_log.map((a) => [a.outcome, millisOf(a.started_at), a.duration_ms]),
            [
              ["timeout", T0, 15_000],
              ["timeout", T0 + 30 * SECOND, 15_000]
            ]
          )
          yield* Fiber.join(yield* close)
        })
      )
    }
  )

  it.effect(
    "closing the dispatcher without a stop grace aborts the sends in flight; nothing is recorded, the claims keep their leases",
    () => {
      const t = startedTransport()
      return withLoop(3, {}, t.layer, (close, closed) =>
        Effect.gen(function* () {
          yield* TestClock.adjust(SECOND)
          assert.lengthOf(t.open(), 3)
          yield* Fiber.join(yield* close)
          assert.isTrue(closed())
          assert.isTrue(
            t.started.every((s) => s.aborted),
            "every send in flight aborted"
          )
          // An answer arriving after the abort is not recorded.
          for (const s of t.started) s.done(responded(200, 1))
          yield* TestClock.adjust(0)
          for (let n = 1; n <= 3; n++) {
            const d = yield* stored(n)
            assert.deepStrictEqual([d.status, d.attempt_log.length], ["pending", 0])
          }
          const outbox = yield* DeliveryOutbox
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 59 * SECOND, limit: 10 }), 0, "still leased")
        })
      )
    }
  )

  it.effect(
    "with a stop grace, the stop waits for the started sends to report and records them before it ends",
    () => {
      const t = startedTransport()
      return withLoop(2, { stopGrace: "10 seconds" }, t.layer, (close, closed) =>
        Effect.gen(function* () {
          yield* TestClock.adjust(SECOND)
          const closing = yield* close
          yield* TestClock.adjust(2 * SECOND)
          assert.isFalse(closed(), "the stop waits for the sends in flight")
          assert.isFalse(t.started.some((s) => s.aborted))
          t.answer(noResponse("connection_refused", 3, "ECONNREFUSED"))
          yield* Fiber.join(closing)
          assert.isTrue(closed())
          for (let n = 1; n <= 2; n++) {
            const d = yield* stored(n)
            assert.strictEqual(d.status, "pending")
            assert.deepStrictEqual(
              d.attempt_log.map((a) => [a.outcome, millisOf(a.started_at)]),
              [["network_error", T0]]
            )
          }
        })
      )
    }
  )

  it.effect(
    "outcomes that arrive while a record is written wait for it, unless a whole batch (256) waits: then a second writer records it beside the first",
    () => {
      const t = startedTransport()
      const outbox = slowOutbox(SECOND)
      const answerOne = () => t.answer(responded(204, 1), 1)
      return withLoop(
        300,
        { concurrency: 300, hostConcurrency: 300 },
        t.layer,
        (close) =>
          Effect.gen(function* () {
            yield* TestClock.adjust(0)
            assert.lengthOf(t.open(), 300)
            answerOne()
            yield* TestClock.adjust(0)
            assert.deepStrictEqual(outbox.batches, [1], "a lone outcome is recorded at once")
            for (let i = 0; i < 255; i++) answerOne()
            yield* TestClock.adjust(0)
            assert.deepStrictEqual(outbox.batches, [1], "255 waiting: no second writer")
            answerOne()
            yield* TestClock.adjust(0)
            assert.deepStrictEqual(outbox.batches, [1, 256], "a whole batch waiting starts a second writer")
            t.answer(responded(204, 1))
            yield* TestClock.adjust(SECOND)
            assert.deepStrictEqual(outbox.batches, [1, 256, 43], "the rest follows the first writer")
            yield* TestClock.adjust(SECOND)
            for (const n of [1, 150, 300]) assert.strictEqual((yield* stored(n)).status, "delivered")
            yield* Fiber.join(yield* close)
          }),
        outbox.layer
      )
    }
  )
})
