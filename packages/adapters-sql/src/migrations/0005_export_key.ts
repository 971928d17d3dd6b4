/**
 * Migration 0005: the API key that made each export.
 *
 * The export log recorded the account; an account can hold several keys (a
 * desk's people, its services), so a leaked file could be traced to the
 * account but not to the key that pulled it. `key_id` names the key; it is
 * null for exports made with an admin token (their account is
 * `admin:<subject>`) and for exports recorded before this migration.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE export_log ADD COLUMN key_id text`
})
