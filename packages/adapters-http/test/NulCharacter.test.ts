/**
 * A NUL character (U+0000) in what a caller sends (found by the fuzzer with
 * another seed): Postgres text cannot hold one, so before this was handled a
 * NUL in a slug or a search reached the database and came back as a 503. Spec
 * part 7: bad input gets a clear error, never a 5xx. Both backends answer the
 * same: a key with a NUL names nothing (404), a filter with one is a 422 that
 * names the parameter, a body with one is a 422 that names the field.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { slugOf } from "./fixtures.ts"
import { onEachBackend, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const Nul = "%00"

/** Every documented GET operation with its path and query parameters, from the served document. */
const getOperations = Effect.gen(function* () {
  const doc = (yield* (yield* TestServer).get("/openapi.json")).json as Json
  const ops: Array<{ path: string; pathParams: Array<string>; queryParams: Array<string> }> = []
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    const op = (item as Json).get
    if (op === undefined) continue
    const params = (op.parameters ?? []) as Array<Json>
    ops.push({
      path,
      pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
      queryParams: params.filter((p) => p.in === "query").map((p) => p.name)
    })
  }
  return ops
})

onEachBackend((it) => {
  it.effect(
    "a NUL character in any path or query parameter of any GET route is a 4xx that says why, never a 5xx",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const ops = yield* getOperations
        assert.isAtLeast(ops.length, 50, "the document lists the routes")
        let sent = 0
        for (const op of ops) {
          const filled = op.path.replace(/\{[^}]+\}/gu, slugOf("protocol", "alpha"))
          const targets = [
            ...op.pathParams.map((name) =>
              op.path.replace(`{${name}}`, `x${Nul}y`).replace(/\{[^}]+\}/gu, "alpha")
            ),
            ...op.queryParams.map((name) => `${filled}?${name}=a${Nul}`)
          ]
          for (const target of targets) {
            for (const caller of ["anonymous", "enterprise", "admin"] as const) {
              const r = yield* server.get(target, { caller })
              sent++
              assert.isBelow(r.status, 500, `${caller} GET ${target} answered ${r.status} ${r.text}`)
              if (r.status >= 400) {
                assert.isDefined(
                  (r.json as Json | undefined)?.detail,
                  `${caller} GET ${target}: a JSON detail`
                )
              }
            }
          }
        }
        assert.isAtLeast(sent, 300)
      })
  )

  it.effect("a NUL character in an id or slug of a path is a 422 naming the path parameter", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      for (const [target, name] of [
        [`/api/v1/protocols/${Nul}`, "identifier"],
        [`/api/v1/bridges/${Nul}/scorecards`, "id_or_slug"],
        [`/api/v1/protocols/${slugOf("protocol", "alpha")}${Nul}/domains`, "slug"]
      ] as const) {
        const r = yield* server.get(target, { caller: "enterprise" })
        assert.strictEqual(r.status, 422, `${target}: ${r.text}`)
        assert.deepStrictEqual((r.json as Json).detail[0].loc, ["path", name], target)
      }
    })
  )

  it.effect(
    "quantum readiness of a chain slug with a NUL character is 200 and unavailable, like any unknown chain",
    () =>
      Effect.gen(function* () {
        const r = yield* (yield* TestServer).get(`/api/v1/chains/x${Nul}/quantum-readiness`)
        assert.strictEqual(r.status, 200, r.text)
        assert.isFalse((r.json as Json).available)
      })
  )

  it.effect(
    "a NUL character in a text filter (status, search, category, chain, incidents slug, compare ids) is a 422 naming it",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (const [target, name] of [
          [`/api/v1/bridges?search=a${Nul}`, "search"],
          [`/api/v1/tokens?status=a${Nul}`, "status"],
          [`/api/v1/chains?category=defi&category=a${Nul}`, "category"],
          [`/api/v1/protocols?chain=a${Nul}`, "chain"],
          [`/api/v1/incidents?slug=a${Nul}`, "slug"],
          [`/api/v1/compare?entity=protocol&ids=a${Nul}&fields=grade`, "ids"]
        ] as const) {
          const r = yield* server.get(target, { caller: "enterprise" })
          assert.strictEqual(r.status, 422, `${target}: ${r.text}`)
          const detail = (r.json as Json).detail[0]
          assert.strictEqual(detail.loc[0], "query", target)
          assert.strictEqual(detail.loc[1], name, target)
          assert.strictEqual(detail.type, "string_nul_character", target)
          assert.include(detail.msg, "NUL character", target)
        }
      })
  )

  it.effect(
    "a NUL character in a JSON body (alert rule, incident report) is a 422 naming the field, and nothing is stored",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const key = (yield* server.createKey("pro")).key
        for (const [rule, field] of [
          [{ name: "watch\u0000", channels: { webhook_url: "http://127.0.0.1:9/hook" } }, "name"],
          [{ channels: { webhook_url: "http://127.0.0.1:9/ho\u0000ok" } }, "webhook_url"]
        ] as const) {
          const r = yield* server.request("/api/v1/alert-rules", {
            method: "POST",
            authorization: `Bearer ${key}`,
            body: rule
          })
          assert.strictEqual(r.status, 422, r.text)
          assert.include(JSON.stringify((r.json as Json).detail[0].loc), field)
          assert.include((r.json as Json).detail[0].msg, "NUL character")
        }
        const listed = yield* server.get("/api/v1/alert-rules", { authorization: `Bearer ${key}` })
        assert.deepStrictEqual((listed.json as Json).items, [], "no rule stored")

        const report = {
          nonce: "nul-probe-1",
          protocol_name: "Lend\u0000well",
          chain: null,
          exploit_class: "REENTRANCY",
          loss_estimate_usd: 1,
          victim_addresses: [],
          source: { handle: "blockaid" },
          claimed_tier: "confirmed",
          first_seen_at: "2026-08-01T00:00:00+00:00"
        }
        const posted = yield* server.request("/api/v1/admin/incidents", {
          method: "POST",
          caller: "admin",
          body: report
        })
        assert.strictEqual(posted.status, 422, posted.text)
        assert.include(JSON.stringify((posted.json as Json).detail), "protocol_name")
        // Had the refused report been stored, its nonce would make this one a duplicate.
        const clean = yield* server.request("/api/v1/admin/incidents", {
          method: "POST",
          caller: "admin",
          body: { ...report, protocol_name: "Lendwell" }
        })
        assert.strictEqual(clean.status, 200, clean.text)
        assert.strictEqual((clean.json as Json).outcome, "created", "the refused report stored nothing")
      })
  )
})
