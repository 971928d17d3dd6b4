/**
 * A JSON number beyond the range of a double in a request body (issue 13
 * point 5): `JSON.parse` reads `1e400` as Infinity, and before this was
 * handled `POST /alert-rules {"name":1e400}` (or `[1e400]` to the admin
 * ingest) answered an empty 500, anonymous callers included: the 422 echoed
 * Infinity as `input`, which cannot be encoded. Now such a number anywhere in
 * a body is a 422 of type `finite_number` that names where it is and echoes
 * the number as written (a string), whoever calls, and nothing is stored.
 */
import { assert, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { toValidationIssues } from "../src/server/ErrorMapping.ts"
import { type CallerName, CallerNames } from "./fixtures.ts"
import { onEachBackend, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const rule = '{"name":"r","channels":{"webhook_url":"http://127.0.0.1:9/hook"}'
const contact = '{"protocol_name":"Finite Probe","contact_email":"finite.probe@example.com"'
const report =
  '{"nonce":"finite-probe-1","protocol_name":"Lendwell","chain":null,"exploit_class":"REENTRANCY",' +
  '"victim_addresses":[],"source":{"handle":"blockaid"},"claimed_tier":"confirmed",' +
  '"first_seen_at":"2026-08-01T00:00:00+00:00"'

/** Bodies with a number beyond a double somewhere, and where it is. */
const cases = (valid: string) => [
  { body: "1e400", loc: ["body"], input: "1e400" },
  { body: "[1e400]", loc: ["body", 0], input: "1e400" },
  { body: '{"name":-1e400}', loc: ["body", "name"], input: "-1e400" },
  { body: '{"a":{"b":[0,[1E+999]]}}', loc: ["body", "a", "b", 1, 0], input: "1E+999" },
  { body: `[${"9".repeat(400)}]`, loc: ["body", 0], input: "9".repeat(400) },
  { body: `${valid},"loss_estimate_usd":1e400}`, loc: ["body", "loss_estimate_usd"], input: "1e400" },
  { body: `${valid},"slugs":[1e400]}`, loc: ["body", "slugs", 0], input: "1e400" }
]

/** Every documented route that takes a JSON body, from the served document. */
const bodyRoutes = Effect.gen(function* () {
  const doc = (yield* (yield* TestServer).get("/openapi.json")).json as Json
  const routes: Array<{ method: string; path: string }> = []
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const [method, op] of Object.entries(item as Json))
      if ((op as Json).requestBody !== undefined) routes.push({ method: method.toUpperCase(), path })
  return routes
})

onEachBackend((it) => {
  it.effect(
    "a number beyond a double (1e400, -1e400, nested, in arrays, as object values) in the body of any route that takes one is a 422 finite_number naming where it is, for every caller, never a 5xx",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const routes = yield* bodyRoutes
        assert.sameMembers(
          routes.map((r) => `${r.method} ${r.path}`),
          ["POST /api/v1/alert-rules", "POST /api/v1/admin/incidents", "POST /api/v1/contacts"],
          "the routes that take a body"
        )
        const callers: ReadonlyArray<CallerName> = CallerNames
        let sent = 0
        for (const route of routes)
          for (const c of cases(
            route.path.endsWith("incidents") ? report : route.path.endsWith("contacts") ? contact : rule
          ))
            for (const caller of callers) {
              const r = yield* server.request(route.path, {
                method: route.method as "POST",
                raw: c.body,
                caller
              })
              sent++
              const what = `${caller} ${route.method} ${route.path} ${c.body.slice(0, 60)}`
              assert.strictEqual(r.status, 422, `${what}: ${r.status} ${r.text}`)
              const detail = (r.json as Json).detail as Array<Json>
              assert.deepStrictEqual(detail, [
                {
                  type: "finite_number",
                  loc: c.loc,
                  msg: "Input should be a finite number: JSON numbers must be finite, within ±1.7976931348623157e308",
                  input: c.input
                }
              ])
            }
        assert.isAtLeast(sent, 3 * 7 * 5)
      })
  )

  it.effect("a refused body stores nothing: no alert rule, and the report's nonce is still unused", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const key = (yield* server.createKey("pro")).key
      const authorization = `Bearer ${key}`
      const refused = yield* server.request("/api/v1/alert-rules", {
        method: "POST",
        authorization,
        raw: `${rule},"slugs":[],"entity_types":[],"events":[],"min_grade_change":1e400}`
      })
      assert.strictEqual(refused.status, 422, refused.text)
      const listed = yield* server.get("/api/v1/alert-rules", { authorization })
      assert.deepStrictEqual((listed.json as Json).items, [], "no rule stored")

      const posted = yield* server.request("/api/v1/admin/incidents", {
        method: "POST",
        caller: "admin",
        raw: `${report},"loss_estimate_usd":-1e400}`
      })
      assert.strictEqual(posted.status, 422, posted.text)
      const clean = yield* server.request("/api/v1/admin/incidents", {
        method: "POST",
        caller: "admin",
        raw: `${report},"loss_estimate_usd":1}`
      })
      assert.strictEqual(clean.status, 200, clean.text)
      assert.strictEqual((clean.json as Json).outcome, "created", "the refused report stored nothing")
    })
  )

  it.effect(
    "a coverage request holding a number beyond a double stores nothing: the same request is then new (201)",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const refused = yield* server.request("/api/v1/contacts", {
          method: "POST",
          raw: `${contact},"message":1e400}`
        })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.deepStrictEqual(((refused.json as Json).detail as Array<Json>)[0]!.loc, ["body", "message"])
        const clean = yield* server.request("/api/v1/contacts", { method: "POST", raw: `${contact}}` })
        assert.strictEqual(clean.status, 201, `the refused request stored nothing: ${clean.text}`)
      })
  )

  it.effect(
    "the answer stays small whatever the body: at most 20 entries, a location cut to 32 steps, and a number nested too deep to recover echoed as null",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const many = yield* server.request("/api/v1/alert-rules", {
          method: "POST",
          caller: "pro",
          raw: `[${Array(50_000).fill("1e400").join(",")}]`
        })
        assert.strictEqual(many.status, 422, many.text.slice(0, 300))
        assert.lengthOf((many.json as Json).detail, 20)
        const depth = 200_000
        const deep = yield* server.request("/api/v1/admin/incidents", {
          method: "POST",
          caller: "admin",
          raw: `{"a":${"[".repeat(depth)}1e400${"]".repeat(depth)}}`
        })
        assert.strictEqual(deep.status, 422, deep.text.slice(0, 300))
        const [entry] = (deep.json as Json).detail as Array<Json>
        assert.strictEqual(entry!.type, "finite_number")
        assert.lengthOf(entry!.loc, 33)
        assert.deepStrictEqual(entry!.loc.slice(0, 3), ["body", "a", 0])
        assert.include(entry!.msg, `nested ${depth + 1} deep`)
        assert.isNull(entry!.input)
        assert.isBelow(deep.text.length, 1_000)
      })
  )
})

it("a 422 never echoes a non-finite number as input: a value holding one is echoed as null, so the answer encodes", () => {
  const result = Schema.decodeUnknownResult(
    Schema.Struct({ name: Schema.String, tags: Schema.Array(Schema.String) })
  )({ name: Number.POSITIVE_INFINITY, tags: [Number.NEGATIVE_INFINITY] }, { errors: "all" })
  assert.isTrue(result._tag === "Failure")
  if (result._tag !== "Failure") return
  const issues = toValidationIssues("body", result.failure.issue, {
    name: Number.POSITIVE_INFINITY,
    tags: [Number.NEGATIVE_INFINITY]
  })
  assert.deepStrictEqual(
    issues.map((i) => [i.loc, i.input]),
    [
      [["body", "name"], null],
      [["body", "tags", 0], null]
    ]
  )
})
