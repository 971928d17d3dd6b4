/**
 * Migration 0004: incidents' date-times in the wire form. Incidents keep each
 * date-time twice: as `timestamptz` (filters and order) and as text
 * (`*_text`, served as stored). This rewrites the text of rows stored while
 * it kept its source's spelling (`Z`, `-04:00`, ...) from their
 * `timestamptz`, the same instant, in the form every timestamp the service
 * writes takes (`canonicalTimestamp` of the domain's model/Primitives.ts), so
 * old rows are served like new ones.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The wire form of a timestamptz column, as SQL. */
const wire = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')` +
  ` || CASE WHEN date_part('microseconds', ${column})::bigint % 1000000 = 0 THEN ''` +
  ` ELSE '.' || to_char(${column} AT TIME ZONE 'UTC', 'US') END || '+00:00'`

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    UPDATE incidents SET
      first_seen_at_text = ${wire("first_seen_at")},
      detected_at_text = CASE WHEN detected_at IS NULL THEN NULL ELSE ${wire("detected_at")} END,
      resolved_at_text = CASE WHEN resolved_at IS NULL THEN NULL ELSE ${wire("resolved_at")} END
  `)
})
