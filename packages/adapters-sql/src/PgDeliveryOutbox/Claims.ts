/**
 * The outbox's claims: due deliveries leased to the caller. A claim is
 * `SELECT ... FOR UPDATE SKIP LOCKED` plus a lease column: the row lock keeps
 * two concurrent claims from taking the same row, and the lease
 * (`leased_until`) keeps it out of later claims until the worker records its
 * attempt, or until the lease runs out because the worker died. Leases are
 * measured on the caller's clock (`at`), as in memory, so a test clock drives
 * them and no database clock is mixed in. A claim given a token stores it
 * (`claim_token`), and a release ends only the claims still holding theirs.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { type ClaimOptions, DefaultLeaseMs, type HeldClaim } from "@ratings/domain/ports/DeliveryOutbox"
import { isUuid } from "../PgTransaction.ts"
import { decodeDeliveryRows } from "./ClaimedRows.ts"
import { DeliveryColumns, limitOf, orDie } from "./Rows.ts"

const decodeClaimed = decodeDeliveryRows("claimDue")

export const makeClaims = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(DeliveryColumns)
  const returned = sql.literal(`${DeliveryColumns.replace(/(\w+)/g, "d.$1")}, d.seq`)

  const claimDue = ({ at, limit, leaseMs = DefaultLeaseMs, token }: ClaimOptions) =>
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
        UPDATE webhook_deliveries d SET leased_until = ${new Date(at + leaseMs)}, claim_token = ${token ?? null}
        FROM due WHERE d.delivery_id = due.delivery_id
        RETURNING ${returned}
      )
      SELECT ${columns} FROM claimed ORDER BY next_attempt_at, seq
    `.pipe(Effect.flatMap(decodeClaimed), orDie("claimDue"), Effect.withSpan("PgDeliveryOutbox.claimDue"))

  // Under READ COMMITTED a claim committed meanwhile by another process is waited for and the
  // token compared on what it wrote, so a claim taken over is never released.
  const releaseClaims = (claims: ReadonlyArray<HeldClaim>) => {
    const held = claims.filter((c) => isUuid(c.deliveryId))
    return held.length === 0
      ? Effect.succeed([])
      : sql<{ readonly delivery_id: string }>`
          WITH held AS (
            SELECT * FROM unnest(${held.map((c) => c.deliveryId)}::uuid[], ${held.map((c) => c.token)}::text[])
              WITH ORDINALITY AS h (delivery_id, token, n)
          ), released AS (
            UPDATE webhook_deliveries d SET leased_until = NULL, claim_token = NULL
            FROM held h
            WHERE d.delivery_id = h.delivery_id AND d.claim_token = h.token
            RETURNING d.delivery_id, h.n
          )
          SELECT delivery_id FROM released ORDER BY n
        `.pipe(
          Effect.map((rows) => rows.map((r) => r.delivery_id)),
          orDie("releaseClaims"),
          Effect.withSpan("PgDeliveryOutbox.releaseClaims")
        )
  }

  return { claimDue, releaseClaims }
}
