/**
 * Issue 13, points 1 and 2, for imports: an import that makes an entity
 * readable (its status, is_private or is_active) announces its published
 * rating once, as `ratings status` does, in the import's transaction, and
 * says nothing of an entity that stays hidden or becomes hidden. Written once
 * over the Importer's ports and run on the in-memory ones (the domain's
 * services/ImportVisibility.test.ts) and on Postgres (adapters-sql's
 * PgImportVisibility.test.ts).
 */
import { assert } from "@effect/vitest"
import type { ImportSource } from "../../../src/import/ImportJsonText.ts"
import { AlertRuleRepository } from "../../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../../src/ports/DeliveryOutbox.ts"
import type { EntityRepository } from "../../../src/ports/EntityRepository.ts"
import { ScorecardRepository } from "../../../src/ports/ScorecardRepository.ts"
import { Importer } from "../../../src/services/Importer.ts"
import { Effect, Option } from "effect"
import { contract, type Target } from "./ratings-harness.ts"

export type ImporterPorts =
  | Importer
  | EntityRepository
  | ScorecardRepository
  | AlertRuleRepository
  | DeliveryOutbox

const T0 = "2026-01-01T00:00:00Z"
const id = (n: number) => `00000000-0000-4000-8000-${(0xe000 + n).toString(16).padStart(12, "0")}`

const questions = ["P-SEC-1", "P-GOV-1"].map((qid, i) => ({
  id: qid,
  entity_type: "protocol",
  domain: i === 0 ? "security" : "governance",
  text: `${qid}?`,
  weight: 1,
  max_score: 4,
  criteria: [
    { score: 0, description: "no" },
    { score: 4, description: "yes" }
  ],
  position: i + 1
}))

const protocol = (slug: string, n: number, over: Record<string, unknown> = {}) => ({
  entity_type: "protocol",
  record: {
    id: id(n),
    name: slug,
    slug,
    status: "published",
    categories: ["lending"],
    chains: [],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: false,
    created_at: T0,
    updated_at: T0,
    ...over
  }
})

const card = (n: number, slug: string, version: number, scores: readonly [number, number]) => ({
  id: id(100 + n * 10 + version),
  entity_type: "protocol",
  slug,
  scorecard_version: version,
  domain_weights: { security: 50, governance: 50 },
  answers: questions.map((q, i) => ({
    id: id(1000 + n * 100 + version * 10 + i),
    question_id: q.id,
    domain: q.domain,
    score: scores[i],
    max_score: 4,
    weight: 1,
    confidence: "high",
    response: `level ${scores[i]}`,
    rationale: null
  })),
  dependencies: []
})

const publication = (slug: string, version: number, day: number) => ({
  entity_type: "protocol",
  slug,
  scorecard_version: version,
  published_at: `2026-02-${String(day).padStart(2, "0")}T09:30:00Z`,
  reasoning: `${slug} v${version} reviewed`,
  actor: "analyst@example.com"
})

const runImport = (content: Record<string, unknown>) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    const sources: ReadonlyArray<ImportSource> = [
      { name: "data.json", content: { format: "ratings-import/v1", questions, ...content } }
    ]
    return yield* importer.apply(yield* importer.validate(sources))
  })

const catchAll = Effect.gen(function* () {
  const rule = id(999)
  yield* (yield* AlertRuleRepository).create({
    id: rule,
    account_id: "acct-pro",
    signing_key: "whsec_dGVzdA==",
    name: null,
    entity_types: [],
    slugs: [],
    events: [],
    channels: { webhook_url: "https://hooks.example/r" },
    created_at: T0
  })
  return rule
})

const sent = (rule: string) =>
  Effect.map(
    Effect.flatMap(DeliveryOutbox, (o) => o.listByRule(rule)),
    // biome-ignore lint/suspicious/noExplicitAny: event bodies are probed field by field in assertions
    (ds) => ds.map((d) => JSON.parse(d.body) as { event: string; data: Record<string, any> })
  )

const latestFigures = (n: number) =>
  Effect.gen(function* () {
    const card = yield* (yield* ScorecardRepository).latest("protocol", id(n), "published")
    const c = Option.getOrThrow(card)
    return { composite_score: c.composite_score, letter_grade: c.letter_grade }
  })

/** Rated protocols hidden each way, and the flags each one is shown with. */
const hiddenWays: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["draft", { status: "draft" }],
  ["scoring", { status: "scoring" }],
  ["approved", { status: "approved" }],
  ["private", { is_private: true }],
  ["inactive", { is_active: false }]
]

export const importVisibilityContract = <D>(target: Target<ImporterPorts, D>) =>
  contract("an import announces the ratings it makes readable", target, (test) => {
    test("an import that only changes status or flags, making a rated entity readable, sends one rating.new with its latest published figures; an entity that stays hidden, becomes hidden or has no rating sends nothing", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        const hidden = hiddenWays.map(([label, over], i) => protocol(`shown-${label}`, i + 1, over))
        const stays = protocol("stays-hidden", 10, { status: "draft" })
        const hides = protocol("goes-private", 11)
        const unrated = protocol("unrated", 12, { status: "draft" })
        const rated = [...hidden, stays, hides]
        yield* runImport({
          entities: [...rated, unrated],
          scorecards: rated.map((e, i) => card(i + 1, e.record.slug, 1, [4, i % 2 === 0 ? 1 : 3])),
          publications: rated.map((e, i) => publication(e.record.slug, 1, i + 1))
        })
        // Only the readable one was announced by its publication.
        assert.deepStrictEqual(
          (yield* sent(rule)).map((b) => [b.event, b.data.entity_slug]),
          [["rating.new", "goes-private"]]
        )
        const show = (e: ReturnType<typeof protocol>) => ({
          ...e,
          record: { ...e.record, status: "published", is_private: false, is_active: true }
        })
        const second = {
          entities: [
            ...hidden.map(show),
            { ...stays, record: { ...stays.record, status: "approved" } },
            { ...hides, record: { ...hides.record, is_private: true } },
            show(unrated)
          ]
        }
        const report = yield* runImport(second)
        assert.strictEqual(report.entities.updated, hidden.length + 3)
        const bodies = yield* sent(rule)
        assert.deepStrictEqual(
          bodies.map((b) => [b.event, b.data.entity_slug]).sort(),
          [
            ["rating.new", "goes-private"],
            ...hiddenWays.map(([label]) => ["rating.new", `shown-${label}`])
          ].sort()
        )
        for (const [i, e] of hidden.entries()) {
          const body = bodies.find((b) => b.data.entity_slug === e.record.slug)!
          assert.strictEqual(body.data.entity_id, e.record.id)
          assert.isNull(body.data.previous)
          assert.deepStrictEqual(body.data.current, yield* latestFigures(i + 1), e.record.slug)
        }
        // The same import again changes nothing and sends nothing.
        yield* runImport(second)
        assert.strictEqual((yield* sent(rule)).length, 1 + hidden.length)
      }))

    test("an import that makes an entity readable and publishes a new version of its rating sends one rating.new with the new figures, never a rating.changed for figures nobody saw", () =>
      Effect.gen(function* () {
        const rule = yield* catchAll
        const e = protocol("one-step", 20, { status: "approved" })
        yield* runImport({
          entities: [e],
          scorecards: [card(20, "one-step", 1, [4, 4])],
          publications: [publication("one-step", 1, 1)]
        })
        assert.deepStrictEqual(yield* sent(rule), [])
        yield* runImport({
          entities: [{ ...e, record: { ...e.record, status: "published" } }],
          scorecards: [card(20, "one-step", 1, [4, 4]), card(20, "one-step", 2, [1, 1])],
          publications: [publication("one-step", 1, 1), publication("one-step", 2, 2)]
        })
        const bodies = yield* sent(rule)
        assert.deepStrictEqual(
          bodies.map((b) => [b.event, b.data.previous, b.data.current]),
          [["rating.new", null, yield* latestFigures(20)]]
        )
        const latest = yield* (yield* ScorecardRepository).latest("protocol", e.record.id, "published")
        assert.strictEqual(Option.getOrThrow(latest).scorecard_version, 2, "the figures announced are v2's")
      }))
  })
