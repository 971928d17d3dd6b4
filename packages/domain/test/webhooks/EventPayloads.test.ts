import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { EntityTypes } from "../../src/model/EntityType.ts"
import {
  NewRatingEvent,
  RatingChangedData,
  RatingChangedEvent,
  WebhookEvent,
  WebhookTestEvent
} from "../../src/model/WebhookEvent.ts"
import { gradeOf } from "../../src/scoring/GradeLadder.ts"
import {
  addressEvent,
  domainDiff,
  eventsForPublish,
  gradeTransition,
  newRating,
  type PublishedFigures,
  ratingChanged,
  serializeEvent,
  TestEntityId,
  webhookTest
} from "../../src/webhooks/EventPayloads.ts"

const AT = Date.UTC(2026, 7, 1, 9, 30, 0)
const entity = {
  entity_type: "protocol",
  slug: "aave-v4",
  id: "3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a"
} as const
const address = {
  delivery_id: "6f1c9a52-8d4e-4b7a-9c31-2f5e8a0d7b14",
  watchlist_id: "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
}

const figures = (composite: number, domains: PublishedFigures["domain_scores"] = {}): PublishedFigures => ({
  composite_score: composite,
  letter_grade: gradeOf(composite),
  domain_scores: domains
})

const decodes = <S extends Schema.Top>(schema: S, value: unknown): boolean => Schema.is(schema)(value)

const arbFigures = fc
  .record({
    composite: fc.integer({ min: 0, max: 1000 }).map((n) => n / 10),
    domains: fc.dictionary(
      fc.constantFrom("security", "technology", "governance", "economic", "operational"),
      fc.option(
        fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000),
        { nil: null }
      )
    )
  })
  .map(({ composite, domains }) => figures(composite, domains))

describe("EventPayloads", () => {
  it("rating.changed only when composite or grade moved", () => {
    fc.assert(
      fc.property(arbFigures, arbFigures, (previous, current) => {
        const event = ratingChanged(previous, current, entity, AT)
        const moved =
          previous.composite_score !== current.composite_score ||
          previous.letter_grade !== current.letter_grade
        assert.strictEqual(event !== undefined, moved)
      })
    )
    const same = figures(78.4, { security: 0.8 })
    assert.isUndefined(
      ratingChanged(same, figures(78.4, { security: 0.6 }), entity, AT),
      "domains alone do not fire"
    )
    assert.isDefined(ratingChanged(same, figures(78.5, { security: 0.8 }), entity, AT))
  })

  it("rating.changed carries entity_type, entity_slug, previous and current {composite_score, letter_grade}", () => {
    const event = ratingChanged(figures(72.4), figures(76.1), entity, AT)!
    assert.strictEqual(event.event, "rating.changed")
    assert.strictEqual(event.timestamp, "2026-08-01T09:30:00+00:00")
    assert.deepStrictEqual(event.data.previous, { composite_score: 72.4, letter_grade: "BBB" })
    assert.deepStrictEqual(event.data.current, { composite_score: 76.1, letter_grade: "A" })
    assert.strictEqual(event.data.entity_type, "protocol")
    assert.strictEqual(event.data.entity_slug, "aave-v4")
    assert.strictEqual(event.data.entity_id, entity.id)
    assert.isTrue(decodes(RatingChangedEvent, addressEvent(event, address)))
  })

  it("domain_changes: domain, previous and current as 0-1 fractions, for domains whose fraction changed", () => {
    const diff = domainDiff(
      { security: 0.8125, technology: 0.6667, governance: 0.5, economic: null, oracle: 0.9 },
      { security: 0.75, technology: 0.6667, governance: 0.55, economic: 0.4, bridge: null }
    )
    assert.deepStrictEqual(diff.domain_changes, [
      { domain: "governance", previous: 0.5, current: 0.55 },
      { domain: "security", previous: 0.8125, current: 0.75 }
    ])
    assert.deepStrictEqual(
      diff.domains_added,
      [{ domain: "economic", current: 0.4 }],
      "a domain that started to fire"
    )
    assert.deepStrictEqual(
      diff.domains_removed,
      [{ domain: "oracle", previous: 0.9 }],
      "a domain that stopped"
    )
  })

  it("grade transition: direction upgrade or downgrade with previous_grade and current_grade", () => {
    const up = gradeTransition(figures(74.9), figures(75), entity, AT)!
    assert.strictEqual(up.event, "rating.grade_transition")
    assert.strictEqual(up.data.direction, "upgrade")
    assert.strictEqual(up.data.previous_grade, "BBB")
    assert.strictEqual(up.data.current_grade, "A")
    assert.deepStrictEqual(up.data.previous, { composite_score: 74.9, letter_grade: "BBB" })
    const down = gradeTransition(figures(96), figures(40), entity, AT)!
    assert.strictEqual(down.data.direction, "downgrade")
    assert.isUndefined(gradeTransition(figures(80), figures(84), entity, AT), "no transition within a band")
    assert.isTrue(decodes(RatingChangedData, up.data), "a receiver of rating.changed reads it unchanged")
  })

  it("a publish emits rating.new when there was no previous published scorecard", () => {
    const events = eventsForPublish(undefined, figures(66, { security: 0.7 }), entity, AT)
    assert.strictEqual(events.length, 1)
    const event = events[0]!
    assert.strictEqual(event.event, "rating.new")
    if (event.event !== "rating.new") return
    assert.isNull(event.data.previous)
    assert.deepStrictEqual(event.data.current, { composite_score: 66, letter_grade: "BBB" })
    assert.deepStrictEqual(event.data.domain_changes, [])
    assert.deepStrictEqual(event.data.domains_added, [{ domain: "security", current: 0.7 }])
    assert.isTrue(decodes(NewRatingEvent, addressEvent(newRating(figures(66), entity, AT), address)))
  })

  it("a publish emits rating.changed, plus rating.grade_transition when the grade moved, else nothing", () => {
    assert.deepStrictEqual(
      eventsForPublish(figures(60), figures(70), entity, AT).map((e) => e.event),
      ["rating.changed", "rating.grade_transition"]
    )
    assert.deepStrictEqual(
      eventsForPublish(figures(66), figures(70), entity, AT).map((e) => e.event),
      ["rating.changed"]
    )
    assert.deepStrictEqual(eventsForPublish(figures(70), figures(70), entity, AT), [])
  })

  it("webhook.test: a synthetic payload shaped like rating.changed, marked data.test: true", () => {
    const rule = { entity_types: [], slugs: [] }
    const event = addressEvent(webhookTest(rule, AT), address)
    assert.strictEqual(event.event, "webhook.test")
    assert.strictEqual(event.watchlist_id, address.watchlist_id)
    assert.isTrue(decodes(WebhookTestEvent, event))
    if (event.event !== "webhook.test") return
    assert.isTrue(event.data.test)
    assert.isFalse(decodes(WebhookTestEvent, { ...event, data: { ...event.data, test: false } }))
    assert.strictEqual(event.data.entity_id, TestEntityId)
    assert.isTrue(decodes(RatingChangedData, event.data), "every rating.changed field, with the same types")
    const body = JSON.parse(serializeEvent(event))
    assert.deepStrictEqual(Object.keys(body), ["event", "timestamp", "delivery_id", "watchlist_id", "data"])
    const watched = webhookTest({ entity_types: ["bridge"], slugs: ["wormhole"] }, AT)
    assert.strictEqual(watched.data.entity_type, "bridge")
    assert.strictEqual(watched.data.entity_slug, "wormhole")
  })

  it("raw body is deterministic: fixed key order whatever the input order, and it round-trips", () => {
    const event = addressEvent(
      gradeTransition(figures(60, { b: 0.2, a: 0.1 }), figures(80, { a: 0.3 }), entity, AT)!,
      address
    )
    const body = serializeEvent(event)
    assert.strictEqual(
      body,
      '{"event":"rating.grade_transition","timestamp":"2026-08-01T09:30:00+00:00",' +
        '"delivery_id":"6f1c9a52-8d4e-4b7a-9c31-2f5e8a0d7b14","watchlist_id":"0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e",' +
        '"data":{"entity_type":"protocol","entity_slug":"aave-v4","entity_id":"3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a",' +
        '"previous":{"composite_score":60,"letter_grade":"B"},"current":{"composite_score":80,"letter_grade":"A"},' +
        '"domain_changes":[{"domain":"a","previous":0.1,"current":0.3}],"domains_added":[],' +
        '"domains_removed":[{"domain":"b","previous":0.2}],' +
        '"direction":"upgrade","previous_grade":"B","current_grade":"A"}}'
    )
    // The same value with its keys in reverse order serialises to the same bytes.
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)])
            )
          : value
    assert.strictEqual(serializeEvent(reversed(event) as typeof event), body)
    assert.strictEqual(serializeEvent(JSON.parse(body)), body)
  })

  it("every built body decodes with the WebhookEvent schema", () => {
    fc.assert(
      fc.property(
        fc.option(arbFigures, { nil: undefined }),
        arbFigures,
        fc.constantFrom(...EntityTypes),
        (previous, current, entity_type) => {
          for (const draft of eventsForPublish(previous, current, { ...entity, entity_type }, AT)) {
            const body = serializeEvent(addressEvent(draft, address))
            assert.isTrue(decodes(WebhookEvent, JSON.parse(body)))
            assert.strictEqual(serializeEvent(JSON.parse(body)), body)
          }
        }
      )
    )
  })
})
