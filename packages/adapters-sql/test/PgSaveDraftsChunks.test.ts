/**
 * saveDrafts over more scorecards than one statement takes: its chunks are
 * written one after another while the next one's parameters are built (a
 * fiber of the same transaction), so what lands is what one save of each
 * would write, chunks mixing new and stored scorecards included, and a
 * failure in a later chunk leaves nothing of the earlier ones.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository, type StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { entity, scorecard } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Effect, Exit, Layer } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

/** More drafts than three statements of saveDrafts take (250 scorecards each). */
const Drafts = 640

const counts = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  const [row] = yield* sql<{ scorecards: number; answers: number; evidence: number }>`
    SELECT (SELECT count(*)::int FROM scorecards) AS scorecards, (SELECT count(*)::int FROM answers) AS answers,
      (SELECT count(*)::int FROM evidence) AS evidence`
  return row!
})

describe("saveDrafts over several chunks", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("writes every chunk as one save of each draft would, new and stored scorecards mixed", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const es = Array.from({ length: Drafts }, (_, i) => entity("protocol", `chunked-${i}`))
        yield* (yield* EntityRepository).upsert(es)
        const drafts = es.map((e) => scorecard(e, 1, "draft"))
        // Every third one stored first, some with other answers: later chunks mix stored and new.
        const early = drafts.filter((_, i) => i % 3 === 0)
        yield* repo.saveDrafts(
          early.map((d, i) => (i % 2 === 0 ? { ...d, answers: d.answers.slice(0, 1) } : d))
        )
        yield* repo.saveDrafts(drafts)
        const answers = drafts.reduce((n, d) => n + d.answers.length, 0)
        const evidence = drafts.reduce((n, d) => n + d.evidence.length, 0)
        assert.deepStrictEqual(yield* counts, { scorecards: Drafts, answers, evidence })
        const stored = yield* repo.latestOf(
          "protocol",
          es.map((e) => e.record.id),
          "draft"
        )
        const byId = new Map<string, StoredScorecard>(stored.map((s) => [s.id, s]))
        for (const d of drafts) assert.deepStrictEqual(byId.get(d.id), d)
      }).pipe(Effect.provide(postgres))
    )

    it.effect("answers' texts and figures come back exactly as saved (binary array parameters)", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const e = entity("protocol", "chunked-texts")
        yield* (yield* EntityRepository).upsert([e])
        const base = scorecard(e, 1, "draft")
        const texts = [
          'say "no"',
          "back\\slash",
          "{braces, and commas}",
          "NULL",
          "",
          "ünïcödé ✓ 日本",
          "tab\tnew\nline"
        ]
        const draft = {
          ...base,
          answers: texts.map((text, i) => {
            // The first two from the scored answer: figures that only a binary float8 keeps exactly.
            const from = base.answers[i < 2 ? 0 : i % base.answers.length]!
            return {
              ...from,
              id: `00000000-0000-4000-8000-00000000000${i}`,
              question_id: `Q-${text}`,
              response: text,
              rationale: i % 2 === 0 ? null : text,
              score: i === 0 ? 0.1 + 0.2 : i === 1 ? 5e-324 : from.score
            }
          })
        }
        yield* repo.saveDrafts([draft])
        assert.deepStrictEqual(yield* repo.latestOf("protocol", [e.record.id], "draft"), [draft])
      }).pipe(Effect.provide(postgres))
    )

    it.effect(
      "a stored draft saved again without answers or evidence loses them, alone or beside others",
      () =>
        Effect.gen(function* () {
          const repo = yield* ScorecardRepository
          const es = ["bare", "full"].map((s) => entity("protocol", `chunked-emptied-${s}`))
          yield* (yield* EntityRepository).upsert(es)
          const [bare, full] = es.map((e) => scorecard(e, 1, "draft")) as [StoredScorecard, StoredScorecard]
          yield* repo.saveDrafts([bare, full])
          const emptied = { ...bare, answers: [], evidence: [] }
          yield* repo.saveDrafts([emptied])
          const read = () =>
            repo.latestOf(
              "protocol",
              es.map((e) => e.record.id),
              "draft"
            )
          assert.deepStrictEqual(
            new Map((yield* read()).map((s) => [s.id, s])),
            new Map([
              [bare.id, emptied],
              [full.id, full]
            ])
          )
          yield* repo.saveDrafts([bare, { ...full, answers: [], evidence: [] }])
          assert.deepStrictEqual(
            new Map((yield* read()).map((s) => [s.id, s])),
            new Map([
              [bare.id, bare],
              [full.id, { ...full, answers: [], evidence: [] }]
            ])
          )
        }).pipe(Effect.provide(postgres))
    )

    it.effect("reads each scorecard's answers once, built afresh on each read as the import's are", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const es = Array.from({ length: 300 }, (_, i) => entity("protocol", `chunked-reads-${i}`))
        yield* (yield* EntityRepository).upsert(es)
        const reads = new Map<string, number>()
        // Every third one stored first: the second save mixes stored and new scorecards.
        const counted = (d: StoredScorecard): StoredScorecard => {
          const { answers, ...rest } = d
          return Object.defineProperty({ ...rest }, "answers", {
            enumerable: true,
            get: () => {
              reads.set(d.id, (reads.get(d.id) ?? 0) + 1)
              return answers.map((a) => ({ ...a }))
            }
          }) as StoredScorecard
        }
        const drafts = es.map((e) => scorecard(e, 1, "draft"))
        yield* repo.saveDrafts(drafts.filter((_, i) => i % 3 === 0))
        yield* repo.saveDrafts(drafts.map(counted))
        assert.deepStrictEqual(
          [...new Set(reads.values())],
          [1],
          "each scorecard's answers are read exactly once"
        )
        assert.strictEqual(reads.size, drafts.length)
      }).pipe(Effect.provide(postgres))
    )

    it.effect("leaves nothing of the earlier chunks when a later one fails", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        yield* sql`TRUNCATE entities, scorecards CASCADE`
        const repo = yield* ScorecardRepository
        const es = Array.from({ length: Drafts }, (_, i) => entity("protocol", `chunked-fail-${i}`))
        yield* (yield* EntityRepository).upsert(es)
        const drafts = es.map((e) => scorecard(e, 1, "draft"))
        // The last draft's entity is not stored: its chunk (the third) fails on the foreign key.
        const orphan = scorecard(entity("protocol", "chunked-nowhere"), 1, "draft")
        const exit = yield* Effect.exit(repo.saveDrafts([...drafts, orphan]))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "scorecards_entity")
        assert.deepStrictEqual(yield* counts, { scorecards: 0, answers: 0, evidence: 0 })
      }).pipe(Effect.provide(postgres))
    )
  })
})
