/**
 * `latestOf` given the answers of drafts an import saved, held in its answer
 * table: they stay in the table (no answer made) when every id is spelled as
 * Postgres spells it, and are copied with their ids lower-cased otherwise;
 * the rows are read as ever.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { answerSliceOf } from "@ratings/domain/import/ImportAnswerTable"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import {
  answer,
  entity,
  scorecard,
  tableBacked
} from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Effect, Layer } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

describe("latestOf with answers saved in an answer table", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("keeps them in the table when their ids are lower-case, else copies them lower-cased", () =>
      Effect.gen(function* () {
        const repo = yield* ScorecardRepository
        const sql = yield* PgClient.PgClient
        const [e, f] = ["compact-lower", "compact-upper"].map((s) => entity("protocol", s)) as [
          ReturnType<typeof entity>,
          ReturnType<typeof entity>
        ]
        yield* (yield* EntityRepository).upsert([e, f])
        const lower = scorecard(e, 1, "draft")
        const upper = scorecard(f, 1, "draft", {
          answers: [answer("Q-1", "security", 2, { id: "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D" })]
        })
        yield* repo.saveDrafts([lower, upper])
        yield* sql`UPDATE scorecards SET composite_score = 12.5 WHERE id = ${lower.id}::uuid`
        const reads = { n: 0 }
        const saved = new Map([
          [lower.id.toLowerCase(), tableBacked(lower, reads)],
          [upper.id.toLowerCase(), tableBacked(upper, { n: 0 })]
        ])
        const latest = yield* repo.latestOf("protocol", [e.record.id, f.record.id], "draft", saved)
        const found = latest.find((s) => s.id === lower.id)!
        const copied = latest.find((s) => s.id === upper.id)!
        assert.strictEqual(reads.n, 0, "no answer made")
        assert.isDefined(answerSliceOf(found), "left in the table")
        assert.strictEqual(found.composite_score, 12.5, "the row is read")
        assert.deepStrictEqual(found.evidence, lower.evidence)
        assert.deepStrictEqual(found.answers, lower.answers)
        assert.isUndefined(answerSliceOf(copied))
        assert.deepStrictEqual(copied.answers, [
          { ...upper.answers[0]!, id: upper.answers[0]!.id.toLowerCase() }
        ])
        // Read back without the caller's answers: the same scorecards.
        const plain = yield* repo.latestOf("protocol", [e.record.id, f.record.id], "draft")
        assert.deepStrictEqual(
          plain.find((s) => s.id === lower.id),
          { ...found, answers: found.answers }
        )
        assert.deepStrictEqual(
          plain.find((s) => s.id === upper.id),
          copied
        )
      }).pipe(Effect.provide(postgres))
    )
  })
})
