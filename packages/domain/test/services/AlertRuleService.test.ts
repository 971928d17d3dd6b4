import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  type AlertRuleCreate,
  type AlertRuleLimitReached,
  AlertRuleLimits
} from "../../src/model/AlertRule.ts"
import { millisOf, noResponse, responded } from "../../src/model/Delivery.ts"
import { WebhookTestEvent } from "../../src/model/WebhookEvent.ts"
import { WebhookTestReport } from "../../src/model/WebhookTest.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { Signer } from "../../src/ports/Signer.ts"
import * as AlertRuleServiceTest from "../support/AlertRuleServiceTest.ts"
import * as SignerMemory from "../support/SignerMemory.ts"
import { WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import { AlertRuleService } from "../../src/services/AlertRuleService.ts"
import { WebhookDispatcher } from "../../src/services/WebhookDispatcher.ts"
import { RetryOffsetsMs } from "../../src/webhooks/RetrySchedule.ts"
import { isSigningKey, verifyStandardWebhook } from "../../src/webhooks/WebhookSignature.ts"
import { WebhookTargetPolicy } from "../../src/webhooks/WebhookTargetPolicy.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { WebhookTransportScript } from "../../src/ports/memory/WebhookTransportMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"

const SECOND = 1_000
const T0 = Date.UTC(2026, 7, 1)
const ALICE = "acct-alice"
const BOB = "acct-bob"

const body = (overrides: Partial<AlertRuleCreate> = {}): AlertRuleCreate => ({
  name: "aave watch",
  entity_types: ["protocol"],
  slugs: ["aave", "aave"],
  channels: { webhook_url: "https://hooks.alice.example/ratings" },
  ...overrides
})

const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof AlertRuleServiceTest.layerTest>>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    return yield* effect
  }).pipe(Effect.provide(AlertRuleServiceTest.layerTest))

/** Runs the dispatcher through the whole schedule of `count` deliveries due at T0, the receiver failing every attempt. */
const failEverything = (count: number) =>
  Effect.gen(function* () {
    const script = yield* WebhookTransportScript
    const dispatcher = yield* WebhookDispatcher
    yield* script.push(
      ...Array.from({ length: count * (RetryOffsetsMs.length + 1) }, () => responded(500, 1))
    )
    for (const offset of [0, ...RetryOffsetsMs]) {
      yield* TestClock.setTime(T0 + offset)
      yield* dispatcher.runOnce
    }
  })

describe("AlertRuleService", () => {
  it.effect("create answers the signing key exactly once: list never carries it", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const created = yield* service.create(ALICE, body())
        assert.isTrue(isSigningKey(created.webhook_signing_key))
        assert.deepStrictEqual(
          { ...created, webhook_signing_key: undefined },
          {
            id: created.id,
            name: "aave watch",
            entity_types: ["protocol"],
            slugs: ["aave"],
            events: [],
            channels: { webhook_url: "https://hooks.alice.example/ratings" },
            created_at: "2026-08-01T00:00:00+00:00",
            disabled: false,
            disabled_at: null,
            disabled_reason: null,
            failing_since: null,
            webhook_signing_key: undefined
          }
        )
        const listed = yield* service.list(ALICE)
        assert.strictEqual(listed.total, 1)
        assert.notProperty(listed.items[0], "webhook_signing_key")
        assert.notInclude(JSON.stringify(listed), created.webhook_signing_key)
        assert.notInclude(
          JSON.stringify(yield* service.deliveries(ALICE, created.id)),
          created.webhook_signing_key
        )
        const second = yield* service.create(ALICE, body())
        assert.notStrictEqual(second.webhook_signing_key, created.webhook_signing_key, "a fresh key per rule")
      })
    )
  )

  it.effect(
    "an account holds at most AlertRuleLimits.rulesPerAccount rules: one more is AlertRuleLimitReached and stores and enqueues nothing",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const outbox = yield* DeliveryOutbox
          for (let i = 0; i < AlertRuleLimits.rulesPerAccount; i++) yield* service.create(ALICE, body())
          assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 1_000 }), 100, "one test delivery per rule")
          const refused = yield* Effect.flip(service.create(ALICE, body()))
          assert.strictEqual(refused._tag, "AlertRuleLimitReached")
          assert.strictEqual((refused as AlertRuleLimitReached).limit, 100)
          assert.strictEqual((yield* service.list(ALICE)).total, 100)
          assert.lengthOf(
            yield* outbox.claimDue({ at: T0, limit: 1_000 }),
            0,
            "no test delivery for the refused rule"
          )
          assert.strictEqual((yield* service.create(BOB, body())).name, "aave watch", "per account")
        })
      )
  )

  it.effect(
    "webhook URLs are validated at create: https required and private targets refused; a refused URL stores nothing",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const cases: ReadonlyArray<readonly [url: string, reason: string, says: RegExp]> = [
            ["http://hooks.alice.example/ratings", "https_required", /must use https/],
            ["https://127.0.0.1:8443/hook", "private_target", /loopback/],
            ["https://169.254.169.254/latest/meta-data/", "private_target", /link-local/],
            ["https://10.1.2.3/hook", "private_target", /private-network/],
            ["https://[::1]/hook", "private_target", /loopback/],
            ["https://localhost/hook", "private_target", /loopback name/]
          ]
          for (const [url, reason, says] of cases) {
            const error = yield* Effect.flip(service.create(ALICE, body({ channels: { webhook_url: url } })))
            assert.strictEqual(error._tag, "WebhookUrlRejected", url)
            if (error._tag === "WebhookUrlRejected") {
              assert.strictEqual(error.reason, reason, url)
              assert.match(error.message, says, url)
            }
          }
          assert.strictEqual((yield* service.list(ALICE)).total, 0, "no rule was stored")
          assert.strictEqual((yield* service.failed(undefined)).length, 0)
          const outbox = yield* DeliveryOutbox
          assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 10 }), 0, "no test delivery was enqueued")
        })
      )
  )

  it.effect(
    "a policy that allows private targets and http (development, tests) accepts a loopback receiver",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const service = yield* AlertRuleService
        const created = yield* service.create(
          ALICE,
          body({ channels: { webhook_url: "http://127.0.0.1:8080/hook" } })
        )
        assert.strictEqual(created.channels.webhook_url, "http://127.0.0.1:8080/hook")
      }).pipe(Effect.provide(AlertRuleServiceTest.layerTestWith(WebhookTargetPolicy.permissive)))
  )

  it.effect(
    "saving a webhook URL fires webhook.test: a synthetic payload, sent by the dispatcher, signed with the rule's key",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const created = yield* service.create(ALICE, body())
          const [queued] = yield* service.deliveries(ALICE, created.id)
          assert.strictEqual(queued!.event, "webhook.test")
          assert.strictEqual(queued!.status, "pending")
          assert.strictEqual(millisOf(queued!.next_attempt_at!), T0, "due at once")

          yield* (yield* WebhookDispatcher).runOnce
          const [request] = yield* (yield* WebhookTransportScript).requests
          assert.strictEqual(request!.url, "https://hooks.alice.example/ratings")
          const event = Schema.decodeUnknownSync(WebhookTestEvent)(JSON.parse(request!.body))
          assert.strictEqual(event.watchlist_id, created.id)
          assert.strictEqual(event.delivery_id, queued!.delivery_id)
          assert.isTrue(event.data.test)
          assert.strictEqual(event.data.entity_type, "protocol")
          assert.strictEqual(event.data.entity_slug, "aave", "the rule's own filters, so its real path runs")
          const signer = yield* Signer
          const key = created.webhook_signing_key
          assert.isTrue(signer.verify(key, request!.body, request!.headers["X-Service-Signature"]!))
          assert.isTrue(
            verifyStandardWebhook(signer, key, {
              webhookId: request!.headers["webhook-id"]!,
              timestampSeconds: Number(request!.headers["webhook-timestamp"]),
              body: request!.body,
              signatureHeader: request!.headers["webhook-signature"]!
            })
          )
          const [sent] = yield* service.deliveries(ALICE, created.id)
          assert.strictEqual(sent!.status, "delivered")
        })
      )
  )

  it.effect(
    "rules belong to their account: another account cannot list, test, read the log of, or delete one",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const alices = yield* service.create(ALICE, body())
          yield* service.create(BOB, body({ channels: { webhook_url: "https://hooks.bob.example/x" } }))
          assert.deepStrictEqual(
            (yield* service.list(ALICE)).items.map((r) => r.id),
            [alices.id]
          )
          assert.strictEqual((yield* service.list(BOB)).total, 1)
          assert.strictEqual((yield* service.list("acct-nobody")).total, 0)
          for (const attempt of [
            service.delete(BOB, alices.id),
            service.testWebhook(BOB, alices.id),
            service.deliveries(BOB, alices.id)
          ]) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error._tag, "AlertRuleNotFound")
          }
          assert.lengthOf(yield* (yield* WebhookTransportScript).requests, 0, "bob's test sent nothing")
          assert.strictEqual((yield* service.list(ALICE)).total, 1, "and alice's rule is still there")
        })
      )
  )

  it.effect("delete removes the rule from its account; a second delete is not found", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const created = yield* service.create(ALICE, body())
        yield* service.delete(ALICE, created.id)
        assert.strictEqual((yield* service.list(ALICE)).total, 0)
        assert.strictEqual((yield* Effect.flip(service.delete(ALICE, created.id)))._tag, "AlertRuleNotFound")
        assert.strictEqual(
          (yield* Effect.flip(service.testWebhook(ALICE, created.id)))._tag,
          "AlertRuleNotFound"
        )
      })
    )
  )

  it.effect("test-webhook makes a real attempt at once and reports a delivery", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const created = yield* service.create(ALICE, body())
        yield* (yield* WebhookTransportScript).push(responded(204, 37))
        const report = yield* service.testWebhook(ALICE, created.id)
        assert.deepStrictEqual(Schema.decodeUnknownSync(WebhookTestReport)(report), report)
        assert.deepStrictEqual(report, {
          delivery_id: report.delivery_id,
          delivered: true,
          outcome: "delivered",
          status_code: 204,
          elapsed_ms: 37,
          error: null,
          attempted_at: "2026-08-01T00:00:00+00:00",
          next_attempt_at: null
        })
        const [request] = yield* (yield* WebhookTransportScript).requests
        assert.strictEqual(
          request!.headers["webhook-id"],
          report.delivery_id,
          "sent now, not by the dispatcher"
        )
        const log = yield* service.deliveries(ALICE, created.id)
        const tested = log.find((d) => d.delivery_id === report.delivery_id)!
        assert.strictEqual(tested.event, "webhook.test")
        assert.strictEqual(tested.status, "delivered")
        assert.lengthOf(tested.attempt_log, 1, "recorded in the rule's log")
        assert.strictEqual(log[0]!.delivery_id, report.delivery_id, "newest first")
      })
    )
  )

  it.effect("test-webhook reports a failed attempt with its reason and when it will be retried", () =>
    run(
      Effect.gen(function* () {
        const service = yield* AlertRuleService
        const created = yield* service.create(ALICE, body())
        const script = yield* WebhookTransportScript
        yield* script.push(responded(503, 12), noResponse("connection_refused", 2, "connect ECONNREFUSED"))
        const http = yield* service.testWebhook(ALICE, created.id)
        assert.strictEqual(http.delivered, false)
        assert.strictEqual(http.outcome, "http_error")
        assert.strictEqual(http.status_code, 503)
        assert.strictEqual(http.error, "HTTP 503")
        assert.strictEqual(http.next_attempt_at, "2026-08-01T00:00:30+00:00")
        const refused = yield* service.testWebhook(ALICE, created.id)
        assert.strictEqual(refused.outcome, "network_error")
        assert.isNull(refused.status_code)
        assert.strictEqual(refused.error, "connection_refused: connect ECONNREFUSED")
        assert.notStrictEqual(refused.delivery_id, http.delivery_id, "each test is its own delivery")
      })
    )
  )

  it.effect(
    "a test-webhook attempt in flight is not sent a second time by a dispatcher running meanwhile",
    () => {
      const sent: Array<string> = []
      const slowTransport = Layer.succeed(
        WebhookTransport,
        WebhookTransport.of({
          send: (request) =>
            Effect.as(
              Effect.andThen(
                Effect.sync(() => sent.push(request.headers["webhook-id"]!)),
                Effect.sleep(2 * SECOND)
              ),
              responded(200, 2 * SECOND)
            )
        })
      )
      return Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const service = yield* AlertRuleService
        const created = yield* service.create(ALICE, body())
        const dispatcher = yield* WebhookDispatcher
        const creationTest = yield* Effect.forkChild(dispatcher.runOnce)
        const fiber = yield* Effect.forkChild(service.testWebhook(ALICE, created.id))
        yield* TestClock.adjust(SECOND)
        const meanwhile = yield* Effect.forkChild(dispatcher.runOnce)
        yield* TestClock.adjust(3 * SECOND)
        const report = yield* Fiber.join(fiber)
        yield* Fiber.join(creationTest)
        assert.strictEqual(
          (yield* Fiber.join(meanwhile)).claimed,
          0,
          "both deliveries are held by their attempts"
        )
        assert.isTrue(report.delivered)
        assert.strictEqual(sent.filter((id) => id === report.delivery_id).length, 1)
        assert.lengthOf(sent, 2, "the creation test and the requested test, once each")
      }).pipe(
        Effect.provide(
          AlertRuleService.layer.pipe(
            Layer.provideMerge(WebhookDispatcher.layerWithoutLoop()),
            Layer.provideMerge(
              Layer.mergeAll(
                AlertRuleRepositoryMemory.layer,
                DeliveryOutboxMemory.layer,
                IdGeneratorMemory.layer,
                SignerMemory.layer,
                TransactionMemory.layer,
                slowTransport,
                WebhookTargetPolicy.layer(WebhookTargetPolicy.strict)
              )
            )
          )
        )
      )
    }
  )

  it.effect(
    "only a failed delivery can be re-fired; a re-fire keeps its delivery_id and the dispatcher sends it",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const created = yield* service.create(ALICE, body())
          const [pending] = yield* service.deliveries(ALICE, created.id)
          const notYet = yield* Effect.flip(service.refire(ALICE, pending!.delivery_id))
          assert.strictEqual(notYet._tag, "DeliveryNotFailed")
          assert.strictEqual(notYet._tag === "DeliveryNotFailed" && notYet.status, "pending")

          yield* failEverything(1)
          const [failed] = yield* service.failed(ALICE)
          assert.strictEqual(failed!.delivery_id, pending!.delivery_id)
          yield* TestClock.setTime(T0 + 48 * 3_600 * SECOND)
          const refired = yield* service.refire(ALICE, failed!.delivery_id)
          assert.strictEqual(refired.delivery_id, failed!.delivery_id)
          assert.strictEqual(refired.status, "pending")
          assert.strictEqual(refired.cycle, 1)
          assert.strictEqual(millisOf(refired.next_attempt_at!), T0 + 48 * 3_600 * SECOND)

          const script = yield* WebhookTransportScript
          const before = (yield* script.requests).length
          yield* script.push(responded(200, 3))
          const summary = yield* (yield* WebhookDispatcher).runOnce
          assert.strictEqual(summary.delivered, 1)
          const requests = yield* script.requests
          assert.strictEqual(requests.length, before + 1)
          assert.strictEqual(
            requests.at(-1)!.headers["webhook-id"],
            failed!.delivery_id,
            "the same delivery_id"
          )
          const delivered = yield* Effect.flip(service.refire(ALICE, failed!.delivery_id))
          assert.strictEqual(delivered._tag, "DeliveryNotFailed")
          assert.strictEqual(
            (yield* Effect.flip(service.refire(ALICE, crypto.randomUUID())))._tag,
            "DeliveryNotFound"
          )
        })
      )
  )

  it.effect(
    "re-fire checks the owner: another account's delivery is not found; an operator re-fires any; a deleted rule's cannot be",
    () =>
      run(
        Effect.gen(function* () {
          const service = yield* AlertRuleService
          const alices = yield* service.create(ALICE, body())
          const bobs = yield* service.create(BOB, body())
          yield* failEverything(2)
          const [alicesFailed] = yield* service.failed(ALICE)
          const [bobsFailed] = yield* service.failed(BOB)
          assert.lengthOf(yield* service.failed(undefined), 2, "the operator sees every account's")
          assert.strictEqual(alicesFailed!.rule_id, alices.id)
          assert.strictEqual(bobsFailed!.rule_id, bobs.id)

          const foreign = yield* Effect.flip(service.refire(BOB, alicesFailed!.delivery_id))
          assert.strictEqual(foreign._tag, "DeliveryNotFound")
          const stillFailed = yield* (yield* DeliveryOutbox).get(alicesFailed!.delivery_id)
          assert.strictEqual(stillFailed.status, "failed")

          const byOperator = yield* service.refire(undefined, alicesFailed!.delivery_id)
          assert.strictEqual(byOperator.status, "pending")

          yield* service.delete(BOB, bobs.id)
          assert.strictEqual(
            (yield* Effect.flip(service.refire(BOB, bobsFailed!.delivery_id)))._tag,
            "DeliveryNotFound"
          )
          assert.strictEqual(
            (yield* Effect.flip(service.refire(undefined, bobsFailed!.delivery_id)))._tag,
            "AlertRuleNotFound"
          )
        })
      )
  )
})
