/**
 * The answers of a scorecard as stored, every column as its bytes
 * (`float8send`: -0 is not 0), for tests that compare two ways of writing them.
 */
import type { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"

export const answerBytes = (sql: PgClient.PgClient, scorecardId: string) =>
  sql<{ readonly row: string }>`SELECT concat_ws('|', position, id, question_id, domain, float8send(score),
      float8send(max_score), float8send(weight), confidence, response, rationale,
      score IS NULL, domain IS NULL, confidence IS NULL, response IS NULL, rationale IS NULL) AS row
    FROM answers WHERE scorecard_id = ${scorecardId}::uuid ORDER BY position`.pipe(
    Effect.map((rows) => rows.map((r) => r.row))
  )
