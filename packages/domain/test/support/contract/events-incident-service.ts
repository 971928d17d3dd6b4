/**
 * The domain's incident use cases (ingest and feed) run over a repository
 * implementation: the same scenarios as the domain's IncidentService test, so
 * a store that stores, finds or feeds differently from memory shows up as a
 * different ingest outcome or feed. Run over memory in the domain's
 * test/ports/memory/IncidentRepositoryMemory.test.ts and over Postgres in
 * adapters-sql's PgIncidentRepository.test.ts. Each test gets fresh stores.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { IncidentFeedQuery, type IncidentReport, isoOfMillis } from "../../../src/model/Incident.ts"
import { IncidentService } from "../../../src/services/IncidentService.ts"
import { pair, ProtocolRating, report, T0, VictimAddress } from "./events-incident-fixtures.ts"

const everyTier = Schema.decodeUnknownSync(IncidentFeedQuery)({ min_status: "rumored" })
const defaults = Schema.decodeUnknownSync(IncidentFeedQuery)({})

const ingestAll = (reports: ReadonlyArray<IncidentReport>) =>
  Effect.gen(function* () {
    const service = yield* IncidentService
    const outcomes: Array<string> = []
    for (const r of reports) outcomes.push((yield* service.ingest(r)).outcome)
    return outcomes
  })

export const incidentServiceContract = (
  name: string,
  makeLayer: () => Layer.Layer<IncidentService | ProtocolRating, unknown>
) =>
  describe(`IncidentService over ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, IncidentService | ProtocolRating>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect(
      "reports about one hack aggregate into one incident, and escalation keeps its incident_id",
      () =>
        run(
          Effect.gen(function* () {
            const service = yield* IncidentService
            yield* TestClock.setTime(T0)
            const first = yield* service.ingest(report({ handle: "blockaid" }))
            const second = yield* service.ingest(report({ handle: "peckshield", protocol_name: "aave-v3" }))
            yield* TestClock.adjust("1 hour")
            const outcomes = yield* ingestAll(pair("confirmed", { first_seen_at: "2026-08-02T12:00:00Z" }))
            assert.deepStrictEqual(
              [first.outcome, second.outcome, ...outcomes],
              ["created", "escalated", "absorbed", "escalated"]
            )
            assert.strictEqual(second.incident_id, first.incident_id)
            const page = yield* service.feed(everyTier)
            assert.strictEqual(page.total, 1)
            assert.strictEqual(page.items[0]?.incident_id, first.incident_id)
            assert.strictEqual(page.items[0]?.status, "confirmed")
            assert.strictEqual(page.items[0]?.first_seen_at, "2026-08-01T00:00:00+00:00")
            assert.strictEqual(page.items[0]?.detected_at, isoOfMillis(T0 + 60 * 60 * 1000))
          })
        )
    )

    it.effect("ingest never serves a single-sourced incident, at any tier", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          const result = yield* service.ingest(report({ handle: "blockaid", claimed_tier: "confirmed" }))
          assert.strictEqual(result.outcome, "created")
          assert.isNull(result.status)
          assert.isUndefined(result.served)
          assert.strictEqual((yield* service.feed(everyTier)).total, 0)
        })
      )
    )

    it.effect("the same protocol hacked twice a month apart is two incidents", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          yield* ingestAll(pair("confirmed", { first_seen_at: "2026-07-01T00:00:00Z" }))
          yield* ingestAll(pair("confirmed", { first_seen_at: "2026-08-01T00:00:00Z" }))
          const page = yield* service.feed(defaults)
          assert.strictEqual(page.total, 2)
          assert.notStrictEqual(page.items[0]?.incident_id, page.items[1]?.incident_id)
        })
      )
    )

    it.effect("a repeated ingest nonce changes nothing, whatever the replayed payload says", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          const [a, b] = pair("rumored")
          yield* ingestAll([a!, b!])
          const before = yield* service.feed(everyTier)
          yield* TestClock.adjust("1 day")
          const replay = yield* service.ingest({
            ...report({ handle: "certik", claimed_tier: "confirmed" }),
            nonce: a!.nonce
          })
          const elsewhere = yield* service.ingest({ ...report({ protocol_name: "Curve" }), nonce: b!.nonce })
          assert.strictEqual(replay.outcome, "duplicate")
          assert.strictEqual(elsewhere.outcome, "duplicate")
          assert.deepStrictEqual(yield* service.feed(everyTier), before)
        })
      )
    )

    it.effect("matching re-runs on escalation, and not merely because coverage grew", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          yield* ingestAll(pair("rumored"))
          yield* (yield* ProtocolRating).rate([{ slug: "aave-v3", name: "Aave V3" }])
          yield* ingestAll([report({ handle: "certik" })])
          const grown = (yield* service.feed(everyTier)).items[0]
          assert.strictEqual(grown?.status, "rumored")
          assert.isFalse(grown?.matched_protocol)
          assert.isNull(grown?.slug)
          yield* ingestAll(pair("corroborated"))
          const escalated = (yield* service.feed(everyTier)).items[0]
          assert.strictEqual(escalated?.status, "corroborated")
          assert.isTrue(escalated?.matched_protocol)
          assert.strictEqual(escalated?.slug, "aave-v3")
          assert.strictEqual((yield* service.feed({ ...everyTier, slug: "aave-v3" })).total, 1)
        })
      )
    )

    it.effect("the feed lists confirmed incidents by default, unrated protocols included", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          yield* ingestAll(pair("corroborated"))
          yield* ingestAll(pair("confirmed", { protocol_name: "Unrated Fork" }))
          const page = yield* service.feed(defaults)
          assert.strictEqual(page.total, 1)
          assert.strictEqual(page.items[0]?.protocol_name, "Unrated Fork")
          assert.isNull(page.items[0]?.slug)
          assert.isFalse(page.items[0]?.matched_protocol)
        })
      )
    )

    it.effect("ingest results and feed items carry no nonce and no victim address", () =>
      run(
        Effect.gen(function* () {
          const service = yield* IncidentService
          const [a, b] = pair("confirmed", { victim_addresses: ["0xfeedface"] })
          yield* service.ingest(a!)
          const result = yield* service.ingest(b!)
          const text = JSON.stringify([result, yield* service.feed(defaults)])
          for (const secret of [a!.nonce, b!.nonce, "0xfeedface", VictimAddress, "nonce", "victim"])
            assert.notInclude(text, secret)
        })
      )
    )

    it.effect(
      "a consumer polling with since and keying on incident_id sees each escalation exactly once",
      () =>
        run(
          Effect.gen(function* () {
            const service = yield* IncidentService
            yield* TestClock.setTime(T0)
            let since: string | undefined
            const seen: Array<string> = []
            const poll = Effect.gen(function* () {
              const page = yield* service.feed(since === undefined ? everyTier : { ...everyTier, since })
              for (const item of page.items) seen.push(`${item.incident_id}:${item.status}`)
              since = page.items[0]?.detected_at ?? since
              yield* TestClock.adjust("1 second")
            })
            const ids = new Set<string>()
            for (const tier of ["rumored", "corroborated", "confirmed"] as const) {
              for (const r of [...pair(tier), report({ handle: "certik" })]) {
                ids.add((yield* service.ingest(r)).incident_id)
                yield* poll
              }
              yield* poll
            }
            assert.strictEqual(ids.size, 1)
            const [id] = ids
            assert.deepStrictEqual(seen, [`${id}:rumored`, `${id}:corroborated`, `${id}:confirmed`])
          })
        )
    )
  })
