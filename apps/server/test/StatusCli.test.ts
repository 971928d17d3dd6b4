/**
 * `ratings status` and `ratings publish --publish-entity` as an operator runs
 * them, against a real Postgres (issue 13 point 2): an entity moves through
 * its statuses from the command line, a rating published while it is hidden
 * sends nothing (and says so), the entity becoming readable sends one
 * rating.new, and the entity and its draft can be published in one step.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runCli, runCliBothWays } from "./CliHarness.ts"
import { createRules, readOutbox, type WebhookWorld, webhookWorld } from "./WebhookHarness.ts"

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

const statusOf = async (databaseUrl: string, slug: string): Promise<string> => {
  const c = new pg.Client({ connectionString: databaseUrl })
  await c.connect()
  try {
    return (await c.query("SELECT status FROM entities WHERE slug = $1", [slug])).rows[0].status
  } finally {
    await c.end()
  }
}

const events = async (databaseUrl: string) =>
  (await readOutbox(databaseUrl)).deliveries
    .map((d) => JSON.parse(d.body))
    .filter((b) => b.event !== "webhook.test")
    .map((b) => [b.event, b.data.entity_slug])

const ok = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const r = await runCli(args, env)
  assert.strictEqual(r.code, 0, r.stdout + r.stderr)
  return r.stdout
}

describe("ratings status and ratings publish --publish-entity (against Postgres)", () => {
  it("status moves an entity; a rating published while it is hidden sends nothing and says so; becoming readable sends one rating.new; the same status again changes nothing", async () => {
    const { databaseUrl, env } = await world.setup()
    await createRules(databaseUrl, world.serverKey, [{ webhookUrl: "https://hooks.example/all" }])
    assert.match(
      await ok(["status", "protocol", "lendwell", "approved"], env),
      /protocol lendwell: published -> approved; not readable by the public.*; 0 webhook deliveries queued/
    )
    assert.strictEqual(await statusOf(databaseUrl, "lendwell"), "approved")
    const published = await ok(["publish", "protocol", "lendwell", "--reasoning", "review"], env)
    assert.match(published, /published protocol lendwell v3: .*; 0 webhook deliveries queued/)
    assert.include(published, "is not published")
    assert.include(published, "ratings status protocol lendwell published")
    assert.deepStrictEqual(await events(databaseUrl), [])
    assert.match(
      await ok(["status", "protocol", "lendwell", "published"], env),
      /protocol lendwell: approved -> published; readable by the public; 1 webhook deliveries queued/
    )
    assert.deepStrictEqual(await events(databaseUrl), [["rating.new", "lendwell"]])
    assert.match(
      await ok(["status", "protocol", "lendwell", "published"], env),
      /protocol lendwell is already published; readable by the public; 0 webhook deliveries queued/
    )
    assert.deepStrictEqual(await events(databaseUrl), [["rating.new", "lendwell"]])
    // Bad input: a clear error, exit code not 0, nothing changed (the real binary, and in this process alike).
    const unknown = await runCliBothWays(["status", "protocol", "nobody", "published"], env)
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stderr, "status change refused: no protocol with slug nobody")
    const bogus = await runCliBothWays(["status", "protocol", "lendwell", "retired"], env)
    assert.notStrictEqual(bogus.code, 0)
    assert.match(bogus.stdout + bogus.stderr, /draft.*scoring.*approved.*published/s)
    assert.strictEqual(await statusOf(databaseUrl, "lendwell"), "published")
  }, 120_000)

  it("publish --publish-entity publishes the entity and its latest draft in one step and sends one rating.new", async () => {
    const { databaseUrl, env } = await world.setup()
    await createRules(databaseUrl, world.serverKey, [{ webhookUrl: "https://hooks.example/all" }])
    await ok(["status", "protocol", "lendwell", "scoring"], env)
    const out = await ok(
      ["publish", "protocol", "lendwell", "--reasoning", "first public rating", "--publish-entity"],
      env
    )
    assert.match(
      out,
      /published protocol lendwell v3: .*; protocol lendwell: scoring -> published; readable by the public; 1 webhook deliveries queued/
    )
    assert.strictEqual(await statusOf(databaseUrl, "lendwell"), "published")
    assert.deepStrictEqual(await events(databaseUrl), [["rating.new", "lendwell"]])
    const again = await runCli(
      ["publish", "protocol", "lendwell", "--reasoning", "again", "--publish-entity"],
      env
    )
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, "no draft scorecard")
    assert.deepStrictEqual(await events(databaseUrl), [["rating.new", "lendwell"]])
  }, 120_000)
})
