/**
 * The import's bulk path (ScorecardRepository.saveDrafts and publishMany,
 * Publisher.publishMany) against the one-at-a-time path it replaces (saveDraft
 * and publish of each, the Publisher's single act replayed at each instant):
 * the same imports through both must leave every table with the same rows.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import type { ImportSource } from "@ratings/domain/import/ImportJsonText"
import { changedNothing, type ImportReport } from "@ratings/domain/import/ImportPlan"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { atInstant, Importer } from "@ratings/domain/services/Importer"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { Publisher } from "@ratings/domain/services/Publisher"
import { Effect, Layer, Redacted } from "effect"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgIncidentRepository from "../src/PgIncidentRepository.ts"
import * as PgQuantumSnapshotStore from "../src/PgQuantumSnapshotStore.ts"
import * as PgRubricRepository from "../src/PgRubricRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import * as PgTransaction from "../src/PgTransaction.ts"
import { SecretBox } from "../src/SecretBox.ts"
import { TestDatabase } from "./TestDatabase.ts"
import { IdGeneratorMemory } from "@ratings/domain/ports/memory/IdGeneratorMemory"

const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

const storesWith = <E>(scorecards: Layer.Layer<ScorecardRepository, E, PgClient.PgClient>) =>
  Layer.mergeAll(
    PgEntityRepository.layer,
    scorecards,
    PgRubricRepository.layer,
    PgTransaction.layer,
    PgIncidentRepository.layer,
    PgIncidentRepository.layerRatedProtocols,
    PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layer(serverKey))),
    PgDeliveryOutbox.layer,
    PgQuantumSnapshotStore.layer,
    IdGeneratorMemory.layer,
    Scoring.layer
  )

const importerWith = <E1, E2>(
  scorecards: Layer.Layer<ScorecardRepository, E1, PgClient.PgClient>,
  publisher: Layer.Layer<Publisher, E2, Layer.Success<ReturnType<typeof storesWith>>>
) =>
  Importer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(publisher, IncidentService.layer)),
    Layer.provideMerge(storesWith(scorecards))
  )

const bulkPath = importerWith(PgScorecardRepository.layer, Publisher.layer)

/** saveDrafts and publishMany as saveDraft and publish of each; publishMany as publish of each at its instant. */
const oneByOnePath = importerWith(
  Layer.effect(
    ScorecardRepository,
    Effect.map(ScorecardRepository, (r) =>
      ScorecardRepository.of({
        ...r,
        saveDrafts: (cards) => Effect.forEach(cards, r.saveDraft, { discard: true }),
        publishMany: (records) => Effect.forEach(records, r.publish, { discard: true })
      })
    )
  ).pipe(Layer.provide(PgScorecardRepository.layer)),
  Layer.effect(
    Publisher,
    Effect.map(Publisher, (p) =>
      Publisher.of({
        ...p,
        publishMany: (acts) =>
          Effect.map(
            Effect.forEach(acts, (a) => p.publish(a.request).pipe(atInstant(a.at))),
            (results) => ({
              published: results.length,
              deliveries: results.reduce((n, r) => n + r.deliveries, 0)
            })
          )
      })
    )
  ).pipe(Layer.provide(Publisher.layer))
)

// ---------------------------------------------------------------------------
// The dataset: three types, dependencies published before and after their
// dependents, an entity rated twice with a later draft left over, evidence,
// imported history, chains with gate questions, rules that match.

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
const T0 = "2026-01-01T00:00:00Z"

const question = (
  entity_type: string,
  qid: string,
  domain: string,
  position: number,
  gate?: string | null
) => ({
  id: qid,
  entity_type,
  domain,
  text: `${qid}?`,
  weight: position % 2 === 0 ? 2 : 1,
  max_score: 4,
  criteria: [
    { score: 0, description: "no" },
    { score: 4, description: "yes" }
  ],
  position,
  ...(gate === undefined ? {} : { gate })
})

const questions = [
  question("chain", "C-SEC-1", "security", 1, "finality"),
  question("chain", "C-SEC-2", "security", 2, "liveness"),
  question("chain", "C-GOV-1", "governance", 3, null),
  question("oracle", "O-SEC-1", "security", 1),
  question("oracle", "O-GOV-1", "governance", 2),
  question("protocol", "P-SEC-1", "security", 1),
  question("protocol", "P-SEC-2", "security", 2),
  question("protocol", "P-GOV-1", "governance", 3)
]

const entity = (entity_type: string, slug: string, n: number) => ({
  entity_type,
  record: {
    id: id(n),
    name: slug,
    slug,
    status: "published",
    categories: [],
    chains: [],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: false,
    created_at: T0,
    updated_at: T0
  }
})

const answers = (n: number, type: string, scores: ReadonlyArray<number | null>) =>
  questions
    .filter((q) => q.entity_type === type)
    .map((q, i) => ({
      id: id(n * 100 + i),
      question_id: q.id,
      domain: q.domain,
      score: scores[i] ?? null,
      max_score: 4,
      weight: q.weight,
      confidence: scores[i] === null ? "not_applicable" : "high",
      response: `level ${scores[i]}`,
      rationale: i === 0 ? 'said "fine", \\ {ok}' : null
    }))

const card = (
  n: number,
  entity_type: string,
  slug: string,
  version: number,
  scores: ReadonlyArray<number | null>,
  dependencies: ReadonlyArray<{ entity_type: string; slug: string; exposure: number }> = [],
  more: Record<string, unknown> = {}
) => ({
  id: id(n),
  entity_type,
  slug,
  scorecard_version: version,
  domain_weights: { security: 60, governance: 40 },
  answers: answers(n, entity_type, scores),
  dependencies,
  ...more
})

const publication = (entity_type: string, slug: string, version: number, day: number) => ({
  entity_type,
  slug,
  scorecard_version: version,
  published_at: `2026-02-${String(day).padStart(2, "0")}T09:30:00+01:00`,
  reasoning: `${slug} v${version} reviewed`,
  actor: "analyst@example.com"
})

const dataset = (lateScores: ReadonlyArray<number>) => ({
  format: "ratings-import/v1",
  questions,
  entities: [
    entity("chain", "base-chain", 1),
    entity("chain", "l2-chain", 2),
    entity("oracle", "feed-oracle", 3),
    entity("oracle", "late-oracle", 4),
    entity("protocol", "lend-a", 5),
    entity("protocol", "lend-b", 6),
    entity("oracle", "legacy-oracle", 7)
  ],
  scorecards: [
    card(101, "chain", "base-chain", 1, [4, 3, 2]),
    card(
      102,
      "chain",
      "l2-chain",
      1,
      [1, 4, 4],
      [{ entity_type: "chain", slug: "base-chain", exposure: 0.4 }]
    ),
    card(103, "oracle", "feed-oracle", 1, [3, 3], [], {
      evidence: [
        {
          question_id: "O-SEC-1",
          evidence: [{ kind: "audit", url: "https://example.com/a.pdf", excerpt: "ok", collected_at: T0 }],
          reasoning: "audited twice"
        }
      ]
    }),
    card(104, "oracle", "late-oracle", 1, [1, 0]),
    card(
      105,
      "protocol",
      "lend-a",
      1,
      [4, 4, 3],
      [
        { entity_type: "oracle", slug: "feed-oracle", exposure: 0.5 },
        { entity_type: "chain", slug: "base-chain", exposure: 0.3 }
      ]
    ),
    card(
      106,
      "protocol",
      "lend-a",
      2,
      [2, null, 1],
      [{ entity_type: "oracle", slug: "feed-oracle", exposure: 0.5 }]
    ),
    card(107, "protocol", "lend-a", 3, lateScores),
    card(
      108,
      "protocol",
      "lend-b",
      1,
      [4, 4, 4],
      [
        { entity_type: "protocol", slug: "lend-a", exposure: 0.6 },
        { entity_type: "oracle", slug: "late-oracle", exposure: 0.9 }
      ]
    )
  ],
  history: [
    {
      entity_type: "oracle",
      slug: "legacy-oracle",
      entries: [
        {
          scorecard_id: id(190),
          scorecard_version: 1,
          grade: "B",
          letter_grade: "B",
          composite_score: 61,
          intrinsic_composite_score: 61,
          intrinsic_letter_grade: "B",
          published_at: "2025-01-01T00:00:00Z",
          reasoning: "rated before the service existed"
        }
      ]
    }
  ],
  publications: [
    publication("chain", "base-chain", 1, 1),
    publication("oracle", "feed-oracle", 1, 2),
    publication("protocol", "lend-a", 1, 3),
    publication("chain", "l2-chain", 1, 4),
    publication("protocol", "lend-b", 1, 5),
    publication("oracle", "late-oracle", 1, 6),
    publication("protocol", "lend-a", 2, 7)
  ]
})

const rules = Effect.gen(function* () {
  const repo = yield* AlertRuleRepository
  const rule = (n: number, over: Record<string, ReadonlyArray<string>>) =>
    repo.create({
      id: id(900 + n),
      account_id: "acct",
      signing_key: "whsec_dGVzdA==",
      name: null,
      entity_types: [],
      slugs: [],
      events: [],
      channels: { webhook_url: "https://hooks.example/r" },
      created_at: T0,
      ...over
    })
  yield* rule(1, {})
  yield* rule(2, { slugs: ["lend-a"], events: ["rating.changed"] })
  yield* rule(3, { entity_types: ["chain"] })
})

const Tables = [
  "entities",
  "questions",
  "scorecards",
  "answers",
  "evidence",
  "rating_history",
  "webhook_deliveries"
]

/** Every row of every table the import writes, as text. */
const rows = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  const out: Record<string, ReadonlyArray<string>> = {}
  for (const table of Tables)
    out[table] = (yield* sql<{
      row: string
    }>`SELECT to_jsonb(t)::text AS row FROM ${sql(table)} t ORDER BY 1`).map((r) => r.row)
  return out
})

const source = (content: unknown): ReadonlyArray<ImportSource> => [{ name: "data.json", content }]

/** A fresh database state, the rules, then three imports: new, the same again, one late draft changed. */
const run = (path: typeof bulkPath) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    yield* sql`TRUNCATE entities, questions, scorecards, answers, evidence, rating_history, alert_rules,
      webhook_deliveries RESTART IDENTITY CASCADE`
    const snapshots: Array<unknown> = []
    yield* Effect.gen(function* () {
      yield* rules
      const importer = yield* Importer
      for (const content of [dataset([1, 2, 3]), dataset([1, 2, 3]), dataset([3, 2, 1])]) {
        const report = yield* importer.apply(yield* importer.validate(source(content)))
        snapshots.push(report, yield* rows)
      }
    }).pipe(Effect.provide(path))
    return snapshots
  })

describe("the import's bulk path", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("writes exactly the rows of the one-at-a-time path, on a first import and on re-imports", () =>
      Effect.gen(function* () {
        const expected = yield* run(oneByOnePath)
        const actual = yield* run(bulkPath)
        const first = expected[1] as Record<string, ReadonlyArray<string>>
        assert.isTrue(changedNothing(expected[2] as ImportReport), "the same import again changes nothing")
        // The dataset reaches what it is meant to: publications, deliveries, evidence, history.
        assert.strictEqual(first.rating_history!.length, 8)
        assert.isAbove(first.webhook_deliveries!.length, 10)
        assert.strictEqual(first.evidence!.length, 1)
        assert.deepStrictEqual(actual, expected)
      })
    )
  })
})
