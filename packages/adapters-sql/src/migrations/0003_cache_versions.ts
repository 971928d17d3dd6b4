/**
 * Migration 0003: one version counter per entity type, for the response cache
 * of every server process (docs/adr/0007-projection-cache.md). Every write of
 * an entity, a published scorecard or a rubric bumps its type's counter in its
 * own transaction (PgCacheInvalidation.notifyChanges); a cache serves an entry
 * only while the counter still reads what it read before computing it. The
 * seven types are written out (a migration is a snapshot), with no CHECK on
 * the type: `notifyChanges` upserts, so a type added later gets its row on
 * its first write instead of making that write fail.
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
