/**
 * Migration 0003: one version counter per entity type, for the response cache
 * of every server process (docs/adr/0007-projection-cache.md).
 *
 * Every write of an entity, a published scorecard or a rubric bumps its
 * type's counter in its own transaction (PgCacheInvalidation.notifyChanges),
 * so once the write has committed, any transaction that starts later reads the
 * new value. A cache serves an entry only while the counter of its type still
 * reads what it read before computing the entry: correctness no longer waits
 * for the NOTIFY to arrive.
 *
 * The seven types are written out (a migration is a snapshot). No CHECK on
 * the type: `notifyChanges` upserts, so a type added later gets its row on its
 * first write instead of making that write fail.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE cache_versions (
      entity_type text PRIMARY KEY,
      version bigint NOT NULL DEFAULT 0 CHECK (version >= 0)
    )
  `
  yield* sql`
    INSERT INTO cache_versions (entity_type)
    VALUES ('protocol'), ('chain'), ('token'), ('oracle'), ('vault'), ('organisation'), ('bridge')
  `
})
