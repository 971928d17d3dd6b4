/**
 * Migration 0015: room on every page of the delivery outbox for two more
 * versions of each of its rows, the claim's and the record's. Both are
 * heap-only updates (migration 0014) if the new version fits on the row's
 * page; at half-full pages the claim took the room, and the record's version
 * fit only once the page was pruned of the claimed row's old version, which
 * any transaction open anywhere on the server (other databases included)
 * defers. Pages written from now on are kept a third full.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries SET (fillfactor = 33)`
})
