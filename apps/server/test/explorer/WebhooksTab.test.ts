/**
 * The explorer's Webhooks tab over real HTTP on a real server (the production
 * layers over Postgres, ServerProcess.ts), driven as a browser with
 * JavaScript off drives it: plain form posts with the sign-in cookie. A Pro
 * key holder creates, lists and deletes a rule, sees its signing key once;
 * another account sees and touches none of it; Free and anonymous visitors
 * are refused; a post from another origin is refused; bad input comes back
 * as the form with what was wrong.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect, Exit, Scope } from "effect"
import { explorerRoutes } from "../../src/explorer/ExplorerRoutes.ts"
import { responseCache } from "../../src/Layers.ts"
import { importedDatabase, serverProcess } from "../ServerProcess.ts"

interface World {
  readonly baseUrl: string
  /** A key of each tier; `pro2` is a second Pro account. */
  readonly keys: {
    readonly pro: string
    readonly pro2: string
    readonly free: string
    readonly enterprise: string
  }
}

let scope: Scope.Closeable
let world: World

const setup = Effect.gen(function* () {
  const { url, a } = yield* importedDatabase
  const { baseUrl } = yield* serverProcess(url, responseCache(), { routes: explorerRoutes({}) })
  const issue = (tier: KeyTier) =>
    Effect.gen(function* () {
      const { key, record } = issueApiKey({ name: `webhooks tab ${tier}`, tier })
      yield* Effect.orDie(Effect.flatMap(ApiKeyRepository, (keys) => keys.create(record)))
      return key
    }).pipe(Effect.provideContext(a))
  return {
    baseUrl,
    keys: {
      pro: yield* issue("pro"),
      pro2: yield* issue("pro"),
      free: yield* issue("free"),
      enterprise: yield* issue("enterprise")
    }
  }
})

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  world = await Effect.runPromise(Scope.provide(setup, scope))
}, 120_000)

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 60_000)

/** A request as the tab's own pages make it: the sign-in cookie (when a key is given) and this origin. */
const send = (
  path: string,
  init: { readonly key?: string; readonly form?: URLSearchParams; readonly origin?: string | null } = {}
) => {
  const headers: Record<string, string> = {}
  if (init.key !== undefined) headers.cookie = `ratings_key=${init.key}`
  if (init.form !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded"
    if (init.origin !== null) headers.origin = init.origin ?? world.baseUrl
  }
  return fetch(`${world.baseUrl}${path}`, {
    method: init.form === undefined ? "GET" : "POST",
    headers,
    redirect: "manual",
    ...(init.form === undefined ? {} : { body: init.form.toString() })
  })
}

const ruleForm = (fields: Record<string, string | ReadonlyArray<string>>) => {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields))
    for (const v of typeof value === "string" ? [value] : value) form.append(name, v)
  return form
}

/** The account's rules as the API lists them to the same key. */
const apiRules = async (key: string) => {
  const response = await fetch(`${world.baseUrl}/api/v1/alert-rules`, {
    headers: { authorization: `Bearer ${key}` }
  })
  assert.strictEqual(response.status, 200)
  return ((await response.json()) as { items: Array<{ id: string; channels: { webhook_url: string } }> })
    .items
}

const signingKeyIn = (html: string) => /id="signing-key">(whsec_[^<]+)</.exec(html)?.[1]

const created = async (key: string, url: string) => {
  const response = await send("/webhooks/rules", {
    key,
    form: ruleForm({ webhook_url: url, name: "Treasury desk", events: ["rating.changed"], slugs: "lendwell" })
  })
  const html = await response.text()
  assert.strictEqual(response.status, 201, html)
  const rule = (await apiRules(key)).find((r) => r.channels.webhook_url === url)
  assert.isDefined(rule, "the rule is the API's")
  return { html, id: rule!.id }
}

describe("the Webhooks tab", () => {
  it("a Pro key holder creates a rule through the form, sees its signing key once, lists it and deletes it", async () => {
    const url = "https://hooks.example.com/ratings/pro"
    const { html, id } = await created(world.keys.pro, url)
    const signingKey = signingKeyIn(html)
    assert.match(
      signingKey ?? "",
      /^whsec_[A-Za-z0-9+/=]{40,}$/,
      "the key is shown in the answer to the create"
    )
    assert.include(html, "This is the only time the key is shown")

    const tab = await send("/webhooks", { key: world.keys.pro })
    const page = await tab.text()
    assert.strictEqual(tab.status, 200)
    assert.include(page, url)
    assert.include(page, "Treasury desk")
    assert.include(page, `data-rule-id="${id}"`)
    assert.notInclude(page, signingKey!, "the key is never shown again")
    assert.notInclude(page, "whsec_")
    assert.notInclude(page, 'id="signing-key"')

    // Its delivery log: the webhook.test event saving it queued.
    const log = await send(`/webhooks?log=${id}`, { key: world.keys.pro })
    const logPage = await log.text()
    assert.strictEqual(log.status, 200)
    assert.include(logPage, "webhook.test")
    assert.notInclude(logPage, "whsec_")

    const deleted = await send(`/webhooks/rules/${id}/delete`, {
      key: world.keys.pro,
      form: new URLSearchParams()
    })
    assert.strictEqual(deleted.status, 303)
    const location = deleted.headers.get("location")!
    assert.strictEqual(location, `/webhooks?deleted=${id}`)
    const after = await (await send(location, { key: world.keys.pro })).text()
    assert.include(after, `Deleted rule ${id}`)
    assert.notInclude(after, url)
    assert.deepStrictEqual(
      (await apiRules(world.keys.pro)).filter((r) => r.id === id),
      [],
      "deleted for the API too"
    )
  })

  it("the create's answer and the tab are never stored by a cache, and the key never appears in a URL", async () => {
    const response = await send("/webhooks/rules", {
      key: world.keys.enterprise,
      form: ruleForm({ webhook_url: "https://hooks.example.com/ratings/enterprise" })
    })
    assert.strictEqual(response.status, 201, "Enterprise may use the tab too")
    assert.strictEqual(response.headers.get("cache-control"), "no-store")
    assert.isNull(response.headers.get("location"))
    const html = await response.text()
    const key = signingKeyIn(html)!
    for (const href of html.matchAll(/(?:href|action)="([^"]*)"/g)) assert.notInclude(href[1]!, key)
    const tab = await send("/webhooks", { key: world.keys.enterprise })
    assert.strictEqual(tab.headers.get("cache-control"), "no-store")
  })

  it("another account neither sees nor deletes nor reads the log of someone's rule", async () => {
    const url = "https://hooks.example.com/ratings/owned"
    const { id } = await created(world.keys.pro, url)
    const other = await (await send("/webhooks", { key: world.keys.pro2 })).text()
    assert.notInclude(other, url)
    assert.notInclude(other, id)

    const deleted = await send(`/webhooks/rules/${id}/delete`, {
      key: world.keys.pro2,
      form: new URLSearchParams()
    })
    assert.strictEqual(deleted.status, 404)
    assert.include(await deleted.text(), "No such alert rule in this account")
    assert.isDefined(
      (await apiRules(world.keys.pro)).find((r) => r.id === id),
      "the owner's rule is still there"
    )

    const log = await send(`/webhooks?log=${id}`, { key: world.keys.pro2 })
    assert.strictEqual(log.status, 404)
    const logPage = await log.text()
    assert.notInclude(logPage, url)
    assert.notInclude(logPage, 'id="log"', "no delivery log is shown")
    assert.notInclude(logPage, "data-delivery-id")

    // Its test delivery cannot be re-fired by the other account: not found, as on the API.
    const owned = await send(`/webhooks?log=${id}`, { key: world.keys.pro })
    const deliveryId = /data-delivery-id="([0-9a-f-]{36})"/.exec(await owned.text())![1]!
    const refire = await send(`/webhooks/deliveries/${deliveryId}/refire`, {
      key: world.keys.pro2,
      form: new URLSearchParams()
    })
    assert.strictEqual(refire.status, 404)
    // The owner's pending delivery is not failed: a 409 that says so.
    const own = await send(`/webhooks/deliveries/${deliveryId}/refire`, {
      key: world.keys.pro,
      form: new URLSearchParams()
    })
    assert.strictEqual(own.status, 409)
    assert.include(await own.text(), "only a failed delivery can be re-fired")
  })

  it("anonymous visitors are asked to sign in (401) and Free keys are refused (403), for the tab and its forms", async () => {
    const anonymous = await send("/webhooks")
    assert.strictEqual(anonymous.status, 401)
    const anonymousPage = await anonymous.text()
    assert.include(anonymousPage, "Sign in with a Pro or Enterprise key")
    assert.notInclude(anonymousPage, 'id="rule-form"')

    const free = await send("/webhooks", { key: world.keys.free })
    assert.strictEqual(free.status, 403)
    assert.include(await free.text(), "Sign in with a Pro or Enterprise key")

    const url = "https://hooks.example.com/ratings/free"
    for (const key of [world.keys.free, undefined]) {
      const response = await send("/webhooks/rules", {
        ...(key === undefined ? {} : { key }),
        form: ruleForm({ webhook_url: url })
      })
      assert.strictEqual(response.status, key === undefined ? 401 : 403)
      assert.notInclude(await response.text(), "whsec_")
    }
    const refire = await send(`/webhooks/deliveries/${crypto.randomUUID()}/refire`, {
      form: new URLSearchParams()
    })
    assert.strictEqual(refire.status, 401)
  })

  it("a form posted from another origin, or with no origin at all, is refused with 403 and changes nothing", async () => {
    const url = "https://hooks.example.com/ratings/cross-site"
    for (const origin of ["https://evil.example", null]) {
      const response = await send("/webhooks/rules", {
        key: world.keys.pro,
        form: ruleForm({ webhook_url: url }),
        origin
      })
      assert.strictEqual(response.status, 403, `origin ${origin}`)
      assert.notInclude(await response.text(), "whsec_")
    }
    assert.isUndefined((await apiRules(world.keys.pro)).find((r) => r.channels.webhook_url === url))
    const { id } = await created(world.keys.pro, "https://hooks.example.com/ratings/kept")
    const deleted = await send(`/webhooks/rules/${id}/delete`, {
      key: world.keys.pro,
      form: new URLSearchParams(),
      origin: "https://evil.example"
    })
    assert.strictEqual(deleted.status, 403)
    assert.isDefined((await apiRules(world.keys.pro)).find((r) => r.id === id))
  })

  it("bad form input comes back as the form with what was wrong (400), never a 500", async () => {
    const cases: ReadonlyArray<readonly [Record<string, string | ReadonlyArray<string>>, string]> = [
      [{ webhook_url: "" }, "A webhook URL is required"],
      [{ webhook_url: "not a url" }, "an absolute http or https URL"],
      [{ webhook_url: "https://[zz::1]/hook" }, "is not an IPv6 address"],
      [{ webhook_url: "https://10.1.2.3/hook" }, "webhook_url refused target"],
      [
        { webhook_url: "https://hooks.example.com/x", slugs: "lendwell, Not_A_Slug" },
        "&quot;Not_A_Slug&quot;"
      ],
      [
        { webhook_url: "https://hooks.example.com/x", events: ["rating.exploded"] },
        "rating.grade_transition"
      ],
      [{ webhook_url: "https://hooks.example.com/x", entity_types: ["planet"] }, "&quot;planet&quot;"],
      [{ webhook_url: "https://hooks.example.com/x", name: "n".repeat(201) }, "at most 200"]
    ]
    for (const [fields, message] of cases) {
      const response = await send("/webhooks/rules", { key: world.keys.pro2, form: ruleForm(fields) })
      const html = await response.text()
      assert.strictEqual(response.status, 400, JSON.stringify(fields))
      assert.include(html, message, JSON.stringify(fields))
      assert.include(html, 'id="rule-form"', "the form is drawn again")
      assert.include(html, 'aria-invalid="true"')
      if (typeof fields.webhook_url === "string" && fields.webhook_url !== "")
        assert.include(html, `value="${fields.webhook_url.replaceAll("&", "&amp;")}"`, "with what was sent")
    }
    const json = await fetch(`${world.baseUrl}/webhooks/rules`, {
      method: "POST",
      headers: {
        cookie: `ratings_key=${world.keys.pro2}`,
        origin: world.baseUrl,
        "content-type": "application/json"
      },
      body: '{"channels": 1'
    })
    assert.strictEqual(json.status, 400)
    assert.include(await json.text(), "A webhook URL is required")
    const huge = await send("/webhooks/rules", {
      key: world.keys.pro2,
      form: ruleForm({ webhook_url: "https://hooks.example.com/x", name: "n".repeat(4 * 2 ** 20) })
    })
    assert.strictEqual(huge.status, 413, "a body past the server's limit is refused before it is read")
    const badLog = await send("/webhooks?log=not-a-rule", { key: world.keys.pro2 })
    assert.strictEqual(badLog.status, 400)
    const badId = await send("/webhooks/rules/not-a-uuid/delete", {
      key: world.keys.pro2,
      form: new URLSearchParams()
    })
    assert.strictEqual(badId.status, 404)
    assert.deepStrictEqual(await apiRules(world.keys.pro2), [], "nothing was created")
  })

  it("/dashboard, where the watchlist was, answers 308 to /webhooks", async () => {
    const response = await send("/dashboard")
    assert.strictEqual(response.status, 308)
    assert.strictEqual(response.headers.get("location"), "/webhooks")
  })
})
