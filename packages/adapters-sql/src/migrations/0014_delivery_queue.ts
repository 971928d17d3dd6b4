/**
 * Migration 0014: the outbox's open deliveries indexed in a table of their
 * own, so that recording an attempt is a heap-only update. An update stays on
 * its page with no new index entry only if no indexed column changes, and a
 * partial index's predicate columns count: the due, failed and finished
 * indexes all hung on `status`. Now `webhook_delivery_queue` holds a small row
 * per pending or failed delivery (due time, enqueue order) with the due and
 * failed indexes, and `webhook_deliveries` keeps indexes on columns that
 * never change. The guarded write keeps the queue in step; triggers follow any
 * INSERT, DELETE or TRUNCATE of the outbox. Retention finds old deliveries by
 * creation time (no cycle starts before it).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_delivery_queue (
      delivery_id uuid PRIMARY KEY,
      status text NOT NULL CHECK (status IN ('pending', 'failed')),
      next_attempt_at timestamptz,
      seq bigint NOT NULL,
      CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL)
    )
  `
  yield* sql`
    INSERT INTO webhook_delivery_queue (delivery_id, status, next_attempt_at, seq)
    SELECT delivery_id, status, next_attempt_at, seq FROM webhook_deliveries WHERE status <> 'delivered'
  `
  yield* sql`
    CREATE INDEX webhook_delivery_queue_due ON webhook_delivery_queue (next_attempt_at, seq)
    WHERE status = 'pending'
  `
  yield* sql`CREATE INDEX webhook_delivery_queue_failed ON webhook_delivery_queue (seq DESC) WHERE status = 'failed'`
  yield* sql`
    CREATE FUNCTION webhook_delivery_queue_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_delivery_queue (delivery_id, status, next_attempt_at, seq)
      SELECT delivery_id, status, next_attempt_at, seq FROM inserted WHERE status <> 'delivered';
      RETURN NULL;
    END $$
  `
  yield* sql`
    CREATE FUNCTION webhook_delivery_queue_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM webhook_delivery_queue q USING deleted d WHERE q.delivery_id = d.delivery_id;
      RETURN NULL;
    END $$
  `
  yield* sql`
    CREATE FUNCTION webhook_delivery_queue_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE webhook_delivery_queue;
      RETURN NULL;
    END $$
  `
  yield* sql`
    CREATE TRIGGER webhook_delivery_queue_inserted AFTER INSERT ON webhook_deliveries
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_queue_inserted()
  `
  yield* sql`
    CREATE TRIGGER webhook_delivery_queue_deleted AFTER DELETE ON webhook_deliveries
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_queue_deleted()
  `
  yield* sql`
    CREATE TRIGGER webhook_delivery_queue_truncated AFTER TRUNCATE ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_queue_truncated()
  `
  yield* sql`DROP INDEX webhook_deliveries_due, webhook_deliveries_failed, webhook_deliveries_finished`
  yield* sql`CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)`
})
