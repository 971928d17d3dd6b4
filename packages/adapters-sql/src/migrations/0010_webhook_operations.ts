/**
 * Migration 0010: what operating webhooks needs. On alert_rules, the health
 * of the rule's endpoint (failing since when, disabled when and why) and the
 * previous signing key during a rotation's overlap (sealed, as the current
 * one, and dropped when the overlap ends). Indexes for the retention sweep:
 * finished deliveries by when their last cycle started, attempts by age.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE alert_rules
      ADD COLUMN failing_since timestamptz,
      ADD COLUMN disabled_at timestamptz,
      ADD COLUMN disabled_reason text CHECK (char_length(disabled_reason) <= 500),
      ADD COLUMN previous_key_sealed text CHECK (previous_key_sealed LIKE 'v1:%'),
      ADD COLUMN previous_key_expires_at timestamptz,
      ADD CHECK ((previous_key_sealed IS NULL) = (previous_key_expires_at IS NULL)),
      ADD CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
  `
  yield* sql`
    CREATE INDEX alert_rules_previous_key ON alert_rules (previous_key_expires_at)
    WHERE previous_key_expires_at IS NOT NULL
  `
  yield* sql`
    CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (COALESCE(first_attempt_at, created_at))
    WHERE status <> 'pending'
  `
  yield* sql`CREATE INDEX webhook_delivery_attempts_started ON webhook_delivery_attempts (started_at)`
})
