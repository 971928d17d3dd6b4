/**
 * api-facts: the live service writes its timestamps as Python's
 * `datetime.isoformat()` of a UTC datetime (`"last_rated_at":
 * "2026-08-01T00:00:00+00:00"`), and existing clients parse that form (Python's
 * `datetime.fromisoformat` before 3.11 refuses a trailing `Z`). This suite walks
 * the JSON of a sample of every kind of route, the CSV export and a webhook
 * payload, on the POSTGRES backend (what production runs), and checks that every
 * timestamp in them has that one form:
 *
 *   YYYY-MM-DDTHH:MM:SS+00:00, or YYYY-MM-DDTHH:MM:SS.ffffff+00:00
 *
 * The data goes in spelt otherwise: the seed's date-times are re-spelt with a
 * +05:30 offset and milliseconds (some of them non-zero), incident reports say
 * `Z` and `-04:00`, so the suite proves the service re-spells what it was given,
 * not that the fixtures happened to be in the right form.
 */
import { assert, describe, layer } from "@effect/vitest"
import { EntityTypes, PluralOf, ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import type { IncidentReport } from "@ratings/domain/model/Incident"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Effect } from "effect"
import { type CallerName, quantumRow, Seed, slugOf } from "./fixtures.ts"
import { type Response, TestServer } from "./TestServer.ts"
import { receiver } from "./WebhookReceiver.ts"
import { QuantumSourceMemory } from "@ratings/domain/ports/memory/QuantumSourceMemory"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are walked field by field
type Json = any

/** The live service's form (api-facts). */
const WireForm = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/
/** A string that reads as a date-time, whatever its key. */
const DateLike = /^\d{4}-\d\d-\d\dT\d\d:\d\d/
const isTimestampKey = (key: string) => key.endsWith("_at") || key === "as_of" || key === "timestamp"

interface Found {
  readonly where: string
  readonly key: string
  readonly value: unknown
}

/** Every value under a timestamp key (`*_at`, `as_of`, `timestamp`) and every date-like string, anywhere. */
const timestampsIn = (value: unknown, where: string, out: Array<Found> = []): Array<Found> => {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) timestampsIn(v, `${where}[${i}]`, out)
  } else if (typeof value === "object" && value !== null)
    for (const [key, v] of Object.entries(value)) {
      if ((isTimestampKey(key) && v !== null) || (typeof v === "string" && DateLike.test(v)))
        out.push({ where: `${where}.${key}`, key, value: v })
      timestampsIn(v, `${where}.${key}`, out)
    }
  return out
}

const assertWireForm = (found: ReadonlyArray<Found>) => {
  for (const { where, value } of found) {
    assert.isString(value, where)
    assert.match(value as string, WireForm, `${where} = ${JSON.stringify(value)}`)
    assert.isFalse(Number.isNaN(Date.parse(value as string)), where)
  }
}

// ---------------------------------------------------------------------------
// The seed, spelt as an import file might spell it

/** The same instant with a +05:30 offset, moved by 0, 250 or 7 ms (the same move for the same text). */
const respell = (text: string): string => {
  const shift = [0, 250, 7][[...text].reduce((n, c) => n + c.charCodeAt(0), 0) % 3]!
  const local = new Date(Date.parse(text) + shift + 330 * 60_000).toISOString().slice(0, -1)
  return `${local}+05:30`
}

const respelt = <A>(value: A): A => {
  if (typeof value === "string") return (DateLike.test(value) ? respell(value) : value) as A
  if (Array.isArray(value)) return value.map(respelt) as A
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, respelt(v)])) as A
  return value
}

const OffsetSeed = respelt(Seed)

// ---------------------------------------------------------------------------
// Requests

const api = (path: string) => `/api/v1${path}`

const call = (
  path: string,
  authorization: string | undefined,
  method: "GET" | "POST" = "GET",
  body?: unknown
) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).request(api(path), { method, authorization, body })
  })

const as = (caller: CallerName) =>
  Effect.gen(function* () {
    return (yield* TestServer).bearerFor(caller)
  })

/** A 2xx body, asserted. */
const okJson = (r: Response, what: string): Json => {
  assert.isTrue(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.text}`)
  return r.json
}

/** A Pro key of a fresh account: exports count against a per-account quota. */
const freshPro = Effect.gen(function* () {
  const server = yield* TestServer
  const { key } = yield* server.createKey("pro", { account_id: crypto.randomUUID() })
  return `Bearer ${key}`
})

let nonce = 0
const report = (handle: string, overrides: Partial<IncidentReport> = {}): IncidentReport => ({
  nonce: `wire-${++nonce}-${Math.random().toString(36).slice(2)}`,
  protocol_name: "Wire Form Finance",
  chain: "ethereum",
  exploit_class: "REENTRANCY",
  loss_estimate_usd: 1_000_000,
  victim_addresses: [],
  source: { handle },
  claimed_tier: "rumored",
  first_seen_at: "2026-11-01T10:00:00.5Z",
  ...overrides
})

// ---------------------------------------------------------------------------

layer(TestServer.layerOf("postgres", OffsetSeed), { excludeTestServices: true })("postgres", (it) => {
  describe("api-facts: every timestamp is written as the live service writes it (+00:00, six-digit fraction)", () => {
    it.effect(
      "entities, scorecards, scorecard by id, domains (Pro), history (Pro) and evidence of every type, after an import spelt with +05:30",
      () =>
        Effect.gen(function* () {
          const enterprise = yield* as("enterprise")
          const pro = yield* as("pro")
          const found: Array<Found> = []
          for (const type of EntityTypes) {
            const plural = PluralOf[type]
            const slug = slugOf(type, "alpha")
            const bodies: ReadonlyArray<readonly [string, string | undefined]> = [
              [`/${plural}?limit=200`, undefined],
              [`/${plural}/${slug}`, undefined],
              [`/${plural}/${slug}/scorecards`, undefined],
              [`/${plural}/${slug}/scorecards`, enterprise],
              [`/${plural}/${slug}/domains`, pro],
              [`/${plural}/${slug}/history`, pro],
              [`/${plural}/${slug}/evidence`, enterprise]
            ]
            for (const [path, authorization] of bodies)
              found.push(...timestampsIn(okJson(yield* call(path, authorization), path), path))
            const cards = okJson(yield* call(`/${plural}/${slug}/scorecards`, enterprise), "scorecards").items
            for (const card of cards) {
              const path = `/${ScorecardByIdSegment[type]}/${card.id}`
              found.push(...timestampsIn(okJson(yield* call(path, enterprise), path), path))
            }
          }
          assertWireForm(found)
          const keys = new Set(found.map((f) => f.key))
          for (const key of [
            "created_at",
            "updated_at",
            "last_rated_at",
            "scorecard_published_at",
            "published_at",
            "collected_at"
          ])
            assert.isTrue(keys.has(key), `no ${key} was checked`)
          // The seed's milliseconds come through as six digits.
          assert.isTrue(
            found.some((f) => /\.\d{6}\+00:00$/.test(f.value as string)),
            "no timestamp with a fraction was checked"
          )
        })
    )

    it.effect("export.json and export.csv write last_rated_at in the same form", () =>
      Effect.gen(function* () {
        const key = yield* freshPro
        const json = okJson(
          yield* call("/export.json?entity=protocols&fields=slug,last_rated_at", key),
          "export.json"
        )
        const found = timestampsIn(json, "export.json")
        assert.isAbove(found.filter((f) => f.key === "last_rated_at").length, 0)
        assertWireForm(found)

        const csv = yield* call("/export.csv?entity=protocols&fields=slug,last_rated_at", key)
        assert.strictEqual(csv.status, 200, csv.text)
        const [header, ...lines] = csv.text.trim().split(/\r?\n/)
        const column = header!.split(",").indexOf("last_rated_at")
        assert.isAtLeast(column, 0, header)
        const cells = lines.map((line) => line.split(",")[column]!).filter((cell) => cell !== "")
        assert.isAbove(cells.length, 0)
        for (const cell of cells) assert.match(cell, WireForm, cell)
      })
    )

    it.effect(
      "incidents: a source's Z and -04:00 are served as +00:00, in the ingest answer and the feed",
      () =>
        Effect.gen(function* () {
          const admin = yield* as("admin")
          const first = okJson(yield* call("/admin/incidents", admin, "POST", report("blockaid")), "ingest")
          const second = okJson(
            yield* call(
              "/admin/incidents",
              admin,
              "POST",
              report("peckshield", {
                first_seen_at: "2026-11-01T06:00:00-04:00",
                resolved_at: "2026-11-02T08:30:00.123456-04:00",
                resolution: "funds returned"
              })
            ),
            "ingest"
          )
          assert.strictEqual(second.incident_id, first.incident_id)
          const feed = okJson(yield* call("/incidents?min_status=rumored&limit=200", undefined), "feed")
          const item = feed.items.find((i: Json) => i.incident_id === first.incident_id)
          assert.isDefined(item)
          assert.strictEqual(item.first_seen_at, "2026-11-01T10:00:00.500000+00:00")
          assert.strictEqual(item.resolved_at, "2026-11-02T12:30:00.123456+00:00")
          const found = [...timestampsIn(second, "ingest"), ...timestampsIn(feed, "/incidents")]
          assert.includeMembers(
            found.map((f) => f.key),
            ["detected_at", "first_seen_at", "resolved_at"]
          )
          assertWireForm(found)
        })
    )

    it.effect("quantum readiness: as_of of the league table and of a chain", () =>
      Effect.gen(function* () {
        yield* (yield* QuantumSourceMemory).respond([quantumRow(slugOf("chain", "alpha"), "Chain Alpha")])
        const refreshed = yield* Effect.gen(function* () {
          return yield* (yield* QuantumService).refresh
        }).pipe(Effect.provide(QuantumService.layer))
        assert.isTrue(refreshed.outcome.ok)
        const table = okJson(yield* call("/quantum-readiness", undefined), "league table")
        const chain = okJson(
          yield* call(`/chains/${slugOf("chain", "alpha")}/quantum-readiness`, undefined),
          "chain"
        )
        assert.strictEqual(chain.available, true)
        const found = [...timestampsIn(table, "/quantum-readiness"), ...timestampsIn(chain, "chain")]
        assert.strictEqual(found.filter((f) => f.key === "as_of").length, 2)
        assertWireForm(found)
      })
    )

    it.effect(
      "alert rules (create, list), test-webhook, a rule's deliveries with their attempts, failed deliveries, and the webhook payload's timestamp",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const key = yield* freshPro
            const hook = yield* receiver(503)
            const rule = {
              name: "wire form",
              entity_types: ["protocol"],
              events: ["rating.changed"],
              channels: { webhook_url: hook.url }
            }
            const created = okJson(yield* call("/alert-rules", key, "POST", rule), "create")
            const listed = okJson(yield* call("/alert-rules", key), "list")
            const tested = okJson(
              yield* call(`/alert-rules/${created.id}/test-webhook`, key, "POST"),
              "test-webhook"
            )
            assert.isNotNull(tested.next_attempt_at, "a 503 is retried later")
            const deliveries = okJson(yield* call(`/alert-rules/${created.id}/deliveries`, key), "deliveries")
            const failed = okJson(yield* call("/deliveries?status=failed", key), "failed deliveries")
            const found = [
              ...timestampsIn(created, "create"),
              ...timestampsIn(listed, "list"),
              ...timestampsIn(tested, "test-webhook"),
              ...timestampsIn(deliveries, "deliveries"),
              ...timestampsIn(failed, "failed")
            ]
            assert.includeMembers(
              found.map((f) => f.key),
              ["created_at", "attempted_at", "next_attempt_at", "first_attempt_at", "started_at"]
            )
            assertWireForm(found)

            assert.lengthOf(hook.received, 1)
            const payload = JSON.parse(hook.received[0]!.body)
            assert.strictEqual(payload.event, "webhook.test")
            const inPayload = timestampsIn(payload, "payload")
            assert.includeMembers(
              inPayload.map((f) => f.key),
              ["timestamp"]
            )
            assertWireForm(inPayload)
          })
        )
    )
  })
})
