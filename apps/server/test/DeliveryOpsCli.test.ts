/**
 * `ratings deliveries rules|enable|refire-failed` as an operator runs them,
 * against a migrated database holding rules (one disabled after its endpoint
 * failed for days) and failed deliveries written straight to the outbox:
 * rules shows health without keys or URL paths; enable re-fires on request;
 * refire-failed is bounded per call and says whether more remain; bad input
 * exits 1 saying why.
 */
import { randomUUID } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runCli, runCliBothWays } from "./CliHarness.ts"
import { createRules, type WebhookWorld, webhookWorld } from "./WebhookHarness.ts"

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.split("\t"))

/** Writes `count` failed deliveries of a rule, their cycle begun `hoursAgo` hours ago; their ids. */
const failedDeliveries = async (client: pg.Client, ruleId: string, count: number, hoursAgo: number) => {
  const ids = Array.from({ length: count }, () => randomUUID())
  for (const id of ids)
    await client.query(
      `INSERT INTO webhook_deliveries
         (delivery_id, rule_id, event, body, status, cycle, attempts, first_attempt_at, last_error, created_at)
       VALUES ($1, $2, 'rating.changed', '{}', 'failed', 0, 6, $3::timestamptz, 'HTTP 500', $3::timestamptz)`,
      // Written in milliseconds, as the service writes every time (a guarded write compares them).
      [id, ruleId, new Date(Date.now() - hoursAgo * 3_600_000).toISOString()]
    )
  return ids
}

const statusOf = async (client: pg.Client, id: string) =>
  (await client.query("SELECT status, cycle FROM webhook_deliveries WHERE delivery_id = $1", [id])).rows[0]

describe("ratings deliveries rules, enable and refire-failed", () => {
  it("show endpoint health, enable a disabled endpoint re-firing what failed meanwhile, and re-fire in bounded batches", async () => {
    const { databaseUrl, env } = await world.setup()
    const [down, up, other] = await createRules(databaseUrl, world.serverKey, [
      { webhookUrl: "https://hooks.example.com/secret-path?token=abc", accountId: "acct-a" },
      { webhookUrl: "https://ok.example.com/hook", accountId: "acct-a" },
      { webhookUrl: "https://other.example.com/hook", accountId: "acct-b" }
    ])
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      await client.query(
        `UPDATE alert_rules SET failing_since = now() - interval '5 days', disabled_at = now() - interval '1 hour',
           disabled_reason = 'every delivery attempt failed for 5 days; enable the rule once the endpoint works'
         WHERE id = $1`,
        [down!.id]
      )
      const [old] = await failedDeliveries(client, down!.id, 1, 24 * 6)
      const recent = await failedDeliveries(client, down!.id, 2, 2)
      const ofUp = await failedDeliveries(client, up!.id, 3, 1)
      const ofOther = await failedDeliveries(client, other!.id, 1, 1)

      const listed = await runCliBothWays(["deliveries", "rules"], env)
      assert.strictEqual(listed.code, 0, listed.stderr)
      const rows = lines(listed.stdout)
      assert.deepStrictEqual(
        rows.map((r) => [r[0], r[1], r[2], r[3]]),
        [
          [down!.id, "acct-a", "https://hooks.example.com", "disabled"],
          [up!.id, "acct-a", "https://ok.example.com", "active"],
          [other!.id, "acct-b", "https://other.example.com", "active"]
        ]
      )
      assert.include(rows[0]![6], "failed for 5 days")
      assert.match(rows[0]![5]!, /^disabled at \d{4}-\d{2}-\d{2}T/)
      for (const secret of [down!.key, "secret-path", "token=abc", world.serverKey])
        assert.notInclude(listed.stdout + listed.stderr, secret)
      const onlyDisabled = await runCli(["deliveries", "rules", "--disabled"], env)
      assert.deepStrictEqual(
        lines(onlyDisabled.stdout).map((r) => r[0]),
        [down!.id]
      )

      const enabled = await runCli(["deliveries", "enable", down!.id, "--refire"], env)
      assert.strictEqual(enabled.code, 0, enabled.stderr)
      assert.include(enabled.stdout, `rule ${down!.id} enabled (it was disabled at `)
      assert.include(enabled.stdout, "re-fired 2 failed deliveries", enabled.stdout)
      for (const id of recent)
        assert.deepStrictEqual(await statusOf(client, id), { status: "pending", cycle: 1 })
      // Failed before the endpoint began failing: not re-fired by enable.
      assert.deepStrictEqual(await statusOf(client, old!), { status: "failed", cycle: 0 })
      assert.strictEqual(lines((await runCli(["deliveries", "rules", "--disabled"], env)).stdout).length, 0)

      const since = new Date(Date.now() - 3 * 3_600_000).toISOString()
      const first = await runCli(
        ["deliveries", "refire-failed", "--account", "acct-a", "--since", since, "--limit", "2"],
        env
      )
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(first.stdout, "re-fired 2 failed deliveries; more remain")
      const second = await runCli(["deliveries", "refire-failed", "--rule", up!.id, "--since", since], env)
      assert.include(second.stdout, "re-fired 1 failed delivery")
      for (const id of ofUp) assert.strictEqual((await statusOf(client, id)).status, "pending")
      assert.strictEqual((await statusOf(client, ofOther[0]!)).status, "failed")
      assert.strictEqual((await statusOf(client, old!)).status, "failed")

      const refusals: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["deliveries", "refire-failed", "--since", since], "give exactly one of --rule"],
        [
          ["deliveries", "refire-failed", "--rule", up!.id, "--account", "x", "--since", since],
          "give exactly one of --rule"
        ],
        [
          ["deliveries", "refire-failed", "--rule", "nope", "--since", since],
          "--rule must be an alert rule id"
        ],
        [
          ["deliveries", "refire-failed", "--rule", up!.id, "--since", "yesterday"],
          "--since must be an ISO 8601"
        ],
        [
          ["deliveries", "refire-failed", "--rule", up!.id, "--since", since, "--limit", "501"],
          "--limit must be 1 to 500"
        ],
        [["deliveries", "refire-failed", "--rule", randomUUID(), "--since", since], "no alert rule"],
        [["deliveries", "enable", randomUUID()], "no alert rule"],
        [["deliveries", "enable", "not-a-uuid"], "not an alert rule id"]
      ]
      for (const [args, says] of refusals) {
        const refused = await runCli(args, env)
        assert.strictEqual(refused.code, 1, args.join(" "))
        assert.include(refused.stderr, says, args.join(" "))
      }
    } finally {
      await client.end()
    }
  }, 120_000)
})
