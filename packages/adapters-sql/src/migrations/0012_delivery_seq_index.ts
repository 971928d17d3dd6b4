/**
 * Migration 0012: the delivery outbox's `seq` loses its UNIQUE index. No
 * query looks a delivery up by `seq` or scans it alone: the due, per-rule and
 * failed indexes each carry it for their order. Every enqueue and every
 * recorded attempt (a status change, never a heap-only update) paid an entry
 * in it. `seq` stays an identity column, so its values stay unique.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_seq_key`
})
