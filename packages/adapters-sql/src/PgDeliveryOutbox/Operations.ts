/**
 * The outbox's operations beside delivery: holding a disabled endpoint's
 * delivery, bulk re-fire (the domain's transitions, written as one batch of
 * guarded writes) and the retention sweep, which removes finished deliveries
 * and old attempts in bounded batches, each a short statement that takes
 * rows no claim holds (`SKIP LOCKED`), so it never waits on the dispatcher.
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { Delivery } from "@ratings/domain/model/Delivery"
import type { RefireFailedOptions } from "@ratings/domain/ports/DeliveryOutbox"
import { holdClaimed, refireMany, type TransitionStore } from "@ratings/domain/webhooks/DeliveryTransitions"
import { isUuid } from "../PgTransaction.ts"
import { DeliveryColumns, DeliveryRow, decodeRows, orDie } from "./Rows.ts"

const decodeFailed = decodeRows(DeliveryRow, "refireFailed")
const decodeCount = decodeRows(Schema.Struct({ n: Schema.Number }), "prune")

const isoOf = (at: number) => new Date(at).toISOString()

const refireFailed =
  (sql: SqlClient.SqlClient, store: TransitionStore) =>
  ({ ruleIds, since, at, limit }: RefireFailedOptions) =>
    Effect.gen(function* () {
      const rules = ruleIds.filter(isUuid)
      const bound = Math.max(0, Math.trunc(limit))
      if (rules.length === 0) return { refired: [], more: false }
      const failed: ReadonlyArray<Delivery> = yield* sql`
        SELECT ${sql.literal(DeliveryColumns)} FROM webhook_deliveries
        WHERE status = 'failed' AND rule_id = ANY (${rules}::uuid[])
          AND COALESCE(first_attempt_at, created_at) >= ${isoOf(since)}::timestamptz
        ORDER BY seq
        LIMIT ${bound + 1}
      `.pipe(Effect.flatMap(decodeFailed), orDie("refireFailed"))
      const refired = yield* refireMany(store, failed.slice(0, bound), at)
      return { refired, more: failed.length > bound }
    }).pipe(Effect.withSpan("PgDeliveryOutbox.refireFailed"))

/** Finished deliveries older than `before`, at most `limit`; their attempts go with them (ON DELETE CASCADE). */
const pruneDeliveries = (sql: SqlClient.SqlClient, before: string, limit: number) =>
  sql`
    WITH old AS (
      SELECT delivery_id FROM webhook_deliveries
      WHERE status <> 'pending' AND COALESCE(first_attempt_at, created_at) < ${before}::timestamptz
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), gone AS (
      DELETE FROM webhook_deliveries d USING old WHERE d.delivery_id = old.delivery_id RETURNING 1
    )
    SELECT count(*)::int AS n FROM gone
  `.pipe(Effect.flatMap(decodeCount), orDie("prune"))

/** Attempts older than `before` of deliveries kept (earlier cycles of re-fired ones), at most `limit`; an old finished delivery's go with it. */
const pruneAttempts = (sql: SqlClient.SqlClient, before: string, limit: number) =>
  sql`
    WITH old AS (
      SELECT a.ctid FROM webhook_delivery_attempts a JOIN webhook_deliveries d USING (delivery_id)
      WHERE a.started_at < ${before}::timestamptz
        AND (d.status = 'pending' OR COALESCE(d.first_attempt_at, d.created_at) >= ${before}::timestamptz)
      LIMIT ${limit}
      FOR UPDATE OF a SKIP LOCKED
    ), gone AS (
      DELETE FROM webhook_delivery_attempts a USING old WHERE a.ctid = old.ctid RETURNING 1
    )
    SELECT count(*)::int AS n FROM gone
  `.pipe(Effect.flatMap(decodeCount), orDie("prune"))

const prune =
  (sql: SqlClient.SqlClient) =>
  ({ before, limit }: { readonly before: number; readonly limit: number }) =>
    Effect.gen(function* () {
      const bound = Math.max(0, Math.trunc(limit))
      const [deliveries] = yield* pruneDeliveries(sql, isoOf(before), bound)
      const [attempts] = yield* pruneAttempts(sql, isoOf(before), bound)
      return { deliveries: deliveries?.n ?? 0, attempts: attempts?.n ?? 0 }
    }).pipe(Effect.withSpan("PgDeliveryOutbox.prune"))

export const makeOperations = (sql: SqlClient.SqlClient, store: TransitionStore) => ({
  hold: (claimed: Delivery, reason: string) =>
    Effect.flatMap(holdClaimed(store, claimed, reason), Effect.fromResult).pipe(
      Effect.withSpan("PgDeliveryOutbox.hold")
    ),
  refireFailed: refireFailed(sql, store),
  prune: prune(sql)
})
