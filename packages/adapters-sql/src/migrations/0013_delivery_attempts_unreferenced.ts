/**
 * Migration 0013: the attempt log loses its foreign key to the delivery
 * outbox. Attempt rows are written by one statement only, the recording's,
 * and only for a delivery that same statement has just updated (and so holds
 * locked), so the key's check of every attempt row re-read a row the
 * statement already had. The retention sweep deletes a delivery's attempts
 * with it, as the key's ON DELETE CASCADE did, and sweeps any attempt whose
 * delivery is gone.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE webhook_delivery_attempts
      DROP CONSTRAINT IF EXISTS webhook_delivery_attempts_delivery_id_fkey
  `
})
