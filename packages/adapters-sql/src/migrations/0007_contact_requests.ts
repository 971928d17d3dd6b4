/**
 * Migration 0007: coverage requests (POST /api/v1/contacts, `ratings contacts
 * list|close`), one row per request. `entity_key` and `email_key` are the
 * domain's `contactKeysOf`; the partial unique index on them over open rows
 * keeps one open request per entity and address, however many identical
 * requests arrive at once, and a closed request blocks nothing. The checks
 * repeat the bounds the API enforces, so nothing else can store a request
 * the API would refuse.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE contact_requests (
      id uuid PRIMARY KEY,
      protocol_name text NOT NULL CHECK (char_length(protocol_name) BETWEEN 1 AND 200),
      entity_type text CHECK (entity_type IN
        ('protocol', 'chain', 'token', 'oracle', 'vault', 'organisation', 'bridge')),
      contact_email text NOT NULL CHECK (char_length(contact_email) BETWEEN 3 AND 254),
      request_type text NOT NULL CHECK (request_type IN ('rating-request', 're-rating', 'correction', 'other')),
      message text CHECK (char_length(message) <= 2000),
      entity_key text NOT NULL CHECK (entity_key <> ''),
      email_key text NOT NULL CHECK (email_key <> ''),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
      created_at timestamptz NOT NULL,
      closed_at timestamptz,
      CONSTRAINT contact_requests_closed_at CHECK ((status = 'closed') = (closed_at IS NOT NULL))
    )
  `
  yield* sql`
    CREATE UNIQUE INDEX contact_requests_open_once ON contact_requests (entity_key, email_key)
    WHERE status = 'open'
  `
  yield* sql`CREATE INDEX contact_requests_status_time ON contact_requests (status, created_at, id)`
})
