/**
 * The outbox's writes: enqueueing a fan-out, enqueueing one delivery already
 * claimed, and the guarded writes of the transitions the domain computed
 * (webhooks/DeliveryTransitions). This module stores what it is handed; it
 * decides no transition. A batch of guarded writes is one statement, the
 * dispatcher's hot path; of two racing writes of one row, one wins.
 */
import { PgTypes } from "@effect/sql-pg"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Delivery } from "@ratings/domain/model/Delivery"
import { DefaultLeaseMs, type EnqueueClaimedOptions } from "@ratings/domain/ports/DeliveryOutbox"
import type { GuardedWrite } from "@ratings/domain/webhooks/DeliveryTransitions"
import { isUuid } from "../PgTransaction.ts"
import { typedArray } from "../scorecards/ScorecardRows.ts"
import { AppliedRow, DeliveryColumns, decodeRows, orDie } from "./Rows.ts"

/** Rows per INSERT when enqueueing a large fan-out (11 parameters each, well under the protocol's limit). */
const EnqueueChunk = 500

/** Writes per guarded statement; a larger batch is split (19 array parameters). */
const WriteChunk = 500

const decodeApplied = decodeRows(AppliedRow, "writeGuarded")

/**
 * The statement's input, one array a column (an element a write), bound in
 * Postgres' binary format (typedArray): the server reads each element as it
 * is, where a JSON document of objects was parsed and taken apart per field.
 * Timestamps go as text, so the server reads the exact instant written.
 */
const inputColumns = (writes: ReadonlyArray<GuardedWrite>) => {
  const { int4, text, uuid } = PgTypes.OID
  const column = (oid: number, f: (w: GuardedWrite) => string | number | null) =>
    typedArray(writes.map(f), oid)
  return [
    column(uuid, (w) => w.from.delivery_id),
    column(text, (w) => w.from.status),
    column(int4, (w) => w.from.cycle),
    column(int4, (w) => w.from.attempts),
    column(text, (w) => w.from.next_attempt_at),
    column(text, (w) => w.from.first_attempt_at),
    column(text, (w) => w.to.status),
    column(int4, (w) => w.to.cycle),
    column(int4, (w) => w.to.attempts),
    column(text, (w) => w.to.next_attempt_at),
    column(text, (w) => w.to.first_attempt_at),
    column(text, (w) => w.to.last_error),
    column(int4, (w) => w.attempt?.cycle ?? null),
    column(int4, (w) => w.attempt?.attempt ?? null),
    column(text, (w) => w.attempt?.started_at ?? null),
    column(int4, (w) => w.attempt?.status_code ?? null),
    column(text, (w) => w.attempt?.outcome ?? null),
    column(text, (w) => w.attempt?.error ?? null),
    column(int4, (w) => w.attempt?.duration_ms ?? null)
  ] as const
}

/** A delivery's columns, and nothing else a caller's value may carry. */
const deliveryColumns = (d: Delivery) => ({
  delivery_id: d.delivery_id,
  rule_id: d.rule_id,
  event: d.event,
  body: d.body,
  status: d.status,
  cycle: d.cycle,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at,
  first_attempt_at: d.first_attempt_at,
  last_error: d.last_error,
  created_at: d.created_at
})

const enqueue = (sql: SqlClient.SqlClient) => (deliveries: ReadonlyArray<Delivery>) =>
  Effect.gen(function* () {
    for (let i = 0; i < deliveries.length; i += EnqueueChunk) {
      const [first, ...rest] = deliveries.slice(i, i + EnqueueChunk).map(deliveryColumns)
      if (first === undefined) continue
      // Rows go in in the given order, so seq (and "newest first") follows it; an id
      // already enqueued is left as it is, as in memory.
      yield* sql`
        INSERT INTO webhook_deliveries ${sql.insert([first, ...rest])}
        ON CONFLICT (delivery_id) DO NOTHING
      `
    }
  }).pipe(
    // One enqueue is one fan-out: all of it or none of it.
    sql.withTransaction,
    orDie("enqueue"),
    Effect.withSpan("PgDeliveryOutbox.enqueue")
  )

const enqueueClaimed =
  (sql: SqlClient.SqlClient) =>
  (d: Delivery, { at, leaseMs = DefaultLeaseMs }: EnqueueClaimedOptions) =>
    Effect.gen(function* () {
      const inserted = yield* sql`
        INSERT INTO webhook_deliveries (${sql.literal(DeliveryColumns)}, leased_until)
        VALUES (
          ${d.delivery_id}, ${d.rule_id}, ${d.event}, ${d.body}, ${d.status}, ${d.cycle}, ${d.attempts},
          ${d.next_attempt_at}::timestamptz, ${d.first_attempt_at}::timestamptz, ${d.last_error},
          ${d.created_at}::timestamptz, ${new Date(at + leaseMs)}
        )
        ON CONFLICT (delivery_id) DO NOTHING
        RETURNING delivery_id
      `
      // A duplicate id is a bug in the caller (ids are fresh UUIDs), as in memory.
      if (inserted.length === 0) {
        return yield* Effect.die(new Error(`delivery ${d.delivery_id} is already in the outbox`))
      }
      return d
    }).pipe(orDie("enqueueClaimed"), Effect.withSpan("PgDeliveryOutbox.enqueueClaimed"))

/**
 * One statement: the writes whose guards hold, applied, claims released,
 * attempts logged. One UPDATE applies every write whose row still holds
 * exactly its `from` state (status, cycle, attempt count, due time, first
 * attempt), and its RETURNING feeds the INSERT of the attempt rows. Under READ
 * COMMITTED a concurrent writer of the row is waited for and the guard
 * re-checked on what it committed; the attempt row's primary key is a second
 * guard against counting an attempt twice.
 */
const writeStatement = (sql: SqlClient.SqlClient, writes: ReadonlyArray<GuardedWrite>) => {
  const c = inputColumns(writes)
  return sql`
    WITH input AS (
      SELECT (i.ord - 1)::int AS idx, i.* FROM unnest(
        ${c[0]}::uuid[], ${c[1]}::text[], ${c[2]}::int[], ${c[3]}::int[],
        ${c[4]}::text[]::timestamptz[], ${c[5]}::text[]::timestamptz[],
        ${c[6]}::text[], ${c[7]}::int[], ${c[8]}::int[], ${c[9]}::text[]::timestamptz[],
        ${c[10]}::text[]::timestamptz[], ${c[11]}::text[],
        ${c[12]}::int[], ${c[13]}::int[], ${c[14]}::text[]::timestamptz[], ${c[15]}::int[],
        ${c[16]}::text[], ${c[17]}::text[], ${c[18]}::int[]
      ) WITH ORDINALITY AS i (
        delivery_id, status, cycle, attempts, next_attempt_at, first_attempt_at,
        new_status, new_cycle, new_attempts, new_next_attempt_at, new_first_attempt_at, new_last_error,
        attempt_cycle, attempt, started_at, status_code, outcome, error, duration_ms, ord
      )
    ), updated AS (
      UPDATE webhook_deliveries d SET
        status = i.new_status,
        cycle = i.new_cycle,
        attempts = i.new_attempts,
        next_attempt_at = i.new_next_attempt_at,
        first_attempt_at = i.new_first_attempt_at,
        last_error = i.new_last_error,
        leased_until = NULL,
        claim_token = NULL
      FROM input i
      WHERE d.delivery_id = i.delivery_id
        AND d.status = i.status
        AND d.cycle = i.cycle
        AND d.attempts = i.attempts
        AND d.next_attempt_at IS NOT DISTINCT FROM i.next_attempt_at
        AND d.first_attempt_at IS NOT DISTINCT FROM i.first_attempt_at
      RETURNING i.idx, d.delivery_id
    ), logged AS (
      INSERT INTO webhook_delivery_attempts
        (delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms)
      SELECT i.delivery_id, i.attempt_cycle, i.attempt, i.started_at, i.status_code, i.outcome, i.error,
        i.duration_ms
      FROM input i JOIN updated u ON u.idx = i.idx
      WHERE i.attempt IS NOT NULL
    )
    SELECT * FROM updated
  `.pipe(Effect.flatMap(decodeApplied))
}

/**
 * The deliveries as now stored: an applied write stored exactly its `to`
 * (and left what never changes, the body, rule and creation time, as it was),
 * so only which writes applied comes back, under the stored id's spelling.
 */
const appliedDeliveries = (
  writes: ReadonlyArray<GuardedWrite>,
  applied: ReadonlyArray<{ readonly idx: number; readonly delivery_id: string }>
) => applied.map(({ idx, delivery_id }) => ({ idx, delivery: { ...writes[idx]!.to, delivery_id } }))

/**
 * Guarded writes, a statement per chunk. A write for an id that is not a
 * UUID names no row and is not sent; a statement that fails (a deadlock
 * with another process, say) applies none of its writes, which the domain
 * then makes one by one.
 */
const writeGuarded = (sql: SqlClient.SqlClient) => (writes: ReadonlyArray<GuardedWrite>) =>
  Effect.gen(function* () {
    const written: Array<Delivery | undefined> = writes.map(() => undefined)
    const sendable = [...writes.keys()].filter((i) => isUuid(writes[i]!.from.delivery_id))
    for (let start = 0; start < sendable.length; start += WriteChunk) {
      const chunk = sendable.slice(start, start + WriteChunk)
      const chunkWrites = chunk.map((i) => writes[i]!)
      const applied = yield* writeStatement(sql, chunkWrites).pipe(
        Effect.catchTag("SqlError", (error) =>
          Effect.as(
            Effect.logWarning(
              "delivery outbox: a batch of writes was not applied; the attempts are recorded one by one"
            ).pipe(Effect.annotateLogs({ error: error.message, writes: chunk.length })),
            []
          )
        )
      )
      for (const { idx, delivery } of appliedDeliveries(chunkWrites, applied)) written[chunk[idx]!] = delivery
    }
    return written as ReadonlyArray<Delivery | undefined>
  }).pipe(orDie("writeGuarded"))

export const makeWrites = (sql: SqlClient.SqlClient) => ({
  enqueue: enqueue(sql),
  enqueueClaimed: enqueueClaimed(sql),
  writeGuarded: writeGuarded(sql)
})
