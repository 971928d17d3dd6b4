/**
 * Migration 0008: the token of the claim that holds a delivery's lease.
 *
 * A claim may be handed back before its lease ends (a stopping server's
 * deliveries claimed but not started, `releaseClaims`). The token names the
 * claim, so the release ends that claim only: never one taken since by
 * another process, or by the same one after the lease ran out. NULL while
 * the delivery is not claimed, or was claimed without a token.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN claim_token text`
})
