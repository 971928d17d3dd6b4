/**
 * The per-host bound of webhook sends, end to end: `ratings serve` with
 * RATINGS_WEBHOOK_CONCURRENCY=16 and RATINGS_WEBHOOK_HOST_CONCURRENCY=3
 * delivering one publish to two real https receivers on 127.0.0.1 (two
 * ports, so two destination hosts), one of which answers after 2 s. Each
 * receiver sees at most 3 requests of the process at once, and the slow one
 * does not hold back the fast one's deliveries.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import {
  createRules,
  ended,
  settled,
  waitForOutbox,
  waitForReceiver,
  type WebhookWorld,
  webhookWorld
} from "./WebhookHarness.ts"

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("webhook sends per destination host", () => {
  it("a receiver never sees more than RATINGS_WEBHOOK_HOST_CONCURRENCY requests of one process at once, and " +
    "a receiver answering in 2 s does not hold back another's deliveries, although it was claimed first", async () => {
    const { databaseUrl, env } = await world.setup({
      RATINGS_WEBHOOK_CONCURRENCY: "16",
      RATINGS_WEBHOOK_HOST_CONCURRENCY: "3",
      RATINGS_WEBHOOK_POLL_INTERVAL: "100 millis"
    })
    const slow = await world.receiver(async () => {
      await sleep(2_000)
      return 200
    })
    const fast = await world.receiver(async () => {
      await sleep(20)
      return 200
    })
    // The slow receiver's 15 rules come first, so their deliveries are claimed first.
    await createRules(
      databaseUrl,
      world.serverKey,
      Array.from({ length: 45 }, (_, i) => ({
        accountId: "webhook-host-account",
        webhookUrl: i < 15 ? slow.url(`/slow/${i}`) : fast.url(`/fast/${i}`),
        slugs: ["lendwell"],
        events: ["rating.changed" as const]
      }))
    )
    const server = await world.startServer(env)
    assert.strictEqual(await world.publishLendwell(env), 45)

    await waitForReceiver(fast, (r) => r.requests.filter((q) => q.outcome === 200).length === 30, 30_000)
    const fastDone = Math.max(...fast.requests.map((q) => q.end!))
    const state = await waitForOutbox(databaseUrl, settled, 90_000)
    assert.strictEqual(state.deliveries.length, 45)
    assert.isTrue(state.deliveries.every((d) => d.status === "delivered"))

    assert.strictEqual(slow.maxOpen(), 3, "three at once to the slow receiver, never more")
    assert.isAtMost(fast.maxOpen(), 3)
    // 15 slow requests three at a time take five rounds of 2 s: the fast ones ended within the first.
    const slowAnswered = slow.requests.map((q) => q.end!).sort((a, b) => a - b)
    assert.lengthOf(slowAnswered, 15)
    assert.isBelow(
      fastDone,
      slowAnswered[3]!,
      "every fast delivery ended before the slow receiver's second round"
    )
    server.child.kill("SIGTERM")
    await ended(server.child)
  }, 120_000)
})
