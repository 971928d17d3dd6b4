/**
 * Rows written without their per-row foreign-key triggers where the parents
 * are known to exist: the bulk save's answers and evidence, after the upsert
 * that wrote or locked their scorecards; a publication's updates (which
 * change no key of rows this transaction inserted) and history rows, after
 * their entities are locked. `session_replication_role = replica` is set for
 * the transaction only, and the statement that restores it checks the
 * parents once, as a set. Only a superuser may set it; others keep the
 * per-row checks. These tables have no other triggers (a test keeps it so).
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
 * fails with a StoreError saying how many are not, as the foreign key would.
 * The role is set with `set_config(..., true)`: a rollback of the transaction
 * or to a savepoint restores it as well.
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
