/**
 * Child rows written without their per-row foreign-key check, where the parent
 * rows are known to exist. The bulk save of drafts upserts a chunk's scorecard
 * rows and then inserts their answers and evidence: the upsert has just
 * written (or, for a stored one, locked by `ON CONFLICT ... DO UPDATE`) every
 * parent, so the check each child row's trigger makes again, one lookup per
 * row, is most of what Postgres does for the import. `session_replication_role
 * = replica` skips those triggers for the statements in between, for this
 * transaction only (`set_config(..., true)`: a rollback to a savepoint or of
 * the transaction restores it too). The parents are then checked once, as a
 * set, in the statement that restores the role, and a missing one fails the
 * write as the foreign key would. Publishing a chunk of drafts updates rows
 * this transaction inserted, whose foreign key the update does not change
 * (Postgres checks it again for such rows), and appends history rows of
 * entities it has just locked: the same holds there. Only a superuser may
 * change the role; anyone else keeps the per-row checks. The tables written
 * this way have no other triggers (a test keeps it so): one added to them
 * would be skipped here too.
 */
import type { PgClient } from "@effect/sql-pg"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Schema } from "effect"
import { decodeRows, orReadError } from "../PgRows.ts"

const flagRows = decodeRows(Schema.Struct({ yes: Schema.Boolean }))
const roleRows = decodeRows(Schema.Struct({ was: Schema.String }))
const restoredRows = decodeRows(Schema.Struct({ missing: Schema.Number }))

/** Whether this session may switch the per-row triggers off (`is_superuser`). */
export const maySkipRowTriggers = (sql: PgClient.PgClient) =>
  sql`SELECT current_setting('is_superuser') = 'on' AS yes`.pipe(
    Effect.flatMap((rows) => orReadError("session privileges")(flagRows(rows))),
    Effect.map((rows) => rows[0]?.yes === true)
  )

/** The parent rows a write without row triggers relies on: ids of `scorecards` or `entities`. */
export interface Parents {
  readonly table: "scorecards" | "entities"
  readonly ids: ReadonlyArray<string>
}

/**
 * Runs `writes` (of rows whose parents are `parents`) without per-row
 * triggers, then restores the role and checks that every parent is stored;
 * fails with a StoreError saying how many are not.
 */
export const withoutRowTriggers = <A, E, R>(
  sql: PgClient.PgClient,
  parents: Parents,
  writes: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const [set] = yield* sql`SELECT current_setting('session_replication_role') AS was,
        set_config('session_replication_role', 'replica', true) AS now`.pipe(
      Effect.flatMap((rows) => orReadError("session replication role")(roleRows(rows)))
    )
    const result = yield* writes
    const [check] =
      yield* sql`SELECT set_config('session_replication_role', ${set?.was ?? "origin"}, true) AS was,
        (SELECT count(*)::int FROM unnest(${parents.ids}::uuid[]) AS p(id)
          WHERE NOT EXISTS (SELECT 1 FROM ${sql.literal(parents.table)} t WHERE t.id = p.id)) AS missing`.pipe(
        Effect.flatMap((rows) => orReadError("restored replication role")(restoredRows(rows)))
      )
    if ((check?.missing ?? 0) > 0)
      return yield* new StoreError({
        message: `write without row triggers: ${check?.missing} of the ${parents.table} the rows belong to are not stored (foreign key)`
      })
    return result
  })
