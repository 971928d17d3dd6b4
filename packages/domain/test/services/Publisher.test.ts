import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import type { Question } from "../../src/model/Question.ts"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../../src/ports/DeliveryOutbox.ts"
import { ScorecardRepository, type StoredScorecard } from "../../src/ports/ScorecardRepository.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"
import { atInstant } from "../../src/services/Importer.ts"
import { type PublishAct, Publisher } from "../../src/services/Publisher.ts"
import { entity, scorecard, T0, unscored, uuid } from "./fixtures.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"

const lending = entity("protocol", "lend-protocol", { categories: ["lending"] })
const oracle = entity("oracle", "thin-oracle")
const chain = entity("chain", "gate-chain")

const answer = (question_id: string, domain: string, score: number | null, weight = 1) => ({
  id: uuid(),
  question_id,
  domain,
  score,
  max_score: 4,
  weight,
  confidence: score === null ? ("not_applicable" as const) : ("high" as const),
  response: null,
  rationale: null
})

/** A draft with no stored figures (null figures are not claims). */
const draft = (
  e: typeof lending,
  version: number,
  answers: StoredScorecard["answers"],
  over: Partial<StoredScorecard> = {}
) =>
  scorecard(e, version, "draft", {
    ...unscored,
    domain_weights: { security: 50, governance: 50 },
    answers,
    ...over
  })

const v1 = scorecard(lending, 1, "published", {
  composite_score: 80,
  grade: "A",
  letter_grade: "A",
  domain_scores: { security: 0.8, governance: 0.8 },
  domain_weights: { security: 50, governance: 50 }
})
const v2 = draft(lending, 2, [answer("S1", "security", 4), answer("G1", "governance", 1)], {
  dependencies: [{ entity_type: "oracle", slug: "thin-oracle", exposure: 0.5 }]
})
const oracleCard = scorecard(oracle, 1, "published", { composite_score: 50 })
const chainDraft = draft(chain, 1, [answer("C1", "security", 1), answer("C2", "security", 4)], {
  domain_weights: { security: 100 }
})
const badDraft = draft(entity("protocol", "bad-figures"), 1, [answer("S1", "security", 2)], {
  domain_weights: { security: 100 },
  composite_score: 90
})
const badEntity = {
  ...entity("protocol", "bad-figures"),
  record: { ...entity("protocol", "bad-figures").record, id: badDraft.entity_id }
}

const chainQuestions: ReadonlyArray<Question> = [
  {
    id: "C1",
    entity_type: "chain",
    domain: "security",
    text: "Finality?",
    weight: 1,
    max_score: 4,
    criteria: [],
    position: 1,
    gate: "finality"
  },
  {
    id: "C2",
    entity_type: "chain",
    domain: "security",
    text: "Liveness?",
    weight: 1,
    max_score: 4,
    criteria: [],
    position: 2,
    gate: "liveness"
  }
]

const ports = Layer.mergeAll(
  EntityRepositoryMemory.layer([lending, oracle, chain, badEntity]),
  ScorecardRepositoryMemory.layer({ scorecards: [v1, v2, oracleCard, chainDraft, badDraft] }),
  RubricRepositoryMemory.layer(chainQuestions),
  AlertRuleRepositoryMemory.layer,
  DeliveryOutboxMemory.layer,
  IdGeneratorMemory.layer,
  TransactionMemory.layer,
  Scoring.layer
)
const layer = Publisher.layer.pipe(Layer.provideMerge(ports))

const watch = (slugs: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const rules = yield* AlertRuleRepository
    const id = uuid()
    yield* rules.create({
      id,
      account_id: "acct",
      signing_key: "whsec_dGVzdA==",
      name: null,
      entity_types: [],
      slugs,
      events: [],
      channels: { webhook_url: "https://hooks.example/r" },
      created_at: T0
    })
    return id
  })

describe("Publisher", () => {
  it.effect("publishing computes the figures with the scoring core from the draft's answers", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-09-01T12:00:00Z"))
      const r = yield* (yield* Publisher).publish({
        entity_type: "protocol",
        slug: "lend-protocol",
        reasoning: "governance weakened",
        actor: "analyst@ratings"
      })
      // security 1.0, governance 0.25 -> intrinsic 62.5 (B); oracle at 50 with exposure 0.5 drags to 56.3 (B)
      assert.strictEqual(r.scorecard.intrinsic_composite_score, 62.5)
      assert.strictEqual(r.scorecard.composite_score, 56.3)
      assert.strictEqual(r.scorecard.grade, "B")
      assert.strictEqual(r.scorecard.largest_drag_hint, "oracle: thin-oracle")
      assert.strictEqual(r.scorecard.scorecard_published_at, "2026-09-01T12:00:00+00:00")
      assert.isNull(r.scorecard.mvc_gates)
    }).pipe(Effect.provide(layer))
  )

  it.effect("publishing appends to the history and supersedes the previous published version", () =>
    Effect.gen(function* () {
      yield* (yield* Publisher).publish({
        entity_type: "protocol",
        slug: "lend-protocol",
        reasoning: "governance weakened",
        actor: "analyst"
      })
      const repo = yield* ScorecardRepository
      const history = yield* repo.history("protocol", lending.record.id)
      assert.strictEqual(history[0]!.scorecard_version, 2)
      assert.strictEqual(history[0]!.reasoning, "governance weakened")
      assert.strictEqual(history[0]!.changed_by, "analyst")
      const versions = yield* repo.listForEntity("protocol", lending.record.id)
      assert.deepStrictEqual(
        versions.map((s) => [s.scorecard_version, s.status]),
        [
          [2, "published"],
          [1, "superseded"]
        ]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "publishing emits rating.changed and a grade transition to every matching rule, in the outbox",
    () =>
      Effect.gen(function* () {
        const watching = yield* watch(["lend-protocol"])
        const other = yield* watch(["someone-else"])
        const r = yield* (yield* Publisher).publish({
          entity_type: "protocol",
          slug: "lend-protocol",
          reasoning: "x",
          actor: "a"
        })
        assert.strictEqual(r.deliveries, 2)
        const outbox = yield* DeliveryOutbox
        const sent = yield* outbox.listByRule(watching)
        assert.deepStrictEqual(sent.map((d) => d.event).sort(), ["rating.changed", "rating.grade_transition"])
        const body = JSON.parse(sent.find((d) => d.event === "rating.changed")!.body)
        assert.strictEqual(body.watchlist_id, watching)
        assert.deepStrictEqual(body.data.previous, { composite_score: 80, letter_grade: "A" })
        assert.deepStrictEqual(body.data.current, { composite_score: 56.3, letter_grade: "B" })
        assert.strictEqual((yield* outbox.listByRule(other)).length, 0)
      }).pipe(Effect.provide(layer))
  )

  it.effect("a first publication emits a new-rating event", () =>
    Effect.gen(function* () {
      const watching = yield* watch([])
      yield* (yield* Publisher).publish({
        entity_type: "chain",
        slug: "gate-chain",
        reasoning: "first rating",
        actor: "a"
      })
      const sent = yield* (yield* DeliveryOutbox).listByRule(watching)
      assert.deepStrictEqual(
        sent.map((d) => d.event),
        ["rating.new"]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("chains get mvc_gates computed from their gate questions", () =>
    Effect.gen(function* () {
      const r = yield* (yield* Publisher).publish({
        entity_type: "chain",
        slug: "gate-chain",
        reasoning: "x",
        actor: "a"
      })
      assert.deepStrictEqual(r.scorecard.mvc_gates, { finality: false, liveness: true })
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a draft carrying a figure that disagrees with the computed one is refused and nothing is written",
    () =>
      Effect.gen(function* () {
        const e = yield* Effect.flip(
          (yield* Publisher).publish({
            entity_type: "protocol",
            slug: "bad-figures",
            reasoning: "x",
            actor: "a"
          })
        )
        assert.strictEqual(e._tag, "FiguresDisagree")
        if (e._tag === "FiguresDisagree") assert.include(e.message, "composite_score")
        const still = yield* (yield* ScorecardRepository).latest("protocol", badDraft.entity_id, "published")
        assert.isTrue(Option.isNone(still))
      }).pipe(Effect.provide(layer))
  )

  it.effect("no draft, or no such entity, is a clear error", () =>
    Effect.gen(function* () {
      const p = yield* Publisher
      assert.strictEqual(
        (yield* Effect.flip(
          p.publish({ entity_type: "oracle", slug: "thin-oracle", reasoning: "x", actor: "a" })
        ))._tag,
        "NoDraftScorecard"
      )
      assert.strictEqual(
        (yield* Effect.flip(p.publish({ entity_type: "oracle", slug: "nope", reasoning: "x", actor: "a" })))
          ._tag,
        "EntityNotFound"
      )
    }).pipe(Effect.provide(layer))
  )
})

const twice = entity("protocol", "twice-protocol")
const oracleV2 = draft(oracle, 2, [answer("S1", "security", 4)], { domain_weights: { security: 100 } })
const twiceV1 = draft(twice, 1, [answer("S1", "security", 2)], { domain_weights: { security: 100 } })
const twiceV2 = draft(twice, 2, [answer("S1", "security", 3)], { domain_weights: { security: 100 } })
const RuleId = "00000000-0000-4000-9000-000000000001"

/** A fresh store per call, so that two runs can start from the very same state. */
const manyLayer = () =>
  Publisher.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        EntityRepositoryMemory.layer([lending, oracle, chain, badEntity, twice]),
        ScorecardRepositoryMemory.layer({
          scorecards: [v1, v2, oracleCard, oracleV2, chainDraft, badDraft, twiceV1, twiceV2]
        }),
        RubricRepositoryMemory.layer(chainQuestions),
        AlertRuleRepositoryMemory.layer,
        DeliveryOutboxMemory.layer,
        IdGeneratorMemory.layer,
        TransactionMemory.layer,
        Scoring.layer
      )
    )
  )

const request = (entity_type: "protocol" | "oracle" | "chain", slug: string) => ({
  entity_type,
  slug,
  reasoning: `reviewed ${slug}`,
  actor: "analyst"
})

const acts: ReadonlyArray<PublishAct> = [
  { request: request("oracle", "thin-oracle"), at: Date.parse("2026-09-01T00:00:00Z") },
  { request: request("protocol", "lend-protocol"), at: Date.parse("2026-09-02T00:00:00Z") },
  { request: request("chain", "gate-chain"), at: Date.parse("2026-09-03T00:00:00Z") },
  { request: request("protocol", "twice-protocol"), at: Date.parse("2026-09-04T00:00:00Z") },
  { request: request("protocol", "twice-protocol"), at: Date.parse("2026-09-05T00:00:00Z") }
]

/** Every scorecard and history entry of the entities, and every delivery: all that publishing writes. */
const written = Effect.gen(function* () {
  const repo = yield* ScorecardRepository
  const out: Array<unknown> = []
  for (const e of [lending, oracle, chain, twice, badEntity]) {
    for (const s of yield* repo.listForEntity(e.entity_type, e.record.id))
      out.push(yield* repo.findById(e.entity_type, s.id))
    out.push(yield* repo.history(e.entity_type, e.record.id))
  }
  out.push(yield* (yield* DeliveryOutbox).listByRule(RuleId))
  return out
})

const watchAll = Effect.gen(function* () {
  yield* (yield* AlertRuleRepository).create({
    id: RuleId,
    account_id: "acct",
    signing_key: "whsec_dGVzdA==",
    name: null,
    entity_types: [],
    slugs: [],
    events: [],
    channels: { webhook_url: "https://hooks.example/r" },
    created_at: T0
  })
})

const oneByOne = (xs: ReadonlyArray<PublishAct>) =>
  Effect.gen(function* () {
    const p = yield* Publisher
    for (const a of xs) yield* p.publish(a.request).pipe(atInstant(a.at))
  })

describe("Publisher.publishMany", () => {
  it.effect("writes exactly what publish of each act in order writes, at each act's instant", () =>
    Effect.gen(function* () {
      const sequential = yield* Effect.gen(function* () {
        yield* watchAll
        yield* oneByOne(acts)
        return yield* written
      }).pipe(Effect.provide(manyLayer()))
      const bulk = yield* Effect.gen(function* () {
        yield* watchAll
        const result = yield* (yield* Publisher).publishMany(acts)
        assert.strictEqual(result.published, acts.length)
        assert.isAbove(result.deliveries, acts.length - 1)
        return yield* written
      }).pipe(Effect.provide(manyLayer()))
      assert.deepStrictEqual(bulk, sequential)
    })
  )

  it.effect(
    "a dependency published by an earlier act of the same call counts; a later one does not yet",
    () =>
      Effect.gen(function* () {
        const [oracleAct, lendingAct] = acts as [PublishAct, PublishAct]
        const composite = (order: ReadonlyArray<PublishAct>) =>
          Effect.gen(function* () {
            yield* (yield* Publisher).publishMany(order)
            const card = yield* (yield* ScorecardRepository).latest(
              "protocol",
              lending.record.id,
              "published"
            )
            return Option.getOrThrow(card).composite_score
          }).pipe(Effect.provide(manyLayer()))
        // The new oracle rating (100) is above the protocol's own 62.5: no drag. The old one (50) drags it to 56.3.
        assert.strictEqual(yield* composite([oracleAct, lendingAct]), 62.5)
        assert.strictEqual(yield* composite([{ ...lendingAct, at: oracleAct.at - 1 }, oracleAct]), 56.3)
      })
  )

  it.effect("the first act that would fail fails the call with publish's error, and nothing is written", () =>
    Effect.gen(function* () {
      const before = yield* written
      const bad = { request: request("protocol", "bad-figures"), at: Date.parse("2026-09-06T00:00:00Z") }
      const missing = { request: request("oracle", "no-such-oracle"), at: Date.parse("2026-09-07T00:00:00Z") }
      const error = yield* Effect.flip((yield* Publisher).publishMany([...acts.slice(0, 2), bad, missing]))
      assert.strictEqual(error._tag, "FiguresDisagree")
      assert.deepStrictEqual(yield* written, before)
      const notFound = yield* Effect.flip((yield* Publisher).publishMany([missing, bad]))
      assert.strictEqual(notFound._tag, "EntityNotFound")
    }).pipe(Effect.provide(manyLayer()))
  )

  it.effect("reports progress after each chunk it writes, up to the number of acts", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      yield* (yield* Publisher).publishMany(acts, { onProgress: (n) => seen.push(n) })
      assert.strictEqual(seen.at(-1), acts.length)
      assert.isTrue(seen.every((n, i) => i === 0 || n > seen[i - 1]!))
    }).pipe(Effect.provide(manyLayer()))
  )
})
