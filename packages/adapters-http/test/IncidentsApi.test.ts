/**
 * The incident routes over the real server, on both backends: spec part 2
 * "Incident", part 3 "Incident tier", part 4 "Incidents", part 7 (min_status
 * 422) and part 8 (incidents limit), api-facts "Incidents" (a raw `+` in since
 * is a 422). Reports go in through the operators' ingest route with a real
 * admin JWT; the feed is read anonymously, as integrators do.
 *
 * The suite shares one server per backend, so every test names its own
 * protocol and finds its incidents by id or slug.
 */
import { assert, describe } from "@effect/vitest"
import type { IncidentReport } from "@ratings/domain/model/Incident"
import { Effect } from "effect"
import { type CallerName, slugOf } from "./fixtures.ts"
import { onEachBackend, type ServerIt, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const api = (path: string) => `/api/v1${path}`

const get = (path: string, caller?: CallerName) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(api(path), { caller })
  })

const post = (path: string, body: unknown, caller: CallerName = "admin", raw?: string) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).request(api(path), { method: "POST", caller, body, raw })
  })

let nonce = 0

/** A report about the named protocol's hack; each call has a fresh nonce. */
const report = (
  protocol: string,
  handle: string,
  overrides: Partial<IncidentReport> = {}
): IncidentReport => ({
  nonce: `it-nonce-${protocol}-${++nonce}-${Math.random().toString(36).slice(2)}`,
  protocol_name: protocol,
  chain: "ethereum",
  exploit_class: "REENTRANCY",
  loss_estimate_usd: 2_500_000,
  victim_addresses: [`0x${"ab".repeat(19)}${(nonce % 256).toString(16).padStart(2, "0")}`],
  source: { handle },
  claimed_tier: "rumored",
  first_seen_at: "2026-11-01T10:00:00Z",
  ...overrides
})

const ingest = (r: IncidentReport) =>
  Effect.map(post("/admin/incidents", r), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    return res.json as Json
  })

/** Every incident at or above a tier (two pages at most in these tests). */
const feedItems = (query = "min_status=rumored") =>
  Effect.map(get(`/incidents?${query}&limit=200`), (r) => {
    assert.strictEqual(r.status, 200, r.text)
    return (r.json as Json).items as ReadonlyArray<Json>
  })

const byId = (items: ReadonlyArray<Json>, id: string) => items.filter((i) => i.incident_id === id)

const sleepMs = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const incidentRoutes = (it: ServerIt) => {
  describe("spec part 3 Incident tier: served only with two independent sources, never down", () => {
    it.effect("an incident one source reports is not served at any tier", () =>
      Effect.gen(function* () {
        const first = yield* ingest(report("Lone Source Finance", "blockaid", { claimed_tier: "confirmed" }))
        assert.strictEqual(first.outcome, "created")
        assert.isNull(first.status)
        assert.isNull(first.served)
        assert.lengthOf(byId(yield* feedItems(), first.incident_id), 0)
        // The same reporter under another spelling is still one source.
        yield* ingest(report("Lone Source Finance", "@Blockaid ", { claimed_tier: "confirmed" }))
        assert.lengthOf(byId(yield* feedItems(), first.incident_id), 0)
      })
    )

    it.effect("two independent sources make it served at the tier both support", () =>
      Effect.gen(function* () {
        const a = yield* ingest(report("Twin Source Swap", "blockaid"))
        const b = yield* ingest(report("Twin Source Swap", "peckshield", { claimed_tier: "confirmed" }))
        assert.strictEqual(b.incident_id, a.incident_id, "reports about one hack aggregate into one incident")
        assert.strictEqual(b.status, "rumored")
        const [item] = byId(yield* feedItems(), a.incident_id)
        assert.isDefined(item)
        assert.strictEqual(item!.status, "rumored")
        assert.strictEqual(item!.source_count, 2)
        assert.sameMembers(
          item!.sources.map((s: Json) => s.handle),
          ["blockaid", "peckshield"]
        )
      })
    )

    it.effect(
      "escalation keeps incident_id and first_seen_at, refreshes detected_at, and the tier never goes down",
      () =>
        Effect.gen(function* () {
          const a = yield* ingest(report("Escalator Protocol", "blockaid"))
          const rumored = (yield* ingest(report("Escalator Protocol", "peckshield"))).served as Json
          assert.strictEqual(rumored.status, "rumored")
          yield* sleepMs(5)
          yield* ingest(report("Escalator Protocol", "blockaid", { claimed_tier: "corroborated" }))
          const corroborated = (yield* ingest(
            report("Escalator Protocol", "certik", { claimed_tier: "corroborated" })
          )).served as Json
          assert.strictEqual(corroborated.status, "corroborated")
          assert.strictEqual(corroborated.incident_id, a.incident_id)
          assert.strictEqual(corroborated.first_seen_at, rumored.first_seen_at)
          assert.isAbove(Date.parse(corroborated.detected_at), Date.parse(rumored.detected_at))
          // A later weaker claim does not lower the tier.
          const after = yield* ingest(report("Escalator Protocol", "zachxbt", { claimed_tier: "rumored" }))
          assert.strictEqual(after.status, "corroborated")
          assert.strictEqual(after.served.detected_at, corroborated.detected_at)
          const [item] = byId(yield* feedItems(), a.incident_id)
          assert.strictEqual(item!.status, "corroborated")
        })
    )

    it.effect(
      "a consumer polling with since and keying on incident_id sees each escalation exactly once",
      () =>
        Effect.gen(function* () {
          const seen: Array<string> = []
          let cursor = new Date(Date.now() - 1000).toISOString()
          const poll = Effect.gen(function* () {
            const items = yield* feedItems(`min_status=rumored&since=${encodeURIComponent(cursor)}`)
            for (const item of items.filter((i) => i.protocol_name === "Poller Lending")) {
              seen.push(`${item.incident_id}:${item.status}`)
            }
            // Instants, not strings: the cursor starts as `...Z`, the feed writes `...+00:00`.
            for (const item of items)
              if (Date.parse(item.detected_at) > Date.parse(cursor)) cursor = item.detected_at
          })
          yield* ingest(report("Poller Lending", "blockaid"))
          yield* poll
          yield* ingest(report("Poller Lending", "peckshield"))
          yield* poll
          yield* poll
          yield* sleepMs(5)
          yield* ingest(report("Poller Lending", "blockaid", { claimed_tier: "confirmed" }))
          yield* ingest(report("Poller Lending", "peckshield", { claimed_tier: "confirmed" }))
          yield* poll
          yield* poll
          assert.lengthOf(seen, 2, seen.join(", "))
          const [rumored, confirmed] = seen.map((s) => s.split(":"))
          assert.strictEqual(rumored![0], confirmed![0], "the same incident_id at successive tiers")
          assert.deepStrictEqual([rumored![1], confirmed![1]], ["rumored", "confirmed"])
        })
    )
  })

  describe("spec part 2 Incident: matching, nonce, stored-but-never-served fields", () => {
    it.effect("an incident at a rated protocol carries its slug and matched_protocol true", () =>
      Effect.gen(function* () {
        yield* ingest(report("Protocol Alpha", "blockaid", { exploit_class: "ORACLE_MANIPULATION" }))
        const served = (yield* ingest(
          report("protocol-alpha", "peckshield", { exploit_class: "ORACLE_MANIPULATION" })
        )).served as Json
        assert.strictEqual(served.slug, slugOf("protocol", "alpha"))
        assert.isTrue(served.matched_protocol)
        const bySlug = yield* get(`/incidents?slug=${slugOf("protocol", "alpha")}&min_status=rumored`)
        assert.include(
          (bySlug.json as Json).items.map((i: Json) => i.incident_id),
          served.incident_id
        )
      })
    )

    it.effect("incidents at unrated protocols are listed with slug null and matched_protocol false", () =>
      Effect.gen(function* () {
        yield* ingest(report("Unrated Vaults", "blockaid"))
        const served = (yield* ingest(report("Unrated Vaults", "peckshield"))).served as Json
        assert.isNull(served.slug)
        assert.isFalse(served.matched_protocol)
        assert.lengthOf(byId(yield* feedItems(), served.incident_id), 1)
      })
    )

    it.effect("a private or unpublished protocol never matches, so the feed cannot reveal it", () =>
      Effect.forEach(["private", "draft", "retired"] as const, (kind) =>
        Effect.gen(function* () {
          const name = `Protocol ${kind[0]!.toUpperCase()}${kind.slice(1)}`
          yield* ingest(report(name, "blockaid", { exploit_class: "ACCESS_CONTROL" }))
          const served = (yield* ingest(report(name, "peckshield", { exploit_class: "ACCESS_CONTROL" })))
            .served as Json
          assert.isNull(served.slug, kind)
          assert.isFalse(served.matched_protocol, kind)
          const bySlug = yield* get(`/incidents?slug=${slugOf("protocol", kind)}&min_status=rumored`)
          assert.deepStrictEqual(bySlug.json, { items: [], total: 0 }, kind)
        })
      )
    )

    it.effect("the same nonce twice changes nothing", () =>
      Effect.gen(function* () {
        yield* ingest(report("Nonce Replay DEX", "blockaid"))
        const second = report("Nonce Replay DEX", "peckshield")
        const served = (yield* ingest(second)).served as Json
        const again = yield* ingest({ ...second, claimed_tier: "confirmed" })
        assert.strictEqual(again.outcome, "duplicate")
        assert.strictEqual(again.status, "rumored")
        const [item] = byId(yield* feedItems(), served.incident_id)
        assert.deepStrictEqual(item, served)
      })
    )

    it.effect(
      "nonces and victim addresses are stored but never served, by the feed or the ingest answer",
      () =>
        Effect.gen(function* () {
          const a = report("Secretive Bridge", "blockaid")
          const b = report("Secretive Bridge", "peckshield")
          const answers = [yield* post("/admin/incidents", a), yield* post("/admin/incidents", b)]
          const feed = yield* get("/incidents?min_status=rumored&limit=200")
          for (const text of [...answers.map((r) => r.text), feed.text]) {
            for (const secret of [a.nonce, b.nonce, ...a.victim_addresses, ...b.victim_addresses]) {
              assert.notInclude(text, secret)
            }
            assert.notInclude(text, "victim")
            assert.notInclude(text, "nonce")
          }
        })
    )

    it.effect(
      "an incident never changes a rating: the protocol's scorecards are the same before and after",
      () =>
        Effect.gen(function* () {
          const path = `/protocols/${slugOf("protocol", "alpha")}/scorecards`
          const before = yield* get(path, "enterprise")
          const detailBefore = yield* get(`/protocols/${slugOf("protocol", "alpha")}`)
          yield* ingest(
            report("Protocol Alpha", "blockaid", { claimed_tier: "confirmed", exploit_class: "RUG_PULL" })
          )
          yield* ingest(
            report("Protocol Alpha", "certik", { claimed_tier: "confirmed", exploit_class: "RUG_PULL" })
          )
          const after = yield* get(path, "enterprise")
          assert.deepStrictEqual(after.json, before.json)
          assert.deepStrictEqual(
            (yield* get(`/protocols/${slugOf("protocol", "alpha")}`)).json,
            detailBefore.json
          )
        })
    )
  })

  describe("spec part 4 Incidents: GET /incidents parameters", () => {
    it.effect("newest first by detected_at, as {items, total}; limit and offset page it", () =>
      Effect.gen(function* () {
        for (const name of ["Order One", "Order Two", "Order Three"]) {
          yield* ingest(report(name, "blockaid", { exploit_class: "FLASH_LOAN" }))
          yield* ingest(report(name, "peckshield", { exploit_class: "FLASH_LOAN" }))
          yield* sleepMs(3)
        }
        const all = yield* get("/incidents?min_status=rumored&limit=200")
        const body = all.json as Json
        assert.strictEqual(body.total, body.items.length)
        const times = body.items.map((i: Json) => Date.parse(i.detected_at))
        assert.deepStrictEqual(
          times,
          [...times].sort((x: number, y: number) => y - x)
        )
        const names = body.items.map((i: Json) => i.protocol_name)
        assert.isBelow(names.indexOf("Order Three"), names.indexOf("Order One"))
        const page = (yield* get("/incidents?min_status=rumored&limit=1&offset=1")).json as Json
        assert.lengthOf(page.items, 1)
        assert.strictEqual(page.total, body.total)
        assert.deepStrictEqual(page.items[0], body.items[1])
      })
    )

    it.effect("min_status defaults to confirmed and lists every incident at or above the tier", () =>
      Effect.gen(function* () {
        yield* ingest(report("Tier Filter Co", "blockaid", { claimed_tier: "corroborated" }))
        const served = (yield* ingest(
          report("Tier Filter Co", "peckshield", { claimed_tier: "corroborated" })
        )).served as Json
        assert.strictEqual(served.status, "corroborated")
        const statuses = (q: string) => Effect.map(feedItems(q), (items) => items.map((i) => i.status))
        const byDefault = (yield* get("/incidents?limit=200")).json as Json
        assert.isTrue(byDefault.items.every((i: Json) => i.status === "confirmed"))
        assert.lengthOf(byId(byDefault.items, served.incident_id), 0)
        assert.isTrue((yield* statuses("min_status=corroborated")).every((s) => s !== "rumored"))
        assert.lengthOf(byId(yield* feedItems("min_status=corroborated"), served.incident_id), 1)
        assert.lengthOf(byId(yield* feedItems("min_status=rumored"), served.incident_id), 1)
      })
    )

    it.effect("slug is an exact match", () =>
      Effect.gen(function* () {
        const alpha = slugOf("protocol", "alpha")
        const partial = (yield* get(`/incidents?slug=${alpha.slice(0, -1)}&min_status=rumored`)).json as Json
        assert.deepStrictEqual(partial, { items: [], total: 0 })
        const upper = (yield* get(`/incidents?slug=${alpha.toUpperCase()}&min_status=rumored`)).json as Json
        assert.deepStrictEqual(upper, { items: [], total: 0 })
      })
    )

    it.effect("since with a percent-encoded +00:00 offset filters to incidents detected after it", () =>
      Effect.gen(function* () {
        const future = (yield* get("/incidents?min_status=rumored&since=2999-01-01T00:00:00%2B00%3A00"))
          .json as Json
        assert.deepStrictEqual(future, { items: [], total: 0 })
        const past = yield* get("/incidents?min_status=rumored&since=2000-01-01T00:00:00%2B00%3A00")
        assert.strictEqual(past.status, 200)
        assert.isAbove((past.json as Json).total, 0)
        const zulu = yield* get("/incidents?min_status=rumored&since=2000-01-01T00:00:00Z")
        assert.deepStrictEqual(zulu.json, past.json)
      })
    )

    it.effect("a raw + in since (it arrives as a space) is a 422 that says to percent-encode it", () =>
      Effect.gen(function* () {
        const r = yield* get("/incidents?since=2026-11-01T00:00:00+00:00")
        assert.strictEqual(r.status, 422)
        const [entry] = (r.json as Json).detail
        assert.deepStrictEqual(entry.loc, ["query", "since"])
        assert.strictEqual(entry.input, "2026-11-01T00:00:00 00:00")
        assert.include(entry.msg, "%2B")
      })
    )

    it.effect("an unparseable since is a 422 naming the parameter", () =>
      Effect.forEach(
        ["yesterday", "2026-11-01", "2026-11-01T00:00:00", "2026-02-30T00:00:00Z", ""],
        (since) =>
          Effect.gen(function* () {
            const r = yield* get(`/incidents?since=${encodeURIComponent(since)}`)
            assert.strictEqual(r.status, 422, since)
            assert.deepStrictEqual((r.json as Json).detail[0].loc, ["query", "since"], since)
          })
      )
    )

    it.effect("spec part 7: min_status other than rumored, corroborated or confirmed is a 422", () =>
      Effect.forEach(["resolved", "CONFIRMED", "", "confirmed "], (value) =>
        Effect.gen(function* () {
          const r = yield* get(`/incidents?min_status=${encodeURIComponent(value)}`)
          assert.strictEqual(r.status, 422, JSON.stringify(value))
          const [entry] = (r.json as Json).detail
          assert.deepStrictEqual(entry.loc, ["query", "min_status"])
          assert.include(entry.msg, "'rumored', 'corroborated', 'confirmed'")
        })
      )
    )

    it.effect("spec part 8: limit defaults to 50, 1 to 200; offset at least 0; others are 422", () =>
      Effect.gen(function* () {
        for (const q of ["limit=0", "limit=201", "limit=abc", "offset=-1", "offset=1.5"]) {
          const r = yield* get(`/incidents?${q}`)
          assert.strictEqual(r.status, 422, q)
          assert.strictEqual((r.json as Json).detail[0].loc[0], "query", q)
        }
        for (const q of ["limit=1", "limit=200", "offset=0"]) {
          assert.strictEqual((yield* get(`/incidents?${q}`)).status, 200, q)
        }
      })
    )

    it.effect("the feed is public: anonymous, every key tier and admins get the same items", () =>
      Effect.gen(function* () {
        const anonymous = yield* get("/incidents?min_status=rumored&limit=200")
        assert.strictEqual(anonymous.headers.get("access-control-allow-origin"), "*")
        for (const caller of ["free", "pro", "enterprise", "admin"] as const) {
          const r = yield* get("/incidents?min_status=rumored&limit=200", caller)
          assert.deepStrictEqual(r.json, anonymous.json, caller)
        }
      })
    )
  })

  describe("operators' ingest route", () => {
    it.effect("needs an admin JWT: 401 without credentials, 403 with an API key of any tier", () =>
      Effect.gen(function* () {
        const r = report("Gatekeeper Finance", "blockaid")
        const anonymous = yield* post("/admin/incidents", r, "anonymous")
        assert.strictEqual(anonymous.status, 401)
        assert.deepStrictEqual(anonymous.json, { detail: { error: "admin_required" } })
        for (const tier of ["free", "pro", "enterprise"] as const) {
          const keyed = yield* post("/admin/incidents", r, tier)
          assert.strictEqual(keyed.status, 403, tier)
          assert.deepStrictEqual(keyed.json, { detail: { error: "admin_required" } })
        }
        // None of those calls stored anything: the report's first admin ingest creates the incident.
        assert.strictEqual((yield* ingest(r)).outcome, "created")
      })
    )

    it.effect("a report that fails validation is a 422 naming the field, and nothing is stored", () =>
      Effect.gen(function* () {
        const good = report("Validation Ville", "blockaid")
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ ...good, exploit_class: "reentrancy" }, "exploit_class"],
          [{ ...good, claimed_tier: "certain" }, "claimed_tier"],
          [{ ...good, first_seen_at: "2026-11-01 10:00" }, "first_seen_at"],
          [{ ...good, loss_estimate_usd: -5 }, "loss_estimate_usd"],
          [{ ...good, nonce: "" }, "nonce"],
          [(({ nonce: _, ...rest }) => rest)(good), "nonce"]
        ]
        for (const [body, field] of cases) {
          const r = yield* post("/admin/incidents", body)
          assert.strictEqual(r.status, 422, field)
          const locs = (r.json as Json).detail.map((d: Json) => d.loc)
          assert.deepInclude(locs, ["body", field], `${field}: ${r.text}`)
        }
        assert.strictEqual((yield* ingest(good)).outcome, "created")
      })
    )

    it.effect("a body that is not JSON is a 4xx with a body that says why, never a 500", () =>
      Effect.gen(function* () {
        const r = yield* post("/admin/incidents", undefined, "admin", "{not json")
        assert.isAtLeast(r.status, 400)
        assert.isBelow(r.status, 500)
        assert.isDefined((r.json as Json | undefined)?.detail, r.text)
      })
    )
  })
}

onEachBackend((it) => incidentRoutes(it))
