/**
 * Webhook delivery by the server process (issue 6, "Events and delivery" and
 * "Proof"; spec part 3, "Webhook delivery"; part 6, "Signature" and "Retry
 * and idempotency"), end to end and with real processes only: data imported
 * and a re-rating published with the real CLI (`ratings import`, `ratings
 * publish`), alert rules stored through the Postgres repository under the
 * server key the child processes use, `ratings serve` delivering to real
 * https receivers on 127.0.0.1, and the outcome read from the outbox tables.
 *
 * The retry offsets are scaled down (RATINGS_WEBHOOK_RETRY_SCALE, honoured
 * because NODE_ENV=test) so a whole schedule takes seconds. Claims are not
 * scaled: a delivery whose sender was killed waits out its lease (60 s), as
 * it would in production, so the kill test takes about a minute. The
 * shutdown tests shorten the lease to 31 s (RATINGS_WEBHOOK_LEASE), the
 * shortest the server accepts.
 */
import { createHmac } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { retryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import pg from "pg"
import { exited, runCli, scratchDatabase } from "./CliHarness.ts"
import {
  createRules,
  ended,
  readOutbox,
  type ReceivedRequest,
  settled,
  TestRetryScale,
  waitForOutbox,
  waitForReceiver,
  type WebhookWorld,
  webhookWorld
} from "./WebhookHarness.ts"

const ScaledOffsets = retryPolicy({ scale: TestRetryScale }).offsetsMs

/** The claim lease of the shutdown tests' servers (RATINGS_WEBHOOK_LEASE): the shortest allowed, and a bit. */
const LeaseMs = 31_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async (check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await sleep(25)
  }
}

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

const headerOf = (request: ReceivedRequest, name: string): string => String(request.headers[name] ?? "")

/** A request's intervals overlap another's of the same delivery. */
const overlapping = (requests: ReadonlyArray<ReceivedRequest>): boolean => {
  const sorted = [...requests].sort((a, b) => a.start - b.start)
  return sorted.some((r, i) => i > 0 && sorted[i - 1]!.end! > r.start)
}

describe("webhook delivery by `ratings serve`", () => {
  it("a published re-rating reaches the receiver of every matching rule, signed (X-Service-Signature and Standard Webhooks) on the raw bytes, and nothing reaches the others", async () => {
    const { databaseUrl, env } = await world.setup()
    const receiver = await world.receiver(() => 204)
    const [all, changedOnly, otherSlug, chainsOnly] = await createRules(databaseUrl, world.serverKey, [
      { webhookUrl: receiver.url("/all"), entityTypes: ["protocol"], slugs: ["lendwell"] },
      { webhookUrl: receiver.url("/changed"), slugs: ["lendwell"], events: ["rating.changed"] },
      { webhookUrl: receiver.url("/other"), slugs: ["another-protocol"] },
      { webhookUrl: receiver.url("/chains"), entityTypes: ["chain"] }
    ])
    // rating.changed and rating.grade_transition to `all`, rating.changed to `changedOnly`
    assert.strictEqual(await world.publishLendwell(env), 3)

    const server = await world.startServer(env)
    const state = await waitForOutbox(databaseUrl, settled, 30_000)
    await waitForReceiver(receiver, (r) => r.requests.every((q) => q.outcome !== undefined), 5_000)

    assert.strictEqual(state.deliveries.length, 3)
    for (const d of state.deliveries) {
      assert.strictEqual(d.status, "delivered")
      assert.deepStrictEqual(
        state.attempts.get(d.delivery_id)!.map((a) => [a.attempt, a.outcome, a.status_code]),
        [[0, "delivered", 204]]
      )
    }
    assert.strictEqual(receiver.requests.length, 3, "one request per delivery, no more")
    assert.deepStrictEqual(receiver.requests.map((r) => r.path).sort(), ["/all", "/all", "/changed"])
    const keyOf = new Map([all, changedOnly, otherSlug, chainsOnly].map((r) => [r!.id, r!.key]))

    for (const request of receiver.requests) {
      const body = JSON.parse(request.raw.toString("utf8"))
      const stored = state.deliveries.find((d) => d.delivery_id === body.delivery_id)!
      assert.isDefined(stored, "the body names its delivery")
      assert.strictEqual(request.raw.toString("utf8"), stored.body, "the exact bytes the outbox stored")
      assert.strictEqual(headerOf(request, "content-type"), "application/json")
      assert.strictEqual(headerOf(request, "webhook-id"), stored.delivery_id)
      assert.strictEqual(body.watchlist_id, stored.rule_id)
      const key = keyOf.get(stored.rule_id)!
      // The spec's header: lowercase hex HMAC-SHA256 of the raw body with the rule's key.
      assert.strictEqual(
        headerOf(request, "x-service-signature"),
        createHmac("sha256", key).update(request.raw).digest("hex")
      )
      // The Standard Webhooks headers, checked by the stock verifier (it also checks the timestamp).
      assert.doesNotThrow(() =>
        new Webhook(key).verify(request.raw.toString("utf8"), {
          "webhook-id": headerOf(request, "webhook-id"),
          "webhook-timestamp": headerOf(request, "webhook-timestamp"),
          "webhook-signature": headerOf(request, "webhook-signature")
        })
      )
      assert.strictEqual(body.data.entity_type, "protocol")
      assert.strictEqual(body.data.entity_slug, "lendwell")
      assert.isBelow(body.data.current.composite_score, body.data.previous.composite_score)
      assert.isAbove(body.data.domain_changes.length, 0)
      for (const change of body.data.domain_changes) {
        assert.isString(change.domain)
        assert.isNumber(change.previous)
        assert.isNumber(change.current)
      }
      if (body.event === "rating.grade_transition") {
        assert.strictEqual(body.data.direction, "downgrade")
        assert.strictEqual(body.data.previous_grade, body.data.previous.letter_grade)
        assert.strictEqual(body.data.current_grade, body.data.current.letter_grade)
      } else {
        assert.strictEqual(body.event, "rating.changed")
      }
    }
    const events = receiver.requests.map((r) => `${r.path} ${JSON.parse(r.raw.toString()).event}`).sort()
    assert.deepStrictEqual(events, [
      "/all rating.changed",
      "/all rating.grade_transition",
      "/changed rating.changed"
    ])

    server.child.kill("SIGTERM")
    await ended(server.child)
    for (const rule of [all, changedOnly]) assert.notInclude(server.output(), rule!.key)
    assert.notInclude(server.output(), world.serverKey)
  }, 180_000)

  it("SIGTERM drains webhook sends: a send in flight when the signal comes is waited for (the receiver answers after 3 s, the grace is 10 s), its attempt is recorded as delivered, the process exits 0, and no second delivery comes once its claim would have expired; a delivery claimed but not yet started is handed back unattempted, and the next server sends it at once, not after its lease", async () => {
    const { databaseUrl, env } = await world.setup({
      RATINGS_SHUTDOWN_GRACE: "10 seconds",
      RATINGS_WEBHOOK_LEASE: `${LeaseMs / 1_000} seconds`,
      // One send slot: the loop claims both deliveries, sends one and holds the other ready.
      RATINGS_WEBHOOK_CONCURRENCY: "1"
    })
    const receiver = await world.receiver(async () => {
      await sleep(3_000)
      return 204
    })
    await createRules(databaseUrl, world.serverKey, [
      { webhookUrl: receiver.url("/slow"), slugs: ["lendwell"], events: ["rating.changed"] },
      { webhookUrl: receiver.url("/next"), slugs: ["lendwell"], events: ["rating.changed"] }
    ])
    assert.strictEqual(await world.publishLendwell(env), 2)
    const server = await world.startServer(env)
    await waitForReceiver(receiver, (r) => r.open() === 1, 90_000)

    const stopping = performance.now()
    server.child.kill("SIGTERM")
    assert.strictEqual(await exited(server.child), 0, server.output())
    const took = performance.now() - stopping
    const request = receiver.requests[0]!
    assert.strictEqual(request.outcome, 204, "the receiver answered; the send was not cut")
    assert.isAtLeast(took, request.end! - stopping - 100, "the process waited for the answer")
    assert.isBelow(took, 9_000, "and exited once it was recorded, before the grace ended")
    assert.include(server.output(), "webhook dispatcher stopped: every attempt in flight finished")
    assert.lengthOf(receiver.requests, 1, "the stopping server started nothing more")

    const state = await readOutbox(databaseUrl)
    const sent = state.deliveries.find((d) => d.delivery_id === request.deliveryId)!
    assert.strictEqual(sent.status, "delivered")
    assert.deepStrictEqual(
      state.attempts.get(sent.delivery_id)!.map((a) => [a.attempt, a.outcome, a.status_code]),
      [[0, "delivered", 204]]
    )
    const handedBack = state.deliveries.find((d) => d.delivery_id !== request.deliveryId)!
    assert.deepStrictEqual(
      [handedBack.status, handedBack.attempts, state.attempts.get(handedBack.delivery_id)],
      ["pending", 0, undefined],
      "the delivery claimed but not started was not attempted"
    )

    // Another server: it sends the handed-back delivery at once, and runs past the moment the
    // claims of the first server would have expired.
    const other = await world.startServer(env)
    await waitForReceiver(receiver, (r) => r.requests.length === 2, 30_000)
    const next = receiver.requests[1]!
    assert.strictEqual(next.deliveryId, handedBack.delivery_id)
    assert.isBelow(
      next.start - request.start,
      LeaseMs - 2_000,
      "sent long before the claim of the stopped server would have expired"
    )
    await sleep(Math.max(0, request.start + LeaseMs + 3_000 - performance.now()))
    assert.lengthOf(receiver.requests, 2, "each delivered once")
    const done = await readOutbox(databaseUrl)
    for (const d of done.deliveries) {
      assert.strictEqual(d.status, "delivered")
      assert.lengthOf(done.attempts.get(d.delivery_id)!, 1)
    }
    other.child.kill("SIGTERM")
    assert.strictEqual(await exited(other.child), 0, other.output())
  }, 180_000)

  it("SIGTERM with a grace shorter than the receiver's answer: the send and an HTTP request in flight are both cut when the one shared grace ends (4 s, not one grace after the other), the process exits 0, no attempt is recorded, and the delivery is made again once its claim expires", async () => {
    const { databaseUrl, env } = await world.setup({
      RATINGS_SHUTDOWN_GRACE: "4 seconds",
      RATINGS_WEBHOOK_LEASE: `${LeaseMs / 1_000} seconds`
    })
    const receiver = await world.receiver(() => "hold")
    await createRules(databaseUrl, world.serverKey, [
      { webhookUrl: receiver.url("/held"), slugs: ["lendwell"], events: ["rating.changed"] }
    ])
    assert.strictEqual(await world.publishLendwell(env), 1)
    const server = await world.startServer(env)
    await waitForReceiver(receiver, (r) => r.open() === 1, 90_000)

    // An HTTP request held in flight by a lock on the table it reads.
    const lock = new pg.Client({ connectionString: databaseUrl })
    await lock.connect()
    let stopping = 0
    try {
      await lock.query("BEGIN")
      await lock.query("LOCK TABLE scorecards IN ACCESS EXCLUSIVE MODE")
      const held = fetch(`http://127.0.0.1:${server.port}/api/v1/protocols/lendwell/scorecards`).then(
        (r) => r.text().then(() => r.status),
        (e: Error) => e.message
      )
      await until(async () => {
        const { rows } = await lock.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return rows[0].n > 0
      }, 30_000)

      stopping = performance.now()
      server.child.kill("SIGTERM")
      assert.strictEqual(await exited(server.child), 0, server.output())
      const took = performance.now() - stopping
      assert.isAtLeast(took, 3_900, "the process waited out the grace")
      assert.isBelow(took, 7_500, "one grace for both drains, not one after the other")
      assert.notStrictEqual(await held, 200, "the HTTP request was cut")
      assert.match(server.output(), /stopped: 1 connection\(s\) still open after 4s were closed/)
    } finally {
      await lock.query("ROLLBACK").catch(() => undefined)
      await lock.end()
    }
    await waitForReceiver(receiver, (r) => r.open() === 0, 5_000)
    const cut = receiver.requests[0]!
    assert.strictEqual(cut.outcome, "aborted")
    assert.isAtLeast(cut.end! - stopping, 3_900, "the send ran until the grace ended")
    assert.include(server.output(), "webhook dispatcher stopped: attempts still running")
    const state = await readOutbox(databaseUrl)
    assert.strictEqual(state.deliveries[0]!.status, "pending", "still owed to the receiver")
    assert.strictEqual(state.deliveries[0]!.attempts, 0)
    assert.isUndefined(
      state.attempts.get(state.deliveries[0]!.delivery_id),
      "nothing recorded for the cut send"
    )

    // Left to its claim: another server makes the attempt once the lease has run out.
    receiver.answer = () => 204
    const other = await world.startServer(env)
    const done = await waitForOutbox(databaseUrl, settled, LeaseMs + 30_000)
    const again = receiver.requests[1]!
    assert.isAtLeast(again.start - cut.start, LeaseMs - 1_000, "not before the claim expired")
    assert.deepStrictEqual(
      done.attempts.get(done.deliveries[0]!.delivery_id)!.map((a) => [a.attempt, a.outcome, a.status_code]),
      [[0, "delivered", 204]]
    )
    other.child.kill("SIGTERM")
    assert.strictEqual(await exited(other.child), 0, other.output())
  }, 180_000)

  it("the server killed (SIGKILL) with deliveries in flight and restarted: every delivery ends delivered or failed after exactly five retries at the scaled offsets, none is lost, and no attempt is recorded twice", async () => {
    // 16 send slots, fewer than the deliveries, so some are never claimed by the process killed.
    const { databaseUrl, env } = await world.setup({ RATINGS_WEBHOOK_CONCURRENCY: "16" })
    let phase: "holding" | "answering" = "holding"
    const receiver = await world.receiver((request) =>
      phase === "holding" ? "hold" : request.path.startsWith("/fail") ? 500 : 200
    )
    const rules = await createRules(
      databaseUrl,
      world.serverKey,
      Array.from({ length: 30 }, (_, i) => ({
        webhookUrl: receiver.url(i % 2 === 0 ? `/ok/${i}` : `/fail/${i}`),
        slugs: ["lendwell"],
        events: ["rating.changed" as const]
      }))
    )
    assert.strictEqual(await world.publishLendwell(env), 30)
    const enqueued = (await readOutbox(databaseUrl)).deliveries.map((d) => d.delivery_id).sort()

    // The dispatcher's 16 slots fill with sends the receiver holds; then the process dies.
    const first = await world.startServer(env)
    await waitForReceiver(receiver, (r) => r.open() === 16, 90_000)
    first.child.kill("SIGKILL")
    await ended(first.child)
    await waitForReceiver(receiver, (r) => r.open() === 0, 5_000)
    const killedSends = receiver.requests.length
    assert.strictEqual(killedSends, 16)
    assert.isTrue(receiver.requests.every((r) => r.outcome === "aborted"))

    phase = "answering"
    await world.startServer(env)
    // The 14 never claimed go at once; the 16 claimed by the dead process once their leases expire.
    const state = await waitForOutbox(databaseUrl, settled, 150_000)
    await waitForReceiver(receiver, (r) => r.open() === 0, 5_000)

    assert.deepStrictEqual(state.deliveries.map((d) => d.delivery_id).sort(), enqueued, "none lost")
    const ruleOf = new Map(rules.map((r) => [r.id, r.webhookUrl]))
    const received = receiver.byDelivery()
    for (const d of state.deliveries) {
      const attempts = state.attempts.get(d.delivery_id) ?? []
      assert.isTrue(
        attempts.every((a) => a.cycle === 0),
        "no re-fire happened"
      )
      assert.deepStrictEqual(
        attempts.map((a) => a.attempt),
        Array.from({ length: d.attempts }, (_, i) => i),
        "attempts numbered 0..n-1, each once"
      )
      const answered = (received.get(d.delivery_id) ?? []).filter((r) => r.outcome !== "aborted")
      assert.strictEqual(answered.length, attempts.length, "one recorded attempt per answered request")
      assert.isFalse(overlapping(received.get(d.delivery_id) ?? []))
      if (ruleOf.get(d.rule_id)!.includes("/ok/")) {
        assert.strictEqual(d.status, "delivered")
        assert.deepStrictEqual(
          attempts.map((a) => a.outcome),
          ["delivered"]
        )
      } else {
        assert.strictEqual(d.status, "failed")
        assert.strictEqual(d.attempts, 6, "the initial attempt and five retries")
        assert.isTrue(attempts.every((a) => a.outcome === "http_error" && a.status_code === 500))
        assert.strictEqual(d.last_error, "HTTP 500")
        const t0 = attempts[0]!.started_at.getTime()
        for (let k = 1; k < attempts.length; k++) {
          assert.isAtLeast(attempts[k]!.started_at.getTime() - t0, ScaledOffsets[k - 1]!, `retry ${k}`)
        }
      }
    }
    assert.strictEqual(
      receiver.requests.filter((r) => r.outcome === "aborted").length,
      killedSends,
      "only the sends of the killed process went unanswered"
    )
  }, 300_000)

  it("two server processes on one database: no delivery is sent twice at once, and each is delivered exactly once", async () => {
    const { databaseUrl, env } = await world.setup({
      RATINGS_WEBHOOK_CONCURRENCY: "4",
      RATINGS_WEBHOOK_POLL_INTERVAL: "100 millis"
    })
    // Every fourth rule's receiver refuses the first request, so retries are claimed across processes too.
    const receiver = await world.receiver(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 30))
      const index = Number(request.path.split("/")[2])
      return index % 4 === 0 && request.nth === 0 ? 503 : 200
    })
    const rules = await createRules(
      databaseUrl,
      world.serverKey,
      // Four accounts of 50 rules each: an account holds at most 100 rules (AlertRuleLimits).
      Array.from({ length: 200 }, (_, i) => ({
        accountId: `webhook-test-account-${i % 4}`,
        webhookUrl: receiver.url(`/r/${i}`),
        slugs: ["lendwell"],
        events: ["rating.changed" as const]
      }))
    )
    const servers = await Promise.all([world.startServer(env), world.startServer(env)])
    assert.strictEqual(await world.publishLendwell(env), 200)
    const state = await waitForOutbox(databaseUrl, settled, 90_000)
    await waitForReceiver(receiver, (r) => r.open() === 0, 5_000)

    const indexOf = new Map(rules.map((r, i) => [r.id, i]))
    const received = receiver.byDelivery()
    assert.strictEqual(received.size, 200)
    for (const d of state.deliveries) {
      const requests = received.get(d.delivery_id) ?? []
      assert.isFalse(overlapping(requests), `requests of ${d.delivery_id} overlap`)
      assert.strictEqual(d.status, "delivered")
      assert.strictEqual(requests.filter((r) => r.outcome === 200).length, 1, "delivered exactly once")
      assert.strictEqual(
        requests.length,
        indexOf.get(d.rule_id)! % 4 === 0 ? 2 : 1,
        "a 503 once for every fourth rule, otherwise one request"
      )
      assert.strictEqual(requests.length, state.attempts.get(d.delivery_id)?.length)
    }
    // One process never has more than 4 sends open, so more than 4 at once means both sent.
    assert.isAbove(receiver.maxOpen(), 4)
    assert.isAtMost(receiver.maxOpen(), 8)
    for (const server of servers) server.child.kill("SIGTERM")
    await Promise.all(servers.map((s) => ended(s.child)))
  }, 240_000)
})

describe("webhook delivery settings", () => {
  it("RATINGS_WEBHOOK_RETRY_SCALE is a setting only tests use: outside NODE_ENV=test the server refuses to start and says why", async () => {
    const db = await scratchDatabase()
    const port = await Effect.runPromise(freePort)
    const r = await runCli(["serve"], {
      DATABASE_URL: db.url,
      PORT: String(port),
      NODE_ENV: "production",
      RATINGS_WEBHOOK_RETRY_SCALE: "0.001",
      RATINGS_SECRET_KEY: world.serverKey
    }).finally(db.drop)
    const output = r.stdout + r.stderr
    assert.strictEqual(r.code, 1)
    assert.include(output, "RATINGS_WEBHOOK_RETRY_SCALE is a setting only tests use")
    assert.include(output, 'honoured only when NODE_ENV=test (NODE_ENV is "production")')
    assert.notInclude(output, "Listening on")
  }, 60_000)

  it("a concurrency that is not a whole number from 1 to 1000 is refused with the setting's name", async () => {
    const db = await scratchDatabase()
    const port = await Effect.runPromise(freePort)
    const r = await runCli(["serve"], {
      DATABASE_URL: db.url,
      PORT: String(port),
      RATINGS_WEBHOOK_CONCURRENCY: "0",
      RATINGS_SECRET_KEY: world.serverKey
    }).finally(db.drop)
    const output = r.stdout + r.stderr
    assert.strictEqual(r.code, 1)
    assert.include(output, "RATINGS_WEBHOOK_CONCURRENCY")
    assert.include(output, "must be a whole number from 1 to 1000")
    assert.notInclude(output, "Listening on")
  }, 60_000)
})
