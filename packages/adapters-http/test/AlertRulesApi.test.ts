/**
 * Alert rules and webhook deliveries over the real server, on both backends,
 * with real receivers (node:http on 127.0.0.1) reached by the real undici
 * transport: spec part 4 (alert rule routes), part 5 rule 3 (Pro tier),
 * part 6 (Configuration, Delivery format, Signature, Retry), part 3 (Webhook
 * delivery states) and part 7 (201, 204, non-UUID rule_id 422).
 *
 * The server's dispatcher has no loop: a test sends what is due by calling
 * `WebhookDispatcher.runOnce`. To walk a delivery through its retry schedule
 * without waiting hours, the test runs the dispatcher under a clock shifted
 * to each offset after the initial attempt (30 s, 5 min, 30 min, 2 h, 12 h);
 * the transport's own timeout runs on real timers, so every send is real.
 *
 * Signatures are checked with node:crypto on the raw bytes the receiver got,
 * written from the spec (X-Service-Signature) and from the Standard Webhooks
 * specification (webhook-signature), not with the service's signer.
 *
 * Every test uses keys of fresh accounts, so the servers shared by a suite
 * never mix one test's rules with another's.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { assert, describe } from "@effect/vitest"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { RetryOffsetsMs } from "@ratings/domain/webhooks/RetrySchedule"
import { WebhookTargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { TargetNotAllowedMessage } from "@ratings/adapters-webhook/UndiciTransport"
import { Clock, Effect } from "effect"
import { type Received, receiver } from "./WebhookReceiver.ts"
import { onEachBackend, type RequestOptions, type Response, type ServerIt, TestServer } from "./TestServer.ts"

type Send = Pick<RequestOptions, "method" | "body" | "raw">

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const api = (path: string) => `/api/v1${path}`

/** One request to the server, with an Authorization header when given. */
const request = (path: string, authorization: string | undefined, send: Send = {}) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).request(api(path), { ...send, authorization })
  })

/** A key of a fresh account, and calls made with it. */
const account = (tier: KeyTier = "pro") =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const { key } = yield* server.createKey(tier, { account_id: crypto.randomUUID() })
    const authorization = `Bearer ${key}`
    return {
      authorization,
      get: (path: string) => request(path, authorization),
      post: (path: string, body?: unknown, raw?: string) =>
        request(path, authorization, {
          method: "POST",
          ...(body === undefined ? {} : { body }),
          ...(raw === undefined ? {} : { raw })
        }),
      del: (path: string) => request(path, authorization, { method: "DELETE" })
    }
  })

/** The real clock moved `offsetMs` ahead, for running the dispatcher at a retry offset. */
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

/**
 * Runs the dispatcher until nothing is due (at the real clock moved
 * `offsetMs` ahead): deliveries other tests left due are sent too (to their
 * closed receivers), so one pass may not reach this test's delivery.
 */
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

const hexHmac = (key: string | Buffer, text: string) =>
  createHmac("sha256", key).update(text, "utf8").digest()

const equalInConstantTime = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b)

/** X-Service-Signature (spec part 6 Signature): lowercase hex HMAC-SHA256 of the raw body, keyed with the signing key. */
const validServiceSignature = (key: string, delivery: Received): boolean => {
  const header = delivery.headers["x-service-signature"]
  if (typeof header !== "string" || !/^[0-9a-f]{64}$/.test(header)) return false
  return equalInConstantTime(Buffer.from(header, "hex"), hexHmac(key, delivery.body))
}

/**
 * Standard Webhooks: `webhook-signature` lists `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` keyed with the base64-decoded secret after `whsec_`.
 */
const validStandardSignature = (key: string, delivery: Received): boolean => {
  const id = delivery.headers["webhook-id"]
  const timestamp = delivery.headers["webhook-timestamp"]
  const signatures = delivery.headers["webhook-signature"]
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false
  const secret = Buffer.from(key.slice("whsec_".length), "base64")
  const expected = hexHmac(secret, `${id}.${timestamp}.${delivery.body}`)
  return signatures
    .split(" ")
    .some(
      (entry) =>
        entry.startsWith("v1,") && equalInConstantTime(Buffer.from(entry.slice(3), "base64"), expected)
    )
}

const ruleFor = (url: string, extra: Json = {}) => ({
  name: "lending watch",
  entity_types: ["protocol"],
  events: ["rating.changed"],
  channels: { webhook_url: url },
  ...extra
})

/** A URL on loopback where nothing listens: attempts are refused at once. */
const nowhere = "http://127.0.0.1:9/hooks"

const created = (r: Response) => {
  assert.strictEqual(r.status, 201, r.text)
  return r.json as Json
}

const ok = (r: Response) => {
  assert.strictEqual(r.status, 200, r.text)
  return r.json as Json
}

type Caller = Effect.Success<ReturnType<typeof account>>

/** A rule's delivery log, newest first (asserted 200). */
const deliveriesOf = (caller: Caller, ruleId: string) =>
  Effect.map(caller.get(`/alert-rules/${ruleId}/deliveries`), (r) => ok(r).items)

/** A Pro key of a fresh account, a receiver answering `status`, and a rule of that account pointing at it. */
const ruleWithReceiver = (status: number, extra: Json = {}) =>
  Effect.gen(function* () {
    const caller = yield* account()
    const hook = yield* receiver(status)
    const rule = created(yield* caller.post("/alert-rules", ruleFor(hook.url, extra)))
    return { caller, hook, rule }
  })

/** `ruleWithReceiver(status)`, then its test-webhook route called: the report it answered (asserted 200). */
const testWebhookAgainst = (status: number) =>
  Effect.gen(function* () {
    const arranged = yield* ruleWithReceiver(status)
    const { caller, rule } = arranged
    const report = ok(yield* caller.post(`/alert-rules/${rule.id}/test-webhook`))
    return { ...arranged, report }
  })

const alertRuleRoutes = (it: ServerIt) => {
  describe("spec part 5 rule 3: alert rules are a Pro capability", () => {
    it.effect(
      "anonymous callers get 401 missing_key, Free keys 403, Pro and Enterprise keys create (201)",
      () =>
        Effect.gen(function* () {
          const id = crypto.randomUUID()
          const routes: ReadonlyArray<readonly [string, Send]> = [
            ["/alert-rules", {}],
            ["/alert-rules", { method: "POST", body: ruleFor(nowhere) }],
            [`/alert-rules/${id}`, { method: "DELETE" }],
            [`/alert-rules/${id}/test-webhook`, { method: "POST" }],
            [`/alert-rules/${id}/deliveries`, {}],
            ["/deliveries?status=failed", {}],
            [`/deliveries/${id}/refire`, { method: "POST" }]
          ]
          const free = yield* account("free")
          for (const [path, send] of routes) {
            const anonymous = yield* request(path, undefined, send)
            assert.strictEqual(anonymous.status, 401, `${send.method ?? "GET"} ${path}`)
            assert.deepStrictEqual(anonymous.json, { detail: { error: "missing_key" } })
            const low = yield* request(path, free.authorization, send)
            assert.strictEqual(low.status, 403, `${send.method ?? "GET"} ${path}`)
            assert.deepStrictEqual(low.json, {
              detail: { error: "insufficient_tier", required_tier: "pro", tier: "free" }
            })
          }
          for (const tier of ["pro", "enterprise"] as const) {
            const caller = yield* account(tier)
            created(yield* caller.post("/alert-rules", ruleFor(nowhere)))
            assert.strictEqual(ok(yield* caller.get("/alert-rules")).total, 1, tier)
          }
        })
    )
  })

  describe("admins and the OpenAPI document", () => {
    it.effect(
      "an admin JWT works with rules of its own account (admin:<subject>), which no key's account sees",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const admin = server.bearerFor("admin")
          const rule = created(
            yield* request("/alert-rules", admin, { method: "POST", body: ruleFor(nowhere) })
          )
          const listed = ok(yield* request("/alert-rules", admin))
          assert.include(
            listed.items.map((r: Json) => r.id),
            rule.id
          )
          const other = yield* account()
          assert.strictEqual(ok(yield* other.get("/alert-rules")).total, 0)
          assert.strictEqual((yield* other.del(`/alert-rules/${rule.id}`)).status, 404)
          assert.strictEqual(
            (yield* request(`/alert-rules/${rule.id}`, admin, { method: "DELETE" })).status,
            204
          )
        })
    )

    it.effect(
      "every route is documented with its summary, the Pro tier and its statuses (201, 204, 404, 409, 422)",
      () =>
        Effect.gen(function* () {
          const doc = (yield* (yield* TestServer).get("/openapi.json")).json as Json
          const routes: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
            ["/api/v1/alert-rules", "get", ["200", "401", "403"]],
            ["/api/v1/alert-rules", "post", ["201", "401", "403", "409", "422"]],
            ["/api/v1/alert-rules/{rule_id}", "delete", ["204", "401", "403", "404", "422"]],
            ["/api/v1/alert-rules/{rule_id}/test-webhook", "post", ["200", "404", "422"]],
            ["/api/v1/alert-rules/{rule_id}/deliveries", "get", ["200", "404", "422"]],
            ["/api/v1/deliveries", "get", ["200", "401", "403", "422"]],
            ["/api/v1/deliveries/{delivery_id}/refire", "post", ["200", "404", "409", "422"]]
          ]
          for (const [path, method, statuses] of routes) {
            const op = doc.paths[path]?.[method]
            assert.isDefined(op, `${method} ${path}`)
            assert.strictEqual(op["x-required-tier"], "pro", path)
            assert.isString(op.summary)
            assert.includeMembers(Object.keys(op.responses), [...statuses], `${method} ${path}`)
          }
          const created =
            doc.paths["/api/v1/alert-rules"].post.responses["201"].content["application/json"].schema
          assert.strictEqual(created.$ref, "#/components/schemas/AlertRuleCreated")
          assert.include(doc.components.schemas.AlertRuleCreated.required, "webhook_signing_key")
          assert.notProperty(doc.components.schemas.AlertRuleList.properties, "webhook_signing_key")
          const deleted = doc.paths["/api/v1/alert-rules/{rule_id}"].delete.responses["204"]
          assert.isUndefined(deleted.content, "204 has no body")
        })
    )
  })

  describe("spec part 6 Configuration: create, the signing key once, and webhook.test", () => {
    it.effect(
      "create answers 201 with the rule and webhook_signing_key; no list or delivery log ever contains the key",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller, hook, rule } = yield* ruleWithReceiver(200, { slugs: ["aave-v3"] })
            const key: string = rule.webhook_signing_key
            assert.match(key, /^whsec_[A-Za-z0-9+/]{43}=$/)
            assert.deepStrictEqual(
              { ...rule, id: undefined, created_at: undefined, webhook_signing_key: undefined },
              {
                id: undefined,
                name: "lending watch",
                entity_types: ["protocol"],
                slugs: ["aave-v3"],
                events: ["rating.changed"],
                channels: { webhook_url: hook.url },
                created_at: undefined,
                disabled: false,
                disabled_at: null,
                disabled_reason: null,
                failing_since: null,
                webhook_signing_key: undefined
              }
            )
            yield* dispatch()
            const texts = [
              yield* caller.get("/alert-rules"),
              yield* caller.get(`/alert-rules/${rule.id}/deliveries`),
              yield* caller.post(`/alert-rules/${rule.id}/test-webhook`),
              yield* caller.get("/deliveries?status=failed")
            ]
            for (const r of texts) {
              assert.strictEqual(r.status, 200, r.text)
              assert.notInclude(r.text, key)
              assert.notInclude(r.text, key.slice("whsec_".length), "not even the secret's base64")
              assert.notInclude(r.text, "webhook_signing_key")
            }
            const list = texts[0]!.json as Json
            assert.deepStrictEqual(
              list.items.map((r: Json) => r.id),
              [rule.id]
            )
            assert.strictEqual(texts[0]!.headers.get("cache-control"), "no-store", "an account's live state")
            const second = created(yield* caller.post("/alert-rules", ruleFor(hook.url)))
            assert.notStrictEqual(second.webhook_signing_key, key, "each rule has its own key")
          })
        )
    )

    it.effect(
      "saving a webhook URL fires webhook.test: the dispatcher POSTs it signed with X-Service-Signature and the Standard Webhooks headers",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller, hook, rule } = yield* ruleWithReceiver(204)
            const key: string = rule.webhook_signing_key
            const [queued] = yield* deliveriesOf(caller, rule.id)
            assert.strictEqual(queued.event, "webhook.test")
            assert.strictEqual(queued.status, "pending")

            const before = Math.floor(Date.now() / 1000)
            yield* dispatch()
            const mine = hook.of(queued.delivery_id)
            assert.lengthOf(mine, 1)
            const delivery = mine[0]!
            assert.strictEqual(delivery.headers["content-type"], "application/json")
            const event = JSON.parse(delivery.body)
            assert.strictEqual(event.event, "webhook.test")
            assert.strictEqual(event.delivery_id, queued.delivery_id)
            assert.strictEqual(event.watchlist_id, rule.id)
            assert.strictEqual(event.data.entity_type, "protocol")
            assert.isString(event.timestamp)
            assert.isTrue(validServiceSignature(key, delivery), "X-Service-Signature verifies")
            assert.isTrue(validStandardSignature(key, delivery), "webhook-signature verifies")
            const timestamp = Number(delivery.headers["webhook-timestamp"])
            assert.isAtLeast(timestamp, before - 1)
            assert.isAtMost(timestamp, Math.floor(Date.now() / 1000) + 1)
            assert.isFalse(
              validServiceSignature(key, { ...delivery, body: `${delivery.body} ` }),
              "the check can fail: one byte more does not verify"
            )

            const [sent] = yield* deliveriesOf(caller, rule.id)
            assert.strictEqual(sent.status, "delivered")
            assert.lengthOf(sent.attempt_log, 1)
            assert.strictEqual(sent.attempt_log[0].outcome, "delivered")
            assert.strictEqual(sent.attempt_log[0].status_code, 204)
            assert.strictEqual(sent.body, delivery.body, "the log shows the exact body sent")
          })
        )
    )
  })

  describe("spec part 4: rules belong to the key's account", () => {
    it.effect(
      "another account's rule is not listed, and delete, test-webhook, deliveries and re-fire answer 404",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller: alice, hook, rule: alices } = yield* ruleWithReceiver(200)
            const bob = yield* account("enterprise")
            created(yield* bob.post("/alert-rules", ruleFor(nowhere)))
            const [queued] = yield* deliveriesOf(alice, alices.id)

            const bobs = ok(yield* bob.get("/alert-rules"))
            assert.strictEqual(bobs.total, 1)
            assert.notInclude(
              bobs.items.map((r: Json) => r.id),
              alices.id
            )
            for (const r of [
              yield* bob.del(`/alert-rules/${alices.id}`),
              yield* bob.post(`/alert-rules/${alices.id}/test-webhook`),
              yield* bob.get(`/alert-rules/${alices.id}/deliveries`),
              yield* bob.post(`/deliveries/${queued.delivery_id}/refire`)
            ]) {
              assert.strictEqual(r.status, 404, r.text)
              assert.deepStrictEqual(r.json, { detail: "not found" })
            }
            assert.lengthOf(hook.received, 0, "bob's test-webhook sent nothing to alice's receiver")
            assert.strictEqual(ok(yield* alice.get("/alert-rules")).total, 1, "alice's rule is still there")
          })
        )
    )
  })

  describe("spec part 4 and part 7: delete and path validation", () => {
    it.effect(
      "delete answers 204 with no body, then 404; the rule leaves the list and cannot be tested",
      () =>
        Effect.gen(function* () {
          const caller = yield* account()
          const rule = created(yield* caller.post("/alert-rules", ruleFor(nowhere)))
          const deleted = yield* caller.del(`/alert-rules/${rule.id}`)
          assert.strictEqual(deleted.status, 204)
          assert.strictEqual(deleted.text, "")
          assert.strictEqual(ok(yield* caller.get("/alert-rules")).total, 0)
          const again = yield* caller.del(`/alert-rules/${rule.id}`)
          assert.strictEqual(again.status, 404)
          assert.deepStrictEqual(again.json, { detail: "not found" })
          assert.strictEqual((yield* caller.post(`/alert-rules/${rule.id}/test-webhook`)).status, 404)
          const unknown = yield* caller.del(`/alert-rules/${crypto.randomUUID()}`)
          assert.strictEqual(unknown.status, 404)
        })
    )

    it.effect("a rule_id or delivery_id that is not a UUID is a 422 at its path location", () =>
      Effect.gen(function* () {
        const caller = yield* account()
        const cases: ReadonlyArray<readonly [Effect.Effect<Response, never, TestServer>, string]> = [
          [caller.del("/alert-rules/not-a-uuid"), "rule_id"],
          [caller.post("/alert-rules/not-a-uuid/test-webhook"), "rule_id"],
          [caller.get("/alert-rules/12345/deliveries"), "rule_id"],
          [caller.post("/deliveries/not-a-uuid/refire"), "delivery_id"]
        ]
        for (const [call, name] of cases) {
          const r = yield* call
          assert.strictEqual(r.status, 422, r.text)
          const [issue] = (r.json as Json).detail
          assert.deepStrictEqual(issue.loc, ["path", name])
          assert.strictEqual(issue.type, "uuid_parsing")
        }
      })
    )

    it.effect("delivery lists check their query: limit 1 to 200, and status failed only", () =>
      Effect.gen(function* () {
        const caller = yield* account()
        const rule = created(yield* caller.post("/alert-rules", ruleFor(nowhere)))
        for (const [path, loc] of [
          [`/alert-rules/${rule.id}/deliveries?limit=0`, "limit"],
          [`/alert-rules/${rule.id}/deliveries?limit=201`, "limit"],
          ["/deliveries?status=pending", "status"],
          ["/deliveries", "status"]
        ] as const) {
          const r = yield* caller.get(path)
          assert.strictEqual(r.status, 422, `${path}: ${r.text}`)
          assert.deepInclude(
            (r.json as Json).detail.map((d: Json) => d.loc),
            ["query", loc],
            path
          )
        }
        assert.lengthOf(ok(yield* caller.get(`/alert-rules/${rule.id}/deliveries?limit=1`)).items, 1)
      })
    )
  })

  describe("spec part 4: bad create bodies are 422 naming the field, and store nothing", () => {
    it.effect("missing webhook_url, a URL that is not absolute http(s), an unknown event kind", () =>
      Effect.gen(function* () {
        const caller = yield* account()
        const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>]> = [
          [{ name: "x", channels: {} }, ["body", "channels", "webhook_url"]],
          [{ name: "x" }, ["body", "channels"]],
          [ruleFor("not a url"), ["body", "channels", "webhook_url"]],
          [ruleFor("ftp://hooks.example.com/x"), ["body", "channels", "webhook_url"]],
          [ruleFor(nowhere, { events: ["rating.exploded"] }), ["body", "events", 0]],
          [ruleFor(nowhere, { entity_types: ["planet"] }), ["body", "entity_types", 0]]
        ]
        for (const [body, loc] of cases) {
          const r = yield* caller.post("/alert-rules", body)
          assert.strictEqual(r.status, 422, `${JSON.stringify(body)}: ${r.text}`)
          assert.deepInclude(
            (r.json as Json).detail.map((d: Json) => d.loc),
            loc,
            r.text
          )
        }
        const notJson = yield* caller.post("/alert-rules", undefined, "{not json")
        assert.isAtLeast(notJson.status, 400)
        assert.isBelow(notJson.status, 500)
        assert.strictEqual(ok(yield* caller.get("/alert-rules")).total, 0, "nothing was stored")
      })
    )
  })

  describe("spec part 7: a bad body's 422 says what was wrong with every field, with the value sent", () => {
    it.effect(
      "every failing field is listed at once, each with its location, what was expected and the input",
      () =>
        Effect.gen(function* () {
          const caller = yield* account()
          const r = yield* caller.post("/alert-rules", {
            name: "n".repeat(201),
            entity_types: ["planet"],
            slugs: ["Not A Slug"],
            events: ["rating.exploded"],
            channels: { webhook_url: "ftp://hooks.example.com/x" }
          })
          assert.strictEqual(r.status, 422, r.text)
          const byLoc = new Map(
            ((r.json as Json).detail as ReadonlyArray<Json>).map((d) => [JSON.stringify(d.loc), d] as const)
          )
          const at = (loc: ReadonlyArray<string | number>) => {
            const d = byLoc.get(JSON.stringify(loc))
            assert.isDefined(d, `no entry at ${JSON.stringify(loc)}: ${r.text}`)
            return d!
          }
          assert.deepInclude(at(["body", "name"]), {
            type: "value_error",
            msg: "Expected a value with a length of at most 200",
            input: "n".repeat(201)
          })
          assert.deepInclude(at(["body", "entity_types", 0]), { type: "literal_error", input: "planet" })
          assert.include(at(["body", "entity_types", 0]).msg, "Input should be 'protocol', 'chain'")
          assert.deepInclude(at(["body", "slugs", 0]), { type: "value_error", input: "Not A Slug" })
          assert.include(at(["body", "slugs", 0]).msg, "kebab-case slug")
          assert.deepInclude(at(["body", "events", 0]), {
            type: "literal_error",
            msg: "Input should be 'rating.changed', 'rating.grade_transition' or 'rating.new'",
            input: "rating.exploded",
            ctx: { expected: "'rating.changed', 'rating.grade_transition' or 'rating.new'" }
          })
          assert.deepInclude(at(["body", "channels", "webhook_url"]), {
            type: "value_error",
            msg: "Expected an absolute http or https URL",
            input: "ftp://hooks.example.com/x"
          })
          assert.strictEqual(byLoc.size, 5, "one entry per failing field")
          for (const d of byLoc.values()) assert.notInclude(d.msg, "Input is not a valid value")
          // A body nested thousands deep is answered the same way, without echoing it back.
          const deep = yield* caller.post("/alert-rules", undefined, `${"[".repeat(5000)}${"]".repeat(5000)}`)
          assert.strictEqual(deep.status, 422, deep.text)
          assert.deepStrictEqual((deep.json as Json).detail, [
            { type: "type_error", loc: ["body"], msg: "Expected object", input: null }
          ])
          const wrongType = yield* caller.post("/alert-rules", { name: 5, channels: {} })
          assert.deepStrictEqual((wrongType.json as Json).detail, [
            { type: "type_error", loc: ["body", "name"], msg: "Expected string | null", input: 5 },
            { type: "missing", loc: ["body", "channels", "webhook_url"], msg: "Field required", input: null }
          ])
        })
    )
  })

  describe("issue 13 point 7: alert rules are bounded", () => {
    it.effect(
      "a slug over 100 characters, over 100 slugs, or more entity types or events than exist is a 422 naming the field and the bound; nothing is stored",
      () =>
        Effect.gen(function* () {
          const caller = yield* account()
          const cases: ReadonlyArray<readonly [Json, ReadonlyArray<string | number>, string]> = [
            [{ slugs: ["a".repeat(101)] }, ["body", "slugs", 0], "at most 100"],
            [{ slugs: ["ok", "a".repeat(100_000)] }, ["body", "slugs", 1], "at most 100"],
            [
              { slugs: Array.from({ length: 101 }, (_, i) => `entity-${i}`) },
              ["body", "slugs"],
              "at most 100"
            ],
            [{ entity_types: Array(8).fill("chain") }, ["body", "entity_types"], "at most 7"],
            [{ events: Array(4).fill("rating.new") }, ["body", "events"], "at most 3"]
          ]
          for (const [extra, loc, bound] of cases) {
            const r = yield* caller.post("/alert-rules", ruleFor(nowhere, extra))
            assert.strictEqual(r.status, 422, r.text.slice(0, 300))
            const detail = (r.json as Json).detail as ReadonlyArray<Json>
            const entry = detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc))
            assert.isDefined(entry, `no entry at ${JSON.stringify(loc)}: ${r.text.slice(0, 300)}`)
            assert.include(entry!.msg, bound)
          }
          const edge = yield* caller.post(
            "/alert-rules",
            ruleFor(nowhere, {
              slugs: Array.from({ length: 100 }, (_, i) => `${"s".repeat(95)}-${i}`.slice(-100))
            })
          )
          assert.strictEqual(edge.status, 201, "100 slugs of 100 characters are accepted")
          assert.strictEqual(ok(yield* caller.get("/alert-rules")).total, 1, "only the rule within bounds")
        })
    )

    it.effect(
      "an account holds at most 100 rules: concurrent creates past it are 409 {detail, limit}, and no more are stored",
      () =>
        Effect.gen(function* () {
          const caller = yield* account()
          const answers = yield* Effect.forEach(
            Array.from({ length: 104 }, (_, i) => i),
            (i) => caller.post("/alert-rules", ruleFor(nowhere, { name: `rule ${i}` })),
            { concurrency: 16 }
          )
          const statuses = answers.map((r) => r.status)
          assert.strictEqual(statuses.filter((s) => s === 201).length, 100, String(statuses))
          assert.strictEqual(statuses.filter((s) => s === 409).length, 4, String(statuses))
          const refused = answers.find((r) => r.status === 409)!
          assert.deepStrictEqual(refused.json, {
            detail: "this account has 100 alert rules, the most it may have: delete one to create another",
            limit: 100
          })
          const listed = ok(yield* caller.get("/alert-rules"))
          assert.strictEqual(listed.total, 100)
          assert.lengthOf(listed.items, 100)
          const other = yield* account()
          assert.strictEqual((yield* other.post("/alert-rules", ruleFor(nowhere))).status, 201, "per account")
          // Deleting one makes room for one; then every rule goes, so that their test deliveries are never sent.
          yield* caller.del(`/alert-rules/${listed.items[0].id}`)
          created(yield* caller.post("/alert-rules", ruleFor(nowhere)))
          assert.strictEqual((yield* caller.post("/alert-rules", ruleFor(nowhere))).status, 409)
          const all = ok(yield* caller.get("/alert-rules")).items as ReadonlyArray<Json>
          yield* Effect.forEach(all, (rule) => caller.del(`/alert-rules/${rule.id}`), { concurrency: 16 })
        })
    )

    it.effect(
      "the bounds are in the served OpenAPI document: maxItems, maxLength, the slug pattern and the 409",
      () =>
        Effect.gen(function* () {
          const doc = (yield* (yield* TestServer).get("/openapi.json")).json as Json
          const post = doc.paths["/api/v1/alert-rules"].post
          const body = post.requestBody.content["application/json"].schema
          const props = (body.$ref === undefined ? body : doc.components.schemas[body.$ref.split("/").at(-1)])
            .properties
          assert.strictEqual(props.slugs.maxItems, 100)
          assert.strictEqual(props.slugs.items.maxLength, 100)
          assert.strictEqual(props.slugs.items.pattern, "^[a-z0-9]+(?:-[a-z0-9]+)*$")
          assert.strictEqual(props.entity_types.maxItems, 7)
          assert.strictEqual(props.events.maxItems, 3)
          assert.include(post.description, "at most 100 rules per account")
          assert.strictEqual(
            post.responses["409"].content["application/json"].schema.$ref,
            "#/components/schemas/AlertRuleLimitBody"
          )
        })
    )
  })

  describe("spec part 4 test-webhook: the outcome of a real attempt", () => {
    it.effect(
      "against a 2xx receiver: delivered, its status, and the receiver got the signed test event",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller, hook, rule, report } = yield* testWebhookAgainst(202)
            assert.strictEqual(report.delivered, true)
            assert.strictEqual(report.outcome, "delivered")
            assert.strictEqual(report.status_code, 202)
            assert.isNull(report.error)
            assert.isNull(report.next_attempt_at)
            assert.isAtLeast(report.elapsed_ms, 0)
            const mine = hook.of(report.delivery_id)
            assert.lengthOf(mine, 1, "sent now, by the route itself")
            assert.isTrue(validServiceSignature(rule.webhook_signing_key, mine[0]!))
            assert.isTrue(validStandardSignature(rule.webhook_signing_key, mine[0]!))
            assert.strictEqual(JSON.parse(mine[0]!.body).event, "webhook.test")
            const log = yield* deliveriesOf(caller, rule.id)
            assert.strictEqual(log[0].delivery_id, report.delivery_id, "newest first")
            assert.strictEqual(log[0].status, "delivered")
          })
        )
    )

    it.effect(
      "against a 500 receiver: not delivered, status 500, and the retry 30 s after the attempt is in the log",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller, hook, rule, report } = yield* testWebhookAgainst(500)
            assert.strictEqual(report.delivered, false)
            assert.strictEqual(report.outcome, "http_error")
            assert.strictEqual(report.status_code, 500)
            assert.strictEqual(report.error, "HTTP 500")
            assert.strictEqual(
              Date.parse(report.next_attempt_at) - Date.parse(report.attempted_at),
              RetryOffsetsMs[0],
              "retry 1 at 30 s after the initial attempt"
            )
            assert.lengthOf(hook.of(report.delivery_id), 1)
            const log = yield* deliveriesOf(caller, rule.id)
            const tested = log.find((d: Json) => d.delivery_id === report.delivery_id)
            assert.strictEqual(tested.status, "pending")
            assert.strictEqual(tested.next_attempt_at, report.next_attempt_at)
            assert.deepStrictEqual(
              tested.attempt_log.map((a: Json) => [a.attempt, a.outcome, a.status_code]),
              [[0, "http_error", 500]]
            )
          })
        )
    )
  })

  describe("spec part 3 and part 6 Retry: failed deliveries, the watchlist and re-fire", () => {
    it.effect(
      "a delivery that fails its initial attempt and 5 retries is failed and listed; re-fire makes it pending with the same delivery_id, then delivered; re-firing it again is 409",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { caller, hook, rule } = yield* ruleWithReceiver(500)
            const [queued] = yield* deliveriesOf(caller, rule.id)
            const id: string = queued.delivery_id

            const early = yield* caller.post(`/deliveries/${id}/refire`)
            assert.strictEqual(early.status, 409, early.text)
            assert.strictEqual((early.json as Json).status, "pending")
            assert.match((early.json as Json).detail, /pending/)

            for (const offset of [0, ...RetryOffsetsMs]) yield* dispatch(offset)
            const sentToUs = () => hook.of(id)
            assert.lengthOf(sentToUs(), 6, "the initial attempt and 5 retries")
            assert.isTrue(
              sentToUs().every((d) => validServiceSignature(rule.webhook_signing_key, d)),
              "every attempt signed afresh and valid"
            )

            const failed = ok(yield* caller.get("/deliveries?status=failed"))
            assert.deepStrictEqual(
              failed.items.map((d: Json) => [d.delivery_id, d.status, d.attempts]),
              [[id, "failed", 6]]
            )
            assert.strictEqual(failed.total, 1)
            const [logged] = yield* deliveriesOf(caller, rule.id)
            assert.deepStrictEqual(
              logged.attempt_log.map((a: Json) => a.attempt),
              [0, 1, 2, 3, 4, 5]
            )
            assert.isNull(logged.next_attempt_at)

            hook.answer(200)
            const refired = ok(yield* caller.post(`/deliveries/${id}/refire`))
            assert.strictEqual(refired.delivery_id, id)
            assert.strictEqual(refired.status, "pending")
            assert.strictEqual(refired.cycle, 1)
            assert.strictEqual(ok(yield* caller.get("/deliveries?status=failed")).total, 0)

            yield* dispatch()
            assert.lengthOf(sentToUs(), 7, "re-fired once, same webhook-id")
            const [done] = yield* deliveriesOf(caller, rule.id)
            assert.strictEqual(done.status, "delivered")

            const again = yield* caller.post(`/deliveries/${id}/refire`)
            assert.strictEqual(again.status, 409, again.text)
            assert.deepStrictEqual(again.json, {
              detail: `delivery ${id} is delivered: only a failed delivery can be re-fired`,
              delivery_id: id,
              status: "delivered"
            })
            const unknown = yield* caller.post(`/deliveries/${crypto.randomUUID()}/refire`)
            assert.strictEqual(unknown.status, 404)
            assert.deepStrictEqual(unknown.json, { detail: "not found" })
          })
        )
    )
  })
}

onEachBackend((it) => alertRuleRoutes(it))

/** A server whose policy is production's: https only, no private targets. */
const strictPolicyRoutes = (it: ServerIt) => {
  it.effect(
    "webhook URLs are validated at create: http and private, loopback or link-local targets are 422 saying why",
    () =>
      Effect.gen(function* () {
        const caller = yield* account()
        const cases: ReadonlyArray<readonly [url: string, reason: string, says: RegExp]> = [
          ["http://hooks.example.com/ratings", "https_required", /must use https/],
          ["https://127.0.0.1/hooks", "private_target", /loopback/],
          ["https://localhost:8443/hooks", "private_target", /loopback/],
          ["https://169.254.169.254/latest/meta-data/", "private_target", /link-local/],
          ["https://10.0.0.7/hooks", "private_target", /private/],
          ["https://0x7f000001/hooks", "private_target", /loopback/]
        ]
        for (const [url, reason, says] of cases) {
          const r = yield* caller.post("/alert-rules", ruleFor(url))
          assert.strictEqual(r.status, 422, `${url}: ${r.text}`)
          const [issue] = (r.json as Json).detail
          assert.deepStrictEqual(issue.loc, ["body", "channels", "webhook_url"])
          assert.match(issue.msg, says, url)
          assert.strictEqual(issue.input, url)
          assert.deepStrictEqual(issue.ctx, { reason }, url)
        }
        assert.strictEqual(ok(yield* caller.get("/alert-rules")).total, 0, "nothing was stored")
        created(yield* caller.post("/alert-rules", ruleFor("https://hooks.example.com/ratings")))
      })
  )
}

describe("with production's target policy", () => {
  onEachBackend((it) => strictPolicyRoutes(it), { server: { webhookTargets: WebhookTargetPolicy.strict } })
})

/** An internal name (one the public cannot resolve) that the transport's resolver maps to loopback. */
const InternalName = "ratings-db.internal"

/** A name the transport's resolver does not resolve (ENOTFOUND, as the system resolver says it). */
const MissingName = "ratings-nothing.internal"

describe("with private targets not allowed at send time (issue 13: no internal-name oracle)", () => {
  onEachBackend(
    (it) => {
      it.effect(
        "test-webhook to a name that resolves to loopback is target_refused saying only that the target is not allowed: neither its answer nor the delivery log names the address",
        () =>
          Effect.scoped(
            Effect.gen(function* () {
              const caller = yield* account()
              const hook = yield* receiver(200)
              const port = new URL(hook.url).port
              for (const url of [`http://${InternalName}:${port}/hooks`, `http://localhost:${port}/hooks`]) {
                const rule = created(yield* caller.post("/alert-rules", ruleFor(url)))
                const answered = yield* caller.post(`/alert-rules/${rule.id}/test-webhook`)
                const report = ok(answered)
                assert.strictEqual(report.delivered, false, url)
                assert.strictEqual(report.error, `target_refused: ${TargetNotAllowedMessage}`, url)
                const log = yield* caller.get(`/alert-rules/${rule.id}/deliveries`)
                const tested = (ok(log).items as Array<Json>).find(
                  (d) => d.delivery_id === report.delivery_id
                )
                assert.deepStrictEqual(
                  tested?.attempt_log.map((a: Json) => a.error),
                  [`target_refused: ${TargetNotAllowedMessage}`],
                  url
                )
                for (const text of [answered.text, log.text])
                  for (const address of ["127.0.0.1", "::1", "loopback", "refused target"])
                    assert.notInclude(text, address, url)
              }
              assert.lengthOf(hook.received, 0, "nothing reached the receiver")
            })
          )
      )

      it.effect(
        "test-webhook to a name that does not resolve answers exactly as to a name that resolves to loopback: same status, same report and the same delivery log, so a caller cannot tell whether an internal name exists",
        () =>
          Effect.scoped(
            Effect.gen(function* () {
              const caller = yield* account()
              const hook = yield* receiver(200)
              const port = new URL(hook.url).port
              const seen: Array<{ readonly status: number; readonly answer: Json; readonly log: unknown }> =
                []
              for (const name of [InternalName, MissingName, "nothing.invalid"]) {
                const url = `http://${name}:${port}/hooks`
                const rule = created(yield* caller.post("/alert-rules", ruleFor(url)))
                const answered = yield* caller.post(`/alert-rules/${rule.id}/test-webhook`)
                const {
                  delivery_id,
                  attempted_at: _at,
                  elapsed_ms: _elapsed,
                  next_attempt_at,
                  ...answer
                } = answered.json as Json
                assert.isString(next_attempt_at, `${name}: a retry is scheduled either way`)
                const items = ok(yield* caller.get(`/alert-rules/${rule.id}/deliveries`)).items as Array<Json>
                const tested = items.find((d) => d.delivery_id === delivery_id)
                seen.push({
                  status: answered.status,
                  answer,
                  log: {
                    status: tested?.status,
                    last_error: tested?.last_error,
                    attempts: tested?.attempt_log.map((a: Json) => [a.outcome, a.status_code, a.error])
                  }
                })
              }
              assert.deepStrictEqual(seen[0], {
                status: 200,
                answer: {
                  delivered: false,
                  outcome: "network_error",
                  status_code: null,
                  error: `target_refused: ${TargetNotAllowedMessage}`
                },
                log: {
                  status: "pending",
                  last_error: `target_refused: ${TargetNotAllowedMessage}`,
                  attempts: [["network_error", null, `target_refused: ${TargetNotAllowedMessage}`]]
                }
              })
              assert.deepStrictEqual(seen[1], seen[0], "a name that does not resolve answers the same")
              assert.deepStrictEqual(seen[2], seen[0], "so does a name under .invalid")
              assert.lengthOf(hook.received, 0, "nothing reached the receiver")
            })
          )
      )
    },
    {
      server: {
        webhookTransport: {
          allowPrivateTargets: false,
          requireHttps: false,
          resolveHost: async (hostname) => {
            if (hostname === MissingName || hostname.endsWith(".invalid"))
              throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
                code: "ENOTFOUND",
                hostname
              })
            return hostname === InternalName
              ? [{ address: "127.0.0.1", family: 4 }]
              : [
                  { address: "127.0.0.1", family: 4 },
                  { address: "::1", family: 6 }
                ]
          }
        }
      }
    }
  )
})
