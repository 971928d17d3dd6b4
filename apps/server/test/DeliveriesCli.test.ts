/**
 * `ratings deliveries list|refire` as an operator runs them (issue 6, "Failed
 * deliveries ... also `ratings deliveries refire`"; spec part 3: a failed
 * delivery is never replayed automatically). A real `ratings serve` drives
 * deliveries to a real https receiver on 127.0.0.1, with the retry offsets
 * scaled so one answering 500 is failed within seconds; then the commands run
 * against the same database, and the server's dispatcher sends the re-fire.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runCli, runCliBothWays } from "./CliHarness.ts"
import {
  createRules,
  ended,
  type OutboxState,
  readOutbox,
  waitForOutbox,
  type WebhookWorld,
  webhookWorld
} from "./WebhookHarness.ts"

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

/** The columns of one printed line: id, rule, event, status, attempts, next attempt, last error. */
const lines = (stdout: string): Array<Array<string>> =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.split("\t"))

const deliveryOf = (state: OutboxState, ruleId: string) => state.deliveries.find((d) => d.rule_id === ruleId)!

describe("ratings deliveries", () => {
  it("list shows each delivery on one line (never a key or the body); refire puts a failed one back to pending under the same delivery_id and the server delivers it; anything but a failed delivery is refused with exit 1", async () => {
    const { databaseUrl, env } = await world.setup()
    let down = true
    const receiver = await world.receiver((request) => (request.path === "/flaky" && down ? 500 : 200))
    const [flaky, healthy, orphan] = await createRules(databaseUrl, world.serverKey, [
      { webhookUrl: receiver.url("/flaky"), slugs: ["lendwell"], events: ["rating.changed"] },
      { webhookUrl: receiver.url("/healthy"), slugs: ["lendwell"], events: ["rating.changed"] },
      { webhookUrl: receiver.url("/flaky"), slugs: ["lendwell"], events: ["rating.changed"] }
    ])
    assert.strictEqual(await world.publishLendwell(env), 3)
    const server = await world.startServer(env)
    let state = await waitForOutbox(
      databaseUrl,
      (s) =>
        deliveryOf(s, flaky!.id)?.status === "failed" &&
        deliveryOf(s, orphan!.id)?.status === "failed" &&
        deliveryOf(s, healthy!.id)?.status === "delivered",
      30_000
    )
    const failed = deliveryOf(state, flaky!.id)
    const delivered = deliveryOf(state, healthy!.id)
    const orphaned = deliveryOf(state, orphan!.id)

    // list: every delivery, newest first, one tab-separated line each (the real binary, and in this process alike)
    const all = await runCliBothWays(["deliveries", "list"], env)
    assert.strictEqual(all.code, 0, all.stderr)
    const rows = lines(all.stdout)
    assert.deepStrictEqual(
      rows.map((r) => r[0]),
      state.deliveries.map((d) => d.delivery_id).reverse()
    )
    assert.deepStrictEqual(
      rows.find((r) => r[0] === failed.delivery_id),
      [failed.delivery_id, flaky!.id, "rating.changed", "failed", "attempts 6", "next -", "HTTP 500"]
    )
    assert.deepStrictEqual(
      rows.find((r) => r[0] === delivered.delivery_id),
      [delivered.delivery_id, healthy!.id, "rating.changed", "delivered", "attempts 1", "next -", "-"]
    )
    for (const secret of [flaky!.key, healthy!.key, orphan!.key, world.serverKey, failed.body]) {
      assert.notInclude(all.stdout + all.stderr, secret)
    }
    assert.notInclude(all.stdout, "domain_changes", "no part of the body")

    const onlyFailed = await runCli(["deliveries", "list", "--failed"], env)
    assert.deepStrictEqual(
      lines(onlyFailed.stdout)
        .map((r) => r[0])
        .sort(),
      [failed.delivery_id, orphaned.delivery_id].sort()
    )
    const ofRule = await runCli(["deliveries", "list", "--rule", healthy!.id], env)
    assert.deepStrictEqual(
      lines(ofRule.stdout).map((r) => r[0]),
      [delivered.delivery_id]
    )
    const none = await runCli(["deliveries", "list", "--failed", "--rule", healthy!.id], env)
    assert.strictEqual(none.code, 0)
    assert.strictEqual(none.stdout, "")
    assert.include(none.stderr, `no failed deliveries of rule ${healthy!.id}`)
    const badRule = await runCli(["deliveries", "list", "--rule", "not-a-rule"], env)
    assert.strictEqual(badRule.code, 1)
    assert.include(badRule.stderr, "--rule must be an alert rule id (a UUID)")

    // refire: the receiver has recovered; the failed delivery goes back to pending, same id
    down = false
    const refired = await runCli(["deliveries", "refire", failed.delivery_id], env)
    assert.strictEqual(refired.code, 0, refired.stderr)
    assert.include(refired.stdout, `delivery ${failed.delivery_id} re-fired (re-fire 1): pending`)
    state = await waitForOutbox(databaseUrl, (s) => deliveryOf(s, flaky!.id).status === "delivered", 30_000)
    const after = deliveryOf(state, flaky!.id)
    assert.strictEqual(after.delivery_id, failed.delivery_id)
    assert.strictEqual(after.cycle, 1)
    assert.deepStrictEqual(
      state.attempts.get(failed.delivery_id)!.map((a) => [a.cycle, a.attempt, a.outcome]),
      [...Array.from({ length: 6 }, (_, i) => [0, i, "http_error"]), [1, 0, "delivered"]]
    )
    const sent = receiver.byDelivery().get(failed.delivery_id)!
    assert.strictEqual(sent.length, 7, "six failed attempts, then the re-fire")
    assert.strictEqual(sent.at(-1)!.outcome, 200)
    assert.strictEqual(sent.at(-1)!.headers["webhook-id"], failed.delivery_id, "the same delivery_id")

    // a delivered delivery is not re-fired
    const again = await runCli(["deliveries", "refire", failed.delivery_id], env)
    assert.strictEqual(again.code, 1)
    assert.include(
      again.stderr,
      `delivery ${failed.delivery_id} is delivered: only a failed delivery can be re-fired`
    )
    const neverFailed = await runCli(["deliveries", "refire", delivered.delivery_id], env)
    assert.strictEqual(neverFailed.code, 1)
    assert.include(neverFailed.stderr, "is delivered")

    // unknown ids and malformed ids are "no delivery"
    const unknown = await runCli(["deliveries", "refire", "0b0e2f9e-7a43-4c8e-9f0a-3c2d1e0f9a8b"], env)
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, 'no delivery "0b0e2f9e-7a43-4c8e-9f0a-3c2d1e0f9a8b"')
    const malformed = await runCli(["deliveries", "refire", "not-an-id"], env)
    assert.strictEqual(malformed.code, 1)
    assert.include(malformed.stderr, 'no delivery "not-an-id"')

    // a failed delivery whose rule was deleted since could only fail again: refused
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    await client.query("DELETE FROM alert_rules WHERE id = $1", [orphan!.id])
    await client.end()
    const orphanRefire = await runCli(["deliveries", "refire", orphaned.delivery_id], env)
    assert.strictEqual(orphanRefire.code, 1)
    assert.include(
      orphanRefire.stderr,
      `the alert rule ${orphan!.id} of delivery ${orphaned.delivery_id} was deleted`
    )
    assert.strictEqual(
      deliveryOf(await readOutbox(databaseUrl), orphan!.id).status,
      "failed",
      "left as it was"
    )

    server.child.kill("SIGTERM")
    await ended(server.child)
  }, 300_000)
})
