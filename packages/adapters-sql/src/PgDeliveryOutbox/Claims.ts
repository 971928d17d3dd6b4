/**
 * The outbox's claims: due deliveries leased to the caller. A claim is
 * `SELECT ... FOR UPDATE SKIP LOCKED` plus a lease column: the row lock keeps
 * two concurrent claims from taking the same row, and the lease
 * (`leased_until`) keeps it out of later claims until the worker records its
 * attempt, or until the lease runs out because the worker died. Leases are
 * measured on the caller's clock (`at`), as in memory, so a test clock drives
 * them and no database clock is mixed in.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { type ClaimOptions, DefaultLeaseMs } from "@ratings/domain/ports/DeliveryOutbox"
import { DeliveryColumns, DeliveryRow, decodeRows, limitOf, orDie } from "./Rows.ts"

const decodeClaimed = decodeRows(DeliveryRow, "claimDue")

export const makeClaims = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(DeliveryColumns)

  const claimDue = ({ at, limit, leaseMs = DefaultLeaseMs }: ClaimOptions) =>
    sql`
      WITH due AS (
        SELECT delivery_id FROM webhook_deliveries
        WHERE status = 'pending'
          AND next_attempt_at <= ${new Date(at)}
          AND (leased_until IS NULL OR leased_until <= ${new Date(at)})
        ORDER BY next_attempt_at, seq
        LIMIT ${limitOf(limit)}
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries d SET leased_until = ${new Date(at + leaseMs)}
        FROM due WHERE d.delivery_id = due.delivery_id
        RETURNING d.*
      )
      SELECT ${columns} FROM claimed ORDER BY next_attempt_at, seq
    `.pipe(Effect.flatMap(decodeClaimed), orDie("claimDue"), Effect.withSpan("PgDeliveryOutbox.claimDue"))

  return { claimDue }
}
