/**
 * Migration 0008: the receipts of coverage requests. Every accepted POST
 * /api/v1/contacts is answered a reference id of its own, whether it started
 * a request or repeated an open one; each is recorded here against the one
 * stored request it belongs to, so an operator given any reference id finds
 * the request (`ratings contacts list --json`, `ratings contacts close`).
 * The first receipt of a request has the request's own id; the requests
 * stored before this migration get that receipt here.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE contact_receipts (
      id uuid PRIMARY KEY,
      request_id uuid NOT NULL REFERENCES contact_requests (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX contact_receipts_request ON contact_receipts (request_id, created_at, id)`
  yield* sql`INSERT INTO contact_receipts (id, request_id, created_at) SELECT id, id, created_at FROM contact_requests`
})
