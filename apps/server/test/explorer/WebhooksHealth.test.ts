/**
 * Endpoint health on the explorer's Webhooks tab, over real HTTP on a real
 * server (the production layers over Postgres): a rule whose endpoint was
 * disabled shows it, with when and why, and an enable form; enabling it
 * (a plain form post) brings it back to active and re-fires what failed
 * meanwhile; another account can neither see nor enable it.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { observe } from "@ratings/domain/webhooks/EndpointHealth"
import { Effect, Exit, Scope } from "effect"
import { explorerRoutes } from "../../src/explorer/ExplorerRoutes.ts"
import { responseCache } from "../../src/Layers.ts"
import { importedDatabase, serverProcess } from "../ServerProcess.ts"

const RuleId = "5d1c7a2e-0b6f-4e8a-9c3d-2f1e0a9b8c7d"
const Reason = "every delivery attempt failed for 5 days; enable the rule once the endpoint works"

let scope: Scope.Closeable
let world: { readonly baseUrl: string; readonly owner: string; readonly other: string }

const setup = Effect.gen(function* () {
  const { url, a } = yield* importedDatabase
  const { baseUrl } = yield* serverProcess(url, responseCache(), { routes: explorerRoutes({}) })
  const issue = (account: string) =>
    Effect.gen(function* () {
      const { key, record } = issueApiKey({ name: "webhooks health", tier: "pro", account_id: account })
      yield* Effect.orDie(Effect.flatMap(ApiKeyRepository, (keys) => keys.create(record)))
      return key
    }).pipe(Effect.provideContext(a))
  const owner = yield* issue("acct-health-owner")
  const other = yield* issue("acct-health-other")
  yield* Effect.gen(function* () {
    const rules = yield* AlertRuleRepository
    yield* rules.create({
      id: RuleId,
      account_id: "acct-health-owner",
      name: "lending watch",
      entity_types: [],
      slugs: [],
      events: [],
      channels: { webhook_url: "https://hooks.example.com/ratings" },
      created_at: "2026-11-20T00:00:00.000000+00:00",
      signing_key: `whsec_${Buffer.alloc(32, 9).toString("base64")}`
    })
    const day = 86_400_000
    const start = Date.UTC(2026, 10, 21)
    yield* rules.recordHealth(observe([{ rule_id: RuleId, at: start, delivered: false }]), 5 * day, Reason)
    yield* rules.recordHealth(
      observe([{ rule_id: RuleId, at: start + 5 * day, delivered: false }]),
      5 * day,
      Reason
    )
  }).pipe(Effect.provideContext(a))
  return { baseUrl, owner, other }
})

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  world = await Effect.runPromise(Scope.provide(setup, scope))
}, 120_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)

const send = (path: string, key: string, post = false) =>
  fetch(`${world.baseUrl}${path}`, {
    method: post ? "POST" : "GET",
    headers: {
      cookie: `ratings_key=${key}`,
      ...(post ? { "content-type": "application/x-www-form-urlencoded", origin: world.baseUrl } : {})
    },
    redirect: "manual",
    ...(post ? { body: "" } : {})
  })

/** The row of the rule on the tab, as HTML text. */
const ruleRow = (html: string) => {
  const start = html.indexOf(`data-rule-id="${RuleId}"`)
  return start === -1 ? undefined : html.slice(start, html.indexOf("</tr>", start))
}

describe("the Webhooks tab shows a disabled endpoint and enables it", () => {
  it("disabled with when and why, an enable form; enabled by its owner only", async () => {
    const before = ruleRow(await (await send("/webhooks", world.owner)).text())
    assert.isDefined(before)
    assert.include(before, 'data-state="disabled"')
    assert.include(before, "status-disabled")
    assert.include(before, '<time datetime="2026-11-26T00:00:00+00:00">2026-11-26 00:00 UTC</time>')
    assert.include(before, "every delivery attempt failed for 5 days")
    assert.include(before, `action="/webhooks/rules/${RuleId}/enable"`)

    assert.isUndefined(ruleRow(await (await send("/webhooks", world.other)).text()))
    const refused = await send(`/webhooks/rules/${RuleId}/enable`, world.other, true)
    assert.strictEqual(refused.status, 404)
    assert.strictEqual((await send("/webhooks/rules/not-a-uuid/enable", world.owner, true)).status, 404)

    const enabled = await send(`/webhooks/rules/${RuleId}/enable`, world.owner, true)
    assert.strictEqual(enabled.status, 303)
    assert.strictEqual(enabled.headers.get("location"), `/webhooks?enabled=${RuleId}`)
    const page = await (await send(`/webhooks?enabled=${RuleId}`, world.owner)).text()
    assert.include(page, `Enabled rule ${RuleId}`)
    const after = ruleRow(page)
    assert.include(after, 'data-state="active"')
    assert.notInclude(after, "/enable")
  })
})
