/**
 * The ScorecardRepository port on Postgres. A scorecard is a row of
 * `scorecards` (figures as columns, maps as jsonb) with its answers and
 * evidence in their own tables, in canonical order by position; the rating
 * history is `rating_history`, one row per entity and version. By concern:
 * the reads (scorecards/ScorecardReads.ts), the single-scorecard writes
 * (ScorecardWrites.ts), the set-based bulk writes `saveDrafts` and
 * `publishMany` (ScorecardBulk.ts), and the rows (ScorecardRows.ts).
 */
import { PgClient } from "@effect/sql-pg"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Layer } from "effect"
import { bulk } from "./scorecards/ScorecardBulk.ts"
import {
  entityWithHistory,
  entityWithLatestPublished,
  entityWithScorecards
} from "./scorecards/EntityWithScorecards.ts"
import { reads } from "./scorecards/ScorecardReads.ts"
import { writes } from "./scorecards/ScorecardWrites.ts"

export { latestPublishedStatement } from "./scorecards/ScorecardReads.ts"
export { arrayLiteral, toScorecard } from "./scorecards/ScorecardRows.ts"

export const make = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  return ScorecardRepository.of({
    ...reads(sql),
    entityWithScorecards: entityWithScorecards(sql),
    entityWithHistory: entityWithHistory(sql),
    entityWithLatestPublished: entityWithLatestPublished(sql),
    ...writes(sql),
    ...bulk(sql)
  })
})

export const layer: Layer.Layer<ScorecardRepository, never, PgClient.PgClient> = Layer.effect(
  ScorecardRepository,
  make
)
