/**
 * The webhook fan-out benchmark's logic at a tiny size, so the figures it
 * prints come from a run that is known to deliver: one publish through the
 * Publisher over Postgres, the production dispatcher and undici transport, a
 * real receiver process on loopback. `runFanout` itself fails on any delivery
 * not received exactly once or any sampled signature that does not verify;
 * these assertions pin the counts down from the outside as well.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { withScratchDatabase } from "../harness.ts"
import { runFanout } from "../webhookFanout.bench.ts"

const serverUrl = () => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

describe("webhook fan-out benchmark", () => {
  it("a re-rating published to 50 matching rules enqueues one delivery per rule per event, and the dispatcher " +
    "delivers each exactly once, signed with its rule's key (X-Service-Signature and Standard Webhooks)", async () => {
    const rules = 50
    const result = await withScratchDatabase(serverUrl(), "bench_webhooks_test", false, (db) =>
      Effect.runPromise(
        Effect.scoped(
          runFanout(db.url, {
            rules,
            concurrency: 8,
            hostConcurrency: 8,
            seed: "test",
            sample: 10,
            timeoutMs: 20_000
          })
        )
      )
    )
    // lendwell's re-rating moves both its composite and its grade: rating.changed and a grade transition.
    assert.strictEqual(result.events, 2)
    assert.strictEqual(result.deliveries, rules * 2)
    assert.strictEqual(result.deliveredOnce, result.deliveries)
    assert.strictEqual(result.dispatch.requests, result.deliveries)
    assert.strictEqual(result.signaturesVerified, result.deliveries / 10)
    assert.strictEqual(result.baseline.requests, result.deliveries)
    assert.isTrue(result.bodyBytes > 0 && result.dispatch.perSecond > 0 && result.baseline.perSecond > 0)
    assert.isTrue(result.latency.p50 <= result.latency.p99 && result.latency.p99 <= result.latency.max)
  }, 60_000)

  it("--slow and --processes 2 at 50 rules: every tenth rule's receiver answers after 200 ms and never has more " +
    "than the host bound open; the fast deliveries are timed with and without the slow ones, and sent again by " +
    "one then two dispatcher processes, each phase delivering every delivery exactly once", async () => {
    const rules = 50
    const result = await withScratchDatabase(serverUrl(), "bench_webhooks_test", false, (db) =>
      Effect.runPromise(
        Effect.scoped(
          runFanout(db.url, {
            rules,
            concurrency: 8,
            hostConcurrency: 3,
            seed: "test-slow",
            sample: 10,
            slow: true,
            slowMs: 200,
            processes: 2,
            timeoutMs: 60_000
          })
        )
      )
    )
    // Five slow rules, two events each: the main phase sends the other 90.
    assert.strictEqual(result.deliveries, 90)
    assert.strictEqual(result.deliveredOnce, 90)
    assert.strictEqual(result.baseline.requests, 90)
    assert.isAtMost(result.maxOpen, 3)
    const slow = result.slow!
    assert.strictEqual(slow.slowDeliveries, 10)
    assert.strictEqual(slow.fastWithSlow.requests, 90)
    assert.strictEqual(slow.all.requests, 100)
    assert.isTrue(slow.fastWithSlow.ms <= slow.all.ms)
    assert.isAtMost(slow.slowMaxOpen, 3, "the slow receiver never saw more than the host bound at once")
    assert.isAbove(slow.slowMaxOpen, 0)
    assert.strictEqual(result.processes!.one.requests, 90)
    assert.strictEqual(result.processes!.many.requests, 90)
    assert.isTrue(result.processes!.one.perSecond > 0 && result.processes!.many.perSecond > 0)
  }, 120_000)
})
