/**
 * The behaviour of the IncidentRepository port, written once and run against
 * every implementation: the domain's layerMemory in
 * test/ports/memory/IncidentRepositoryMemory.test.ts, the Postgres adapter in
 * adapters-sql's PgIncidentRepository.test.ts.
 * The feed cases are those of the domain's IncidentFeed test, and every feed
 * answer is also checked against the pure `feedPage` over the same items, the
 * reference both stores must agree with. Each test gets a fresh, empty store.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Result } from "effect"
import * as fc from "fast-check"
import { feedPage, type IncidentFeedFilter, toFeedFilter } from "../../../src/incidents/IncidentFeed.ts"
import {
  AggregationWindowMillis,
  aggregationKey,
  IncidentLifecycle,
  selectIncidentBy,
  toServedWith
} from "../../../src/incidents/IncidentLifecycle.ts"
import { IncidentTiers } from "../../../src/incidents/IncidentTier.ts"
import { type Incident, type IncidentRecord, isoOfMillis } from "../../../src/model/Incident.ts"
import { IncidentRepository } from "../../../src/ports/IncidentRepository.ts"
import {
  DAY,
  HOUR,
  ProtocolRating,
  type ProtocolToRate,
  recordOf,
  report,
  served,
  T0,
  uuid,
  VictimAddress
} from "./events-incident-fixtures.ts"

const filter = (overrides: Partial<IncidentFeedFilter> = {}): IncidentFeedFilter => ({
  min_status: "rumored",
  limit: 50,
  offset: 0,
  ...overrides
})

const at = (hours: number) => isoOfMillis(T0 + hours * HOUR)
const ids = (items: ReadonlyArray<Incident>) => items.map((i) => i.incident_id)

/** Stores the items' records, then answers the feed; also checks the answer against `feedPage`. */
const feedOf = (items: ReadonlyArray<Incident>) =>
  Effect.gen(function* () {
    const repo = yield* IncidentRepository
    for (const item of items) yield* repo.upsert(recordOf(item))
    return (f: IncidentFeedFilter) =>
      Effect.map(repo.feed(f), (page) => {
        assert.deepStrictEqual(page, feedPage(items, f), "the store's feed is feedPage's answer")
        return page
      })
  })

const sinceFilter = (raw: string) => {
  const f = toFeedFilter({ since: raw, min_status: "rumored", limit: 50, offset: 0 })
  if (Result.isFailure(f)) throw new Error(f.failure)
  return f.success
}

/** A full record with every optional part set, including a source url and non-UTC offsets. */
const richRecord = (n: number): IncidentRecord => ({
  incident_id: uuid(n),
  protocol_name: "Curve Finance",
  chain: null,
  exploit_class: "PRICE_MANIPULATION",
  status: "corroborated",
  first_seen_at: "2026-07-31T20:00:00.250-04:00",
  detected_at: "2026-08-01T01:00:00+00:00",
  slug: null,
  matched_protocol: false,
  loss_estimate_usd: 12_345.67,
  victim_addresses: [VictimAddress, "0x2222222222222222222222222222222222222222"],
  confidence_bps: null,
  nonces: ["n-a", "n-b", "n-c"],
  sources: [
    { handle: "blockaid", claimed_tier: "confirmed", url: "https://x.example/blockaid/1" },
    { handle: "peckshield", claimed_tier: "corroborated" }
  ],
  resolved_at: "2026-08-03T00:00:00+02:00",
  resolution: "funds returned"
})

/** Stores the items' records and rates `protocols`, then answers the public feed; its page is `feed`'s. */
const publicFeedOf = (items: ReadonlyArray<Incident>, protocols: ReadonlyArray<ProtocolToRate>) =>
  Effect.gen(function* () {
    const repo = yield* IncidentRepository
    yield* (yield* ProtocolRating).rate(protocols)
    for (const item of items) yield* repo.upsert(recordOf(item))
    return (f: IncidentFeedFilter) =>
      Effect.map(repo.publicFeed(f), (facts) => {
        assert.deepStrictEqual(facts.page, feedPage(items, f), "the public feed's page is feedPage's answer")
        assert.strictEqual(facts.readable.length, facts.page.items.length, "one readability per item")
        return facts
      })
  })

/** A rated protocol, and one of each way a protocol stops being readable by the public. */
const Protocols: ReadonlyArray<ProtocolToRate> = [
  { slug: "aave-v3", name: "Aave V3" },
  { slug: "private-p", name: "Private P", is_private: true },
  { slug: "draft-p", name: "Draft P", status: "draft" },
  { slug: "inactive-p", name: "Inactive P", is_active: false },
  { slug: "unscored-p", name: "Unscored P", scorecard: null },
  { slug: "draft-card-p", name: "Draft Card P", scorecard: "draft" }
]
const Unreadable = Protocols.slice(1).map((p) => p.slug)

export const incidentRepositoryContract = (
  name: string,
  makeLayer: () => Layer.Layer<IncidentRepository | ProtocolRating, unknown>
) =>
  describe(`IncidentRepository contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, IncidentRepository | ProtocolRating>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect(
      "a stored record comes back unchanged by any of its nonces; an unknown nonce finds nothing",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* IncidentRepository
            const record = richRecord(1)
            yield* repo.upsert(record)
            for (const nonce of record.nonces)
              assert.deepStrictEqual(yield* repo.findByNonce(nonce), Option.some(record))
            assert.isTrue(Option.isNone(yield* repo.findByNonce("n-unknown")))
          })
        )
    )

    it.effect("upsert replaces the record with the same incident_id", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* IncidentRepository
          const first = recordOf(served(1, { status: "rumored", confidence_bps: 2500 }))
          yield* repo.upsert(first)
          const escalated: IncidentRecord = {
            ...first,
            status: "confirmed",
            detected_at: at(5),
            nonces: [...first.nonces, "n-2"],
            sources: [...first.sources, { handle: "certik", claimed_tier: "confirmed" }],
            victim_addresses: [...first.victim_addresses, "0x3"]
          }
          yield* repo.upsert(escalated)
          assert.deepStrictEqual(yield* repo.findByNonce("n-2"), Option.some(escalated))
          assert.deepStrictEqual(yield* repo.findByNonce(first.nonces[0]!), Option.some(escalated))
          const page = yield* repo.feed(filter())
          assert.strictEqual(page.total, 1)
          assert.strictEqual(page.items[0]?.status, "confirmed")
          assert.strictEqual(page.items[0]?.source_count, 3)
        })
      )
    )

    it.effect("findFor finds the incident with the same aggregation key within the window, either side", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* IncidentRepository
          const stored = recordOf(served(1, { first_seen_at: "2026-08-01T00:00:00+00:00" }))
          yield* repo.upsert(stored)
          const found = (r: Parameters<typeof report>[0]) =>
            Effect.map(repo.findFor(report(r)), Option.isSome)
          assert.isTrue(yield* found({}))
          assert.isTrue(yield* found({ protocol_name: "aave-v3", chain: "Ethereum" }), "names are normalised")
          assert.isTrue(yield* found({ first_seen_at: isoOfMillis(T0 + AggregationWindowMillis) }))
          assert.isTrue(yield* found({ first_seen_at: isoOfMillis(T0 - AggregationWindowMillis) }))
          assert.isTrue(yield* found({ first_seen_at: "2026-08-03T23:59:59+00:00" }))
          assert.isFalse(yield* found({ first_seen_at: isoOfMillis(T0 + AggregationWindowMillis + 1) }))
          assert.isFalse(yield* found({ first_seen_at: isoOfMillis(T0 - AggregationWindowMillis - 1) }))
          assert.isFalse(yield* found({ chain: "arbitrum" }))
          assert.isFalse(yield* found({ chain: null }))
          assert.isFalse(yield* found({ exploit_class: "ORACLE_MANIPULATION" }))
          assert.isFalse(yield* found({ protocol_name: "Aave V2" }))
        })
      )
    )

    it.effect(
      "findFor picks the nearest first_seen_at when windows overlap, then the earlier, then the smaller id",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* IncidentRepository
            const early = recordOf(served(7, { first_seen_at: isoOfMillis(T0) }))
            const late = recordOf(served(3, { first_seen_at: isoOfMillis(T0 + 100 * HOUR) }))
            yield* repo.upsert(early)
            yield* repo.upsert(late)
            const pick = (hours: number) =>
              Effect.map(repo.findFor(report({ first_seen_at: isoOfMillis(T0 + hours * HOUR) })), (o) =>
                Option.map(o, (r) => r.incident_id)
              )
            assert.deepStrictEqual(yield* pick(40), Option.some(uuid(7)))
            assert.deepStrictEqual(yield* pick(60), Option.some(uuid(3)))
            assert.deepStrictEqual(
              yield* pick(50),
              Option.some(uuid(7)),
              "a tie goes to the earlier incident"
            )
            assert.deepStrictEqual(yield* pick(180), Option.none())
          })
        )
    )

    it.effect("the feed returns incidents newest first by detected_at, ties by incident_id", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf([
            served(1, { detected_at: at(1) }),
            served(2, { detected_at: at(3) }),
            served(4, { detected_at: at(2) }),
            served(3, { detected_at: at(2) }),
            // The same instant written with an offset still sorts by the instant.
            served(5, { detected_at: "2026-08-01T04:00:00+02:00" })
          ])
          assert.deepStrictEqual(ids((yield* feed(filter())).items), [
            uuid(2),
            uuid(3),
            uuid(4),
            uuid(5),
            uuid(1)
          ])
        })
      )
    )

    it.effect("slug is an exact match", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf([
            served(1, { slug: "aave-v3" }),
            served(2, { slug: "aave-v3-fork" }),
            served(3, { slug: "aave" }),
            served(4, { slug: null, matched_protocol: false })
          ])
          assert.deepStrictEqual(ids((yield* feed(filter({ slug: "aave-v3" }))).items), [uuid(1)])
          assert.deepStrictEqual(ids((yield* feed(filter({ slug: "AAVE-V3" }))).items), [])
          assert.deepStrictEqual(ids((yield* feed(filter({ slug: "aave" }))).items), [uuid(3)])
        })
      )
    )

    it.effect("since keeps only incidents detected strictly after it", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf([
            served(1, { detected_at: at(0) }),
            served(2, { detected_at: isoOfMillis(T0 + 1) }),
            served(3, { detected_at: at(-1) })
          ])
          const since = (raw: string) => Effect.map(feed(sinceFilter(raw)), (p) => ids(p.items))
          assert.deepStrictEqual(yield* since("2026-08-01T00:00:00+00:00"), [uuid(2)])
          assert.deepStrictEqual(yield* since("2026-08-01T00:00:00Z"), [uuid(2)])
          assert.deepStrictEqual(yield* since("2026-08-01T02:00:00+02:00"), [uuid(2)])
          assert.deepStrictEqual(yield* since("2026-07-31T22:59:59.999-01:00"), [uuid(2), uuid(1)])
          assert.deepStrictEqual(yield* since("2026-08-01T00:00:00.0005Z"), [uuid(2)])
        })
      )
    )

    it.effect("min_status lists every incident at or above the requested tier", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf([
            served(1, { status: "rumored", detected_at: at(3), confidence_bps: 2500 }),
            served(2, { status: "corroborated", detected_at: at(2) }),
            served(3, { status: "confirmed", detected_at: at(1) })
          ])
          const page = (min_status: (typeof IncidentTiers)[number]) =>
            Effect.map(feed(filter({ min_status })), (p) => ids(p.items))
          assert.deepStrictEqual(yield* page("confirmed"), [uuid(3)])
          assert.deepStrictEqual(yield* page("corroborated"), [uuid(2), uuid(3)])
          assert.deepStrictEqual(yield* page("rumored"), [uuid(1), uuid(2), uuid(3)])
        })
      )
    )

    it.effect("incidents at unrated protocols are listed, with matched_protocol false and slug null", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf([
            served(1, { detected_at: at(1) }),
            served(2, { slug: null, matched_protocol: false, detected_at: at(2) })
          ])
          const page = yield* feed(filter({ min_status: "confirmed" }))
          assert.deepStrictEqual(ids(page.items), [uuid(2), uuid(1)])
          assert.isNull(page.items[0]?.slug)
          assert.isFalse(page.items[0]?.matched_protocol)
        })
      )
    )

    it.effect("limit and offset page the filtered list; total counts the whole filtered list", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* feedOf(
            Array.from({ length: 7 }, (_, i) =>
              served(i + 1, { detected_at: at(i), status: i % 2 === 0 ? "confirmed" : "rumored" })
            )
          )
          const first = yield* feed(filter({ min_status: "confirmed", limit: 2, offset: 0 }))
          const second = yield* feed(filter({ min_status: "confirmed", limit: 2, offset: 2 }))
          const beyond = yield* feed(filter({ min_status: "confirmed", limit: 2, offset: 4 }))
          assert.deepStrictEqual(ids(first.items), [uuid(7), uuid(5)])
          assert.deepStrictEqual(ids(second.items), [uuid(3), uuid(1)])
          assert.deepStrictEqual(beyond.items, [])
          assert.deepStrictEqual([first.total, second.total, beyond.total], [4, 4, 4])
        })
      )
    )

    it.effect(
      "the feed never serves a record without a tier or with fewer than two independent sources",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* IncidentRepository
            const lone = recordOf(served(1))
            yield* repo.upsert({ ...lone, status: null, detected_at: null })
            const single = recordOf(served(2))
            yield* repo.upsert({ ...single, sources: [{ handle: "blockaid", claimed_tier: "confirmed" }] })
            const spelledTwice = recordOf(served(3))
            yield* repo.upsert({
              ...spelledTwice,
              sources: [
                { handle: "blockaid", claimed_tier: "confirmed" },
                { handle: "@BlockAid ", claimed_tier: "confirmed" }
              ]
            })
            assert.deepStrictEqual(yield* repo.feed(filter()), { items: [], total: 0 })
          })
        )
    )

    it.effect("feed items carry no nonce and no victim address", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* IncidentRepository
          yield* repo.upsert(richRecord(1))
          yield* repo.upsert(recordOf(served(2)))
          const text = JSON.stringify(yield* repo.feed(filter()))
          for (const secret of ["n-a", "n-b", "secret-nonce", VictimAddress, "0x2222", "nonce", "victim"])
            assert.notInclude(text, secret)
        })
      )
    )

    it.effect(
      "the store applies the aggregation rule, servability and confidence floor of the IncidentLifecycle provided",
      () => {
        const aggregation = { key: aggregationKey, windowMillis: HOUR }
        const floors = { rumored: 1, corroborated: 2, confirmed: 3 }
        const lifecycle = {
          ...IncidentLifecycle.defaultValue(),
          aggregation,
          selectIncident: selectIncidentBy(aggregation),
          defaultConfidenceBps: floors,
          toServed: (s: IncidentRecord) =>
            s.protocol_name === "Withheld" ? undefined : toServedWith(floors)(s)
        }
        return run(
          Effect.gen(function* () {
            const repo = yield* IncidentRepository
            const shown = { ...recordOf(served(1, { first_seen_at: isoOfMillis(T0) })), confidence_bps: null }
            yield* repo.upsert(shown)
            yield* repo.upsert(recordOf(served(2, { protocol_name: "Withheld" })))
            const found = (first_seen_at: string) =>
              Effect.map(repo.findFor(report({ first_seen_at })), Option.isSome)
            assert.isTrue(yield* found(isoOfMillis(T0 + HOUR)))
            assert.isFalse(yield* found(isoOfMillis(T0 + 2 * HOUR)), "the provided window, not 72 hours")
            const page = yield* repo.feed(filter())
            assert.deepStrictEqual(
              ids(page.items),
              [shown.incident_id],
              "the provided toServed withholds one"
            )
            assert.strictEqual(page.items[0]?.confidence_bps, floors.confirmed, "the provided floor")
          })
        ).pipe(Effect.provide(Layer.succeed(IncidentLifecycle, lifecycle)))
      }
    )

    it.effect("the public feed says an incident matched to a rated, readable protocol is readable", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* publicFeedOf(
            [served(1, { detected_at: at(2) }), served(2, { slug: null, matched_protocol: false })],
            Protocols
          )
          const facts = yield* feed(filter())
          assert.deepStrictEqual(ids(facts.page.items), [uuid(1), uuid(2)])
          assert.deepStrictEqual(facts.readable, [true, false], "an unmatched incident names nothing")
          assert.isTrue(facts.slugReadable, "without ?slug= there is no slug to hide")
        })
      )
    )

    it.effect(
      "the public feed says a hidden, unpublished, inactive or unscored protocol is not readable",
      () =>
        run(
          Effect.gen(function* () {
            const feed = yield* publicFeedOf(
              Unreadable.map((slug, n) => served(n + 1, { slug, detected_at: at(n) })),
              Protocols
            )
            const facts = yield* feed(filter())
            assert.strictEqual(facts.page.total, Unreadable.length)
            assert.deepStrictEqual(
              facts.readable,
              Unreadable.map(() => false)
            )
          })
        )
    )

    it.effect("the public feed says whether ?slug= names a readable protocol, with or without a page", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* publicFeedOf(
            [served(1), served(2, { slug: "private-p" })],
            [...Protocols, { slug: "quiet", name: "Quiet" }]
          )
          const bySlug = (slug: string) => Effect.map(feed(filter({ slug })), (f) => f.slugReadable)
          assert.isTrue(yield* bySlug("aave-v3"))
          assert.isTrue(yield* bySlug("quiet"), "readable with no incident of its own: an empty page")
          for (const slug of [...Unreadable, "unknown-p"])
            assert.isFalse(yield* bySlug(slug), `?slug=${slug}`)
          const hidden = yield* feed(filter({ slug: "private-p" }))
          assert.deepStrictEqual([ids(hidden.page.items), hidden.readable], [[uuid(2)], [false]])
        })
      )
    )

    it.effect("the public feed counts the whole filtered list when the page is past its end", () =>
      run(
        Effect.gen(function* () {
          const feed = yield* publicFeedOf(
            Array.from({ length: 5 }, (_, i) => served(i + 1, { detected_at: at(i) })),
            Protocols
          )
          const beyond = yield* feed(filter({ limit: 2, offset: 7 }))
          assert.deepStrictEqual([beyond.page.items, beyond.page.total, beyond.readable], [[], 5, []])
          const bySlug = yield* feed(filter({ slug: "aave-v3", limit: 2, offset: 5 }))
          assert.deepStrictEqual([bySlug.page.total, bySlug.slugReadable], [5, true])
          const last = yield* feed(filter({ limit: 2, offset: 4 }))
          assert.deepStrictEqual(
            [ids(last.page.items), last.page.total, last.readable],
            [[uuid(1)], 5, [true]]
          )
        })
      )
    )

    it.effect("property: for random incidents and filters the feed is feedPage's answer", () =>
      Effect.gen(function* () {
        const instants = [at(0), at(1), isoOfMillis(T0 + 1), "2026-08-01T02:00:00+02:00", at(-30)]
        const arbItem = (n: number) =>
          fc
            .record({
              status: fc.constantFrom(...IncidentTiers),
              slug: fc.constantFrom<string | null>("aave-v3", "curve", null),
              detected_at: fc.constantFrom(...instants)
            })
            .map((r) => served(n, { ...r, matched_protocol: r.slug !== null }))
        const arbFilter = fc.record({
          min_status: fc.constantFrom(...IncidentTiers),
          slug: fc.option(fc.constantFrom("aave-v3", "curve", "nope"), { nil: undefined }),
          sinceMillis: fc.option(fc.constantFrom(T0 - 1, T0, T0 + 1, T0 + HOUR, T0 - DAY), {
            nil: undefined
          }),
          limit: fc.integer({ min: 1, max: 6 }),
          offset: fc.integer({ min: 0, max: 8 })
        })
        for (const [set, seed] of [
          [12, 1],
          [20, 2]
        ] as const) {
          const items = Array.from(
            { length: set },
            (_, i) => fc.sample(arbItem(i + 1), { numRuns: 1, seed: seed * 100 + i })[0]!
          )
          const filters = fc.sample(arbFilter, { numRuns: 25, seed })
          yield* Effect.gen(function* () {
            const feed = yield* feedOf(items)
            for (const f of filters) {
              const { slug, sinceMillis, ...rest } = f
              yield* feed({
                ...rest,
                ...(slug === undefined ? {} : { slug }),
                ...(sinceMillis === undefined ? {} : { sinceMillis })
              })
            }
          }).pipe(Effect.provide(makeLayer()))
        }
      }).pipe(Effect.orDie)
    )
  })
