/**
 * Operating a rule's webhook over the real server, on both backends, with
 * real receivers reached by the real undici transport: enable (after the
 * endpoint was disabled by 5 days of failures, walked with a shifted clock),
 * rotate-secret (both signatures checked by the stock `standardwebhooks`
 * verifier over a real delivery during the overlap) and bulk re-fire; the
 * routes are Pro, another account's rule is a 404, bad input a 422.
 */
import { assert, describe } from "@effect/vitest"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { Clock, Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { type Received, receiver } from "./WebhookReceiver.ts"
import { onEachBackend, type Response, type ServerIt, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const DAY = 86_400_000

const account = (tier: KeyTier = "pro") =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const { key } = yield* server.createKey(tier, { account_id: crypto.randomUUID() })
    const authorization = `Bearer ${key}`
    const call = (method: "GET" | "POST", path: string, body?: unknown) =>
      server.request(`/api/v1${path}`, { method, authorization, ...(body === undefined ? {} : { body }) })
    return {
      authorization,
      get: (path: string) => call("GET", path),
      post: (path: string, body?: unknown) => call("POST", path, body)
    }
  })

const ok = (r: Response, status = 200) => {
  assert.strictEqual(r.status, status, r.text)
  return r.json as Json
}

/** The real clock moved `offsetMs` ahead. */
const shiftedClock = (offsetMs: number) =>
  Clock.clockWith(
    (real): Effect.Effect<Clock.Clock> =>
      Effect.succeed({
        currentTimeMillisUnsafe: () => real.currentTimeMillisUnsafe() + offsetMs,
        currentTimeMillis: Effect.sync(() => real.currentTimeMillisUnsafe() + offsetMs),
        currentTimeNanosUnsafe: () => real.currentTimeNanosUnsafe() + BigInt(offsetMs) * 1_000_000n,
        currentTimeNanos: Effect.sync(() => real.currentTimeNanosUnsafe() + BigInt(offsetMs) * 1_000_000n),
        monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
        monotonicTimeNanos: real.monotonicTimeNanos,
        sleep: (duration) => real.sleep(duration)
      })
  )

/** Runs the dispatcher until nothing is due, at the real clock moved `offsetMs` ahead. */
const dispatch = (offsetMs = 0) =>
  Effect.gen(function* () {
    const dispatcher = yield* WebhookDispatcher
    const clock = yield* shiftedClock(offsetMs)
    for (let pass = 0; pass < 200; pass++) {
      const summary = yield* Effect.provideService(dispatcher.runOnce, Clock.Clock, clock)
      if (summary.claimed === 0) return
    }
    assert.fail("the dispatcher still had due deliveries after 200 passes")
  })

/** A Pro account, a receiver answering `status`, and a rule of the account pointing at it. */
const ruleWithReceiver = (status: number) =>
  Effect.gen(function* () {
    const caller = yield* account()
    const hook = yield* receiver(status)
    const rule = ok(yield* caller.post("/alert-rules", { channels: { webhook_url: hook.url } }), 201)
    return { caller, hook, rule }
  })

const standardHeaders = (delivery: Received) => ({
  "webhook-id": String(delivery.headers["webhook-id"]),
  "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
  "webhook-signature": String(delivery.headers["webhook-signature"])
})

const routes = (it: ServerIt) => {
  it.effect("the new routes are Pro, 404 for another account's rule, 422 on bad input", () =>
    Effect.gen(function* () {
      const { caller, rule } = yield* ruleWithReceiver(200)
      const since = "2026-01-01T00:00:00%2B00:00"
      const paths = [
        `/alert-rules/${rule.id}/enable`,
        `/alert-rules/${rule.id}/rotate-secret`,
        `/alert-rules/${rule.id}/refire-failed?since=${since}`,
        `/deliveries/refire-failed?since=${since}`
      ]
      const free = yield* account("free")
      const other = yield* account("enterprise")
      for (const path of paths) {
        assert.strictEqual((yield* free.post(path)).status, 403, path)
        const server = yield* TestServer
        assert.strictEqual((yield* server.request(`/api/v1${path}`, { method: "POST" })).status, 401, path)
        if (path.startsWith("/alert-rules")) assert.strictEqual((yield* other.post(path)).status, 404, path)
      }
      for (const bad of [
        `/alert-rules/not-a-uuid/enable`,
        `/alert-rules/${rule.id}/enable?refire=maybe`,
        `/alert-rules/${rule.id}/rotate-secret?overlap_seconds=604801`,
        `/alert-rules/${rule.id}/rotate-secret?overlap_seconds=-1`,
        `/alert-rules/${rule.id}/refire-failed`,
        `/alert-rules/${rule.id}/refire-failed?since=yesterday`,
        `/alert-rules/${rule.id}/refire-failed?since=${since}&limit=501`,
        `/deliveries/refire-failed?since=2026-01-01T00:00:00 00:00`
      ]) {
        const r = yield* caller.post(bad)
        assert.strictEqual(r.status, 422, `${bad}: ${r.text}`)
      }
    })
  )

  it.effect("an endpoint failing for 5 days is disabled, holds new events, and enable re-fires them", () =>
    Effect.gen(function* () {
      const { caller, hook, rule } = yield* ruleWithReceiver(500)
      yield* dispatch() // the create's webhook.test fails: the failing run starts now
      yield* dispatch(5 * DAY) // its retries are due by then: the run is 5 days long
      const [listed] = ok(yield* caller.get("/alert-rules")).items
      assert.isTrue(listed.disabled)
      assert.include(listed.disabled_reason, "5 days")
      assert.isString(listed.disabled_at)
      // A new event (another test-webhook's retry is not one: use the rule's log) is held unsent.
      const sent = hook.received.length
      const test = ok(yield* caller.post(`/alert-rules/${rule.id}/test-webhook`))
      assert.strictEqual(hook.received.length, sent + 1, "test-webhook always sends, to check the endpoint")
      yield* dispatch(5 * DAY + 60_000)
      const held = ok(yield* caller.get(`/alert-rules/${rule.id}/deliveries`)).items.find(
        (d: Json) => d.delivery_id === test.delivery_id
      )
      assert.strictEqual(held.status, "failed")
      assert.include(held.last_error, "disabled")
      hook.answer(200)
      const enabled = ok(yield* caller.post(`/alert-rules/${rule.id}/enable?refire=true`))
      assert.isFalse(enabled.rule.disabled)
      assert.strictEqual(enabled.was_disabled_at, listed.disabled_at)
      assert.strictEqual(enabled.refire.refired, 2)
      assert.includeMembers(enabled.refire.delivery_ids, [test.delivery_id])
      yield* dispatch()
      assert.strictEqual(hook.of(test.delivery_id).at(-1)?.headers["webhook-id"], test.delivery_id)
      const after = ok(yield* caller.get("/alert-rules")).items[0]
      assert.deepStrictEqual([after.disabled, after.failing_since], [false, null])
    })
  )

  it.effect("during a rotation's overlap a real delivery verifies with both keys (standardwebhooks)", () =>
    Effect.gen(function* () {
      const { caller, hook, rule } = yield* ruleWithReceiver(200)
      yield* dispatch()
      const rotated = ok(yield* caller.post(`/alert-rules/${rule.id}/rotate-secret?overlap_seconds=3600`))
      assert.notStrictEqual(rotated.webhook_signing_key, rule.webhook_signing_key)
      assert.isString(rotated.previous_key_expires_at)
      assert.notInclude(JSON.stringify(ok(yield* caller.get("/alert-rules"))), rotated.webhook_signing_key)
      const test = ok(yield* caller.post(`/alert-rules/${rule.id}/test-webhook`))
      const [delivery] = hook.of(test.delivery_id)
      const headers = standardHeaders(delivery!)
      assert.lengthOf(headers["webhook-signature"].split(" "), 2)
      for (const key of [rule.webhook_signing_key, rotated.webhook_signing_key])
        assert.doesNotThrow(() => new Webhook(key).verify(delivery!.body, headers), key)
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(delivery!.body, headers)
      )
      // X-Service-Signature stays one signature, by the newest key.
      const { createHmac } = yield* Effect.promise(() => import("node:crypto"))
      assert.strictEqual(
        delivery!.headers["x-service-signature"],
        createHmac("sha256", rotated.webhook_signing_key).update(delivery!.body).digest("hex")
      )
      // With no overlap the old key is destroyed at once: one signature.
      const again = ok(yield* caller.post(`/alert-rules/${rule.id}/rotate-secret?overlap_seconds=0`))
      assert.isNull(again.previous_key_expires_at)
      const last = ok(yield* caller.post(`/alert-rules/${rule.id}/test-webhook`))
      const final = standardHeaders(hook.of(last.delivery_id)[0]!)
      assert.lengthOf(final["webhook-signature"].split(" "), 1)
      assert.doesNotThrow(() =>
        new Webhook(again.webhook_signing_key).verify(hook.of(last.delivery_id)[0]!.body, final)
      )
    })
  )

  it.effect("bulk re-fire of a rule and of the account, bounded per call, delivery ids kept", () =>
    Effect.gen(function* () {
      const { caller, hook, rule } = yield* ruleWithReceiver(500)
      const second = ok(yield* caller.post("/alert-rules", { channels: { webhook_url: hook.url } }), 201)
      for (const offset of [0, 30_000, 300_000, 1_800_000, 7_200_000, 43_200_000]) yield* dispatch(offset)
      const failed = ok(yield* caller.get("/deliveries?status=failed")).items
      assert.lengthOf(failed, 2)
      const since = encodeURIComponent("2000-01-01T00:00:00+00:00")
      const one = ok(yield* caller.post(`/alert-rules/${rule.id}/refire-failed?since=${since}&limit=1`))
      assert.deepStrictEqual([one.refired, one.more], [1, false])
      const rest = ok(yield* caller.post(`/deliveries/refire-failed?since=${since}`))
      assert.deepStrictEqual([rest.refired, rest.more], [1, false])
      const ids = [...one.delivery_ids, ...rest.delivery_ids].sort()
      assert.deepStrictEqual(ids, failed.map((d: Json) => d.delivery_id).sort())
      hook.answer(200)
      yield* dispatch()
      for (const id of ids) assert.strictEqual(hook.of(id).at(-1)?.headers["webhook-id"], id)
      assert.lengthOf(ok(yield* caller.get("/deliveries?status=failed")).items, 0)
      assert.strictEqual(second.id.length, 36)
    })
  )
}

describe("alert rule operations over HTTP", () => {
  onEachBackend((it) => routes(it))
})
