/**
 * Migration 0011: room on every page of the delivery outbox for the claim of
 * each of its rows. A claim changes only the lease and the claim token, which
 * no index covers, so with room on the row's page Postgres writes the claim
 * as a heap-only update: no new entry in any of the table's indexes, and the
 * claim query's scan of the due index does not grow with each claim. Pages
 * written from now on are kept half full; the outbox is pruned, so the table
 * stays small.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries SET (fillfactor = 50)`
})
