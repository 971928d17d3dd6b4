/**
 * Issue 13, points 1 and 2: a webhook event names only an entity a subscriber
 * could read through the API at that moment (published, active, not private),
 * and an entity moved through its statuses announces its rating once, when it
 * becomes readable. Written once over the Publisher's ports and run on the
 * in-memory ones (the domain's services/PublisherVisibility.test.ts) and on
 * Postgres (adapters-sql's PgPublisherVisibility.test.ts).
 */
import { assert } from "@effect/vitest"
import type { EntityStatus } from "../../../src/model/Entity.ts"
import { AlertRuleRepository } from "../../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../../src/ports/DeliveryOutbox.ts"
import { EntityRepository, type StoredEntity } from "../../../src/ports/EntityRepository.ts"
import { ScorecardRepository, type StoredScorecard } from "../../../src/ports/ScorecardRepository.ts"
import { Publisher } from "../../../src/services/Publisher.ts"
import { Effect, Option } from "effect"
import { answer, entity, scorecard, T0, uuid } from "./ratings-fixtures.ts"
import { contract, type Target } from "./ratings-harness.ts"

export type PublisherPorts =
  | Publisher
  | EntityRepository
  | ScorecardRepository
  | AlertRuleRepository
  | DeliveryOutbox

/** A draft the scoring core scores 62.5 (B): security 1.0 and governance 0.25 at 50/50. */
const draftOf = (e: StoredEntity, version: number): StoredScorecard =>
  scorecard(e, version, "draft", {
    grade: null,
    letter_grade: null,
    composite_score: null,
    intrinsic_composite_score: null,
    intrinsic_letter_grade: null,
    largest_drag_hint: null,
    domain_scores: null,
    domain_weights: { security: 50, governance: 50 },
    answers: [answer("S1", "security", 4), answer("G1", "governance", 1)],
    dependencies: [],
    evidence: []
  })

/** The entity, with a published v1 (80, A) when `rated`, and a draft of the next version. */
const seed = (slug: string, over: Record<string, unknown>, rated: boolean) =>
  Effect.gen(function* () {
    const e = entity("protocol", slug, { categories: ["lending"], ...over })
    yield* (yield* EntityRepository).upsert([e])
    const cards = yield* ScorecardRepository
    if (rated) yield* cards.saveDraft(scorecard(e, 1, "published", { dependencies: [] }))
    yield* cards.saveDraft(draftOf(e, rated ? 2 : 1))
    return e
  })

let ruleNo = 0
/** A Pro account's catch-all rule: every type, every slug, every event kind. */
const catchAll = Effect.gen(function* () {
  const id = uuid(++ruleNo, 9)
  yield* (yield* AlertRuleRepository).create({
    id,
    account_id: "acct-pro",
    signing_key: "whsec_dGVzdA==",
    name: null,
    entity_types: [],
    slugs: [],
    events: [],
    channels: { webhook_url: "https://hooks.example/r" },
    created_at: T0
  })
  return id
})

const sent = (rule: string) =>
  Effect.map(
    Effect.flatMap(DeliveryOutbox, (o) => o.listByRule(rule)),
    // biome-ignore lint/suspicious/noExplicitAny: event bodies are probed field by field in assertions
    (ds) => ds.map((d) => JSON.parse(d.body) as { event: string; data: Record<string, any> })
  )

const hiddenCases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["draft", { status: "draft" }],
  ["scoring", { status: "scoring" }],
  ["approved", { status: "approved" }],
  ["private", { is_private: true }],
  ["inactive", { is_active: false }]
]

const publish = (slug: string) =>
  Effect.flatMap(Publisher, (p) =>
    p.publish({ entity_type: "protocol", slug, reasoning: "review", actor: "analyst" })
  )

const setStatus = (slug: string, status: EntityStatus, withScorecard = false) =>
  Effect.flatMap(Publisher, (p) =>
    p.setStatus({
      entity_type: "protocol",
      slug,
      status,
      publish: withScorecard ? { reasoning: "first rating", actor: "analyst" } : undefined
    })
  )

export const publisherVisibilityContract = <D>(target: Target<PublisherPorts, D>) =>
  contract("webhook events name only readable entities", target, (test) => {
    test("publishing a draft, scoring, approved, private or inactive entity's scorecard sends no event of any kind", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        for (const [label, over] of hiddenCases) {
          yield* seed(`first-${label}`, over, false) // would be a rating.new
          yield* seed(`again-${label}`, over, true) // would be rating.changed and rating.grade_transition
          const first = yield* publish(`first-${label}`)
          const again = yield* publish(`again-${label}`)
          assert.strictEqual(first.deliveries + again.deliveries, 0, label)
          assert.isFalse(first.readable, label)
          assert.strictEqual(again.scorecard.letter_grade, "B", `${label}: the scorecard is still published`)
        }
        assert.deepStrictEqual(yield* sent(rule), [])
        // The control: the same acts on a readable entity send every kind.
        yield* seed("first-public", {}, false)
        yield* seed("again-public", {}, true)
        assert.isTrue((yield* publish("first-public")).readable)
        yield* publish("again-public")
        assert.deepStrictEqual((yield* sent(rule)).map((b) => [b.event, b.data.entity_slug]).sort(), [
          ["rating.changed", "again-public"],
          ["rating.grade_transition", "again-public"],
          ["rating.new", "first-public"]
        ])
      }))

    test("an import's publications (publishMany) send nothing for hidden entities either", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        for (const [label, over] of hiddenCases) yield* seed(`bulk-${label}`, over, true)
        yield* seed("bulk-public", {}, true)
        const r = yield* (yield* Publisher).publishMany(
          [...hiddenCases.map(([l]) => `bulk-${l}`), "bulk-public"].map((slug) => ({
            request: { entity_type: "protocol" as const, slug, reasoning: "import", actor: "import" },
            at: Date.parse(T0)
          }))
        )
        assert.strictEqual(r.published, hiddenCases.length + 1)
        assert.deepStrictEqual(
          (yield* sent(rule)).map((b) => b.data.entity_slug),
          ["bulk-public", "bulk-public"]
        )
      }))

    test("an entity becoming readable sends one rating.new with its latest published figures; moving it again to the same status sends nothing", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        const e = yield* seed("later", { status: "draft" }, true)
        yield* publish("later") // v2 (62.5, B) published while the entity is a draft: nothing sent
        assert.deepStrictEqual(yield* sent(rule), [])
        const scoring = yield* setStatus("later", "scoring")
        assert.deepStrictEqual(
          [scoring.previous_status, scoring.status, scoring.deliveries],
          ["draft", "scoring", 0]
        )
        const shown = yield* setStatus("later", "published")
        assert.isTrue(shown.readable)
        assert.strictEqual(shown.deliveries, 1)
        const bodies = yield* sent(rule)
        assert.deepStrictEqual(
          bodies.map((b) => [b.event, b.data.entity_id, b.data.previous, b.data.current]),
          [["rating.new", e.record.id, null, { composite_score: 62.5, letter_grade: "B" }]]
        )
        const stored = yield* (yield* EntityRepository).findBySlug("protocol", "later")
        assert.strictEqual(Option.getOrThrow(stored).status, "published")
        assert.notStrictEqual(Option.getOrThrow(stored).updated_at, e.record.updated_at)
        // Idempotent: published again changes nothing and sends nothing.
        const again = yield* setStatus("later", "published")
        assert.strictEqual(again.deliveries, 0)
        assert.deepStrictEqual(yield* (yield* EntityRepository).findBySlug("protocol", "later"), stored)
        // Hidden again, then shown again: the rating is announced again, once.
        assert.strictEqual((yield* setStatus("later", "approved")).deliveries, 0)
        assert.strictEqual((yield* setStatus("later", "published")).deliveries, 1)
        assert.deepStrictEqual(
          (yield* sent(rule)).map((b) => b.event),
          ["rating.new", "rating.new"]
        )
      }))

    test("an entity without a published rating becoming readable sends nothing; its first publication then sends rating.new", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        yield* seed("unrated", { status: "approved" }, false)
        assert.strictEqual((yield* setStatus("unrated", "published")).deliveries, 0)
        yield* publish("unrated")
        assert.deepStrictEqual(
          (yield* sent(rule)).map((b) => b.event),
          ["rating.new"]
        )
      }))

    test("publishing the entity and its scorecard in one step writes both and sends one rating.new, never rating.changed for figures nobody saw", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        const e = yield* seed("one-step", { status: "approved" }, true)
        const r = yield* setStatus("one-step", "published", true)
        assert.strictEqual(r.publication?.scorecard.scorecard_version, 2)
        assert.strictEqual(r.deliveries, 1)
        const bodies = yield* sent(rule)
        assert.deepStrictEqual(
          bodies.map((b) => [b.event, b.data.current]),
          [["rating.new", { composite_score: 62.5, letter_grade: "B" }]]
        )
        const record = Option.getOrThrow(yield* (yield* EntityRepository).findById("protocol", e.record.id))
        assert.strictEqual(record.status, "published")
        const latest = yield* (yield* ScorecardRepository).latest("protocol", e.record.id, "published")
        assert.strictEqual(Option.getOrThrow(latest).scorecard_version, 2)
        // A republish without a new draft is refused and writes nothing; with one it is a normal re-rating.
        const refused = yield* Effect.flip(setStatus("one-step", "published", true))
        assert.strictEqual(refused._tag, "NoDraftScorecard")
        assert.strictEqual((yield* sent(rule)).length, 1)
      }))

    test("a one-step publish of an entity that stays hidden (private) publishes the scorecard and sends nothing", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        yield* seed("secret", { status: "draft", is_private: true }, false)
        const r = yield* setStatus("secret", "published", true)
        assert.isFalse(r.readable)
        assert.strictEqual(r.deliveries, 0)
        assert.strictEqual(r.publication?.scorecard.status, "published")
        assert.deepStrictEqual(yield* sent(rule), [])
      }))

    test("a status change of an unknown entity is EntityNotFound and writes nothing", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(setStatus("nobody", "published"))
        assert.strictEqual(error._tag, "EntityNotFound")
      }))
  })
