/**
 * The DeliveryOutbox port on Postgres: the durable queue behind signed
 * webhooks, shared by every server process.
 *
 * A claim is `SELECT ... FOR UPDATE SKIP LOCKED` plus a lease column: the row
 * lock keeps two concurrent claims from taking the same row, and the lease
 * (`leased_until`) keeps it out of later claims until the worker records its
 * attempt, or until the lease runs out because the worker died. Leases are
 * measured on the caller's clock (`at`), as in memory, so a test clock drives
 * them and no database clock is mixed in.
 *
 * Recording attempts is the dispatcher's hot path, so a batch of them is one
 * statement: the domain's pure state machine computes each transition in
 * TypeScript from the delivery as claimed, and one guarded UPDATE applies
 * every transition whose row still holds exactly the claimed state (status,
 * cycle, attempt count, due time, first attempt), its RETURNING feeding the
 * INSERT of the attempt rows. A row that moved on (a stale claim, recorded by
 * another process after the lease ran out) fails its guard; under READ
 * COMMITTED a concurrent writer of the same row is waited for and the guard
 * re-checked on what it committed, so of two racing records one wins. One
 * statement is one commit, not a transaction of five statements per attempt.
 *
 * Whatever the batch statement does not record (a guard that failed, an
 * attempt the state machine refuses, an id that is not a UUID, an id twice in
 * one batch, or the whole statement failing, say on a deadlock with another
 * process) goes the careful way, one by one in order: lock the row, refuse a
 * stale claim, apply the state machine to the stored row. That is the path
 * `recordAttempt` always took, so each refusal is the one it always was. The
 * attempt row's primary key is a second guard against counting one twice.
 *
 * The port has no error channel for store failures; a database failure is a
 * defect carrying a StoreError with the reason, never a bare SqlError.
 */
import { Effect, Layer, Result } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import {
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  type DeliveryStatus,
  DeliveryTransitionRejected,
  type DeliveryWithAttempts
} from "@ratings/domain/model/Delivery"
import type { WebhookEventKind } from "@ratings/domain/model/WebhookEvent"
import {
  type AttemptRecordResult,
  type AttemptToRecord,
  type ClaimOptions,
  DefaultLeaseMs,
  DeliveryOutbox,
  type EnqueueClaimedOptions
} from "@ratings/domain/ports/DeliveryOutbox"
import { StoreError } from "@ratings/domain/ports/StoreError"
import {
  type AttemptInput,
  type AttemptRecorded,
  recordAttempt as applyAttempt,
  refire as applyRefire
} from "@ratings/domain/webhooks/DeliveryStateMachine"
import { DefaultRetryPolicy, type RetryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import { isoOf, isoOrNull, isUuid } from "./PgTransaction.ts"

const orDie =
  (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
    Effect.catch(effect, (error) =>
      SqlError.isSqlError(error)
        ? Effect.die(new StoreError({ message: `delivery outbox, ${operation}: ${error.message}` }))
        : Effect.fail(error as Exclude<E, SqlError.SqlError>)
    )

/** Rows per INSERT when enqueueing a large fan-out (11 parameters each, well under the protocol's limit). */
const EnqueueChunk = 500

/** Attempts per batch statement; a larger batch is split (its one parameter is JSON). */
const RecordChunk = 500

interface DeliveryRow {
  readonly delivery_id: string
  readonly rule_id: string
  readonly event: WebhookEventKind
  readonly body: string
  readonly status: DeliveryStatus
  readonly cycle: number
  readonly attempts: number
  readonly next_attempt_at: Date | null
  readonly first_attempt_at: Date | null
  readonly last_error: string | null
  readonly created_at: Date
}

interface AttemptRow {
  readonly delivery_id: string
  readonly cycle: number
  readonly attempt: number
  readonly started_at: Date
  readonly status_code: number | null
  readonly outcome: AttemptOutcome
  readonly error: string | null
  readonly duration_ms: number
}

const toDelivery = (row: DeliveryRow): Delivery => ({
  delivery_id: row.delivery_id,
  rule_id: row.rule_id,
  event: row.event,
  body: row.body,
  status: row.status,
  cycle: row.cycle,
  attempts: row.attempts,
  next_attempt_at: isoOrNull(row.next_attempt_at),
  first_attempt_at: isoOrNull(row.first_attempt_at),
  last_error: row.last_error,
  created_at: isoOf(row.created_at)
})

const toAttempt = (row: AttemptRow): DeliveryAttempt => ({
  delivery_id: row.delivery_id,
  cycle: row.cycle,
  attempt: row.attempt,
  started_at: isoOf(row.started_at),
  status_code: row.status_code,
  outcome: row.outcome,
  error: row.error,
  duration_ms: row.duration_ms
})

const stale = (stored: Delivery) =>
  new DeliveryTransitionRejected({
    delivery_id: stored.delivery_id,
    status: stored.status,
    reason: "stale claim: the delivery moved on since it was claimed"
  })

/** `Array.prototype.slice`'s reading of a limit, so SQL pages as memory does. */
const limitOf = (limit: number | undefined): number | null =>
  limit === undefined ? null : Number.isFinite(limit) ? Math.max(0, Math.trunc(limit)) : limit > 0 ? null : 0

export const layerWith = (policy: RetryPolicy): Layer.Layer<DeliveryOutbox, never, SqlClient.SqlClient> =>
  Layer.effect(
    DeliveryOutbox,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const columns = sql.literal(
        "delivery_id, rule_id, event, body, status, cycle, attempts, next_attempt_at, first_attempt_at, last_error, created_at"
      )

      const attemptsOf = (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.succeed(new Map<string, Array<DeliveryAttempt>>())
          : sql<AttemptRow>`
              SELECT delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms
              FROM webhook_delivery_attempts
              WHERE delivery_id = ANY (${[...ids]}::uuid[])
              ORDER BY delivery_id, cycle, attempt
            `.pipe(
              Effect.map((rows) => {
                const byDelivery = new Map<string, Array<DeliveryAttempt>>()
                for (const row of rows) {
                  const list = byDelivery.get(row.delivery_id) ?? []
                  list.push(toAttempt(row))
                  byDelivery.set(row.delivery_id, list)
                }
                return byDelivery
              })
            )

      const withAttempts = (rows: ReadonlyArray<DeliveryRow>) =>
        Effect.map(attemptsOf(rows.map((r) => r.delivery_id)), (attempts) =>
          rows.map(
            (row): DeliveryWithAttempts => ({
              ...toDelivery(row),
              attempt_log: attempts.get(row.delivery_id) ?? []
            })
          )
        )

      const enqueue = (deliveries: ReadonlyArray<Delivery>) =>
        Effect.gen(function* () {
          for (let i = 0; i < deliveries.length; i += EnqueueChunk) {
            const chunk = deliveries.slice(i, i + EnqueueChunk).map((d) => ({
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
            }))
            const [first, ...rest] = chunk
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

      const enqueueClaimed = (d: Delivery, { at, leaseMs = DefaultLeaseMs }: EnqueueClaimedOptions) =>
        Effect.gen(function* () {
          const inserted = yield* sql<{ readonly delivery_id: string }>`
            INSERT INTO webhook_deliveries (${columns}, leased_until)
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

      const claimDue = ({ at, limit, leaseMs = DefaultLeaseMs }: ClaimOptions) =>
        sql<DeliveryRow>`
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
        `.pipe(
          Effect.map((rows) => rows.map(toDelivery)),
          orDie("claimDue"),
          Effect.withSpan("PgDeliveryOutbox.claimDue")
        )

      /** Locks and reads one delivery inside the caller's transaction. */
      const lockOne = (deliveryId: string) =>
        Effect.gen(function* () {
          if (!isUuid(deliveryId)) return yield* new DeliveryNotFound({ delivery_id: deliveryId })
          const [row] = yield* sql<DeliveryRow>`
            SELECT ${columns} FROM webhook_deliveries WHERE delivery_id = ${deliveryId} FOR UPDATE
          `
          if (row === undefined) return yield* new DeliveryNotFound({ delivery_id: deliveryId })
          return toDelivery(row)
        })

      /** Writes a transition's result and releases any claim. */
      const store = (d: Delivery) => sql`
        UPDATE webhook_deliveries SET
          status = ${d.status},
          cycle = ${d.cycle},
          attempts = ${d.attempts},
          next_attempt_at = ${d.next_attempt_at}::timestamptz,
          first_attempt_at = ${d.first_attempt_at}::timestamptz,
          last_error = ${d.last_error},
          leased_until = NULL
        WHERE delivery_id = ${d.delivery_id}
      `

      /** The careful way: lock the row, refuse a stale claim, apply the state machine to what is stored. */
      const recordOne = (claimed: Delivery, input: AttemptInput) =>
        Effect.gen(function* () {
          const stored = yield* lockOne(claimed.delivery_id)
          if (stored.cycle !== claimed.cycle || stored.attempts !== claimed.attempts) {
            return yield* stale(stored)
          }
          const result = applyAttempt(stored, input, policy)
          if (Result.isFailure(result)) return yield* result.failure
          const { delivery, attempt } = result.success
          yield* store(delivery)
          yield* sql`
            INSERT INTO webhook_delivery_attempts
              (delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms)
            VALUES (
              ${attempt.delivery_id}, ${attempt.cycle}, ${attempt.attempt}, ${attempt.started_at}::timestamptz,
              ${attempt.status_code}, ${attempt.outcome}, ${attempt.error}, ${attempt.duration_ms}
            )
          `
          return result.success
        }).pipe(sql.withTransaction, orDie("recordAttempt"))

      /**
       * One statement for transitions computed from the claimed state: each is
       * applied only where the row still holds that state. Returns the indexes
       * (into `transitions`) that were applied, with the rows as stored now.
       */
      const recordGuarded = (
        transitions: ReadonlyArray<{ readonly claimed: Delivery; readonly recorded: AttemptRecorded }>
      ) => {
        const input = transitions.map(({ claimed, recorded: { delivery: d, attempt: a } }, idx) => ({
          idx,
          delivery_id: claimed.delivery_id,
          status: claimed.status,
          cycle: claimed.cycle,
          attempts: claimed.attempts,
          next_attempt_at: claimed.next_attempt_at,
          first_attempt_at: claimed.first_attempt_at,
          new_status: d.status,
          new_attempts: d.attempts,
          new_next_attempt_at: d.next_attempt_at,
          new_first_attempt_at: d.first_attempt_at,
          new_last_error: d.last_error,
          attempt_cycle: a.cycle,
          attempt: a.attempt,
          started_at: a.started_at,
          status_code: a.status_code,
          outcome: a.outcome,
          error: a.error,
          duration_ms: a.duration_ms
        }))
        return sql<DeliveryRow & { readonly idx: number }>`
          WITH input AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS i (
              idx int, delivery_id uuid, status text, cycle int, attempts int,
              next_attempt_at timestamptz, first_attempt_at timestamptz,
              new_status text, new_attempts int, new_next_attempt_at timestamptz,
              new_first_attempt_at timestamptz, new_last_error text,
              attempt_cycle int, attempt int, started_at timestamptz, status_code int,
              outcome text, error text, duration_ms int
            )
          ), updated AS (
            UPDATE webhook_deliveries d SET
              status = i.new_status,
              attempts = i.new_attempts,
              next_attempt_at = i.new_next_attempt_at,
              first_attempt_at = i.new_first_attempt_at,
              last_error = i.new_last_error,
              leased_until = NULL
            FROM input i
            WHERE d.delivery_id = i.delivery_id
              AND d.status = i.status
              AND d.cycle = i.cycle
              AND d.attempts = i.attempts
              AND d.next_attempt_at IS NOT DISTINCT FROM i.next_attempt_at
              AND d.first_attempt_at IS NOT DISTINCT FROM i.first_attempt_at
            RETURNING i.idx, d.delivery_id, d.rule_id, d.event, d.body, d.status, d.cycle, d.attempts,
              d.next_attempt_at, d.first_attempt_at, d.last_error, d.created_at
          ), logged AS (
            INSERT INTO webhook_delivery_attempts
              (delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms)
            SELECT i.delivery_id, i.attempt_cycle, i.attempt, i.started_at, i.status_code, i.outcome, i.error,
              i.duration_ms
            FROM input i JOIN updated u ON u.idx = i.idx
          )
          SELECT * FROM updated
        `
      }

      const recordAttempts = (attempts: ReadonlyArray<AttemptToRecord>) =>
        Effect.gen(function* () {
          const results: Array<AttemptRecordResult | undefined> = attempts.map(() => undefined)
          for (let start = 0; start < attempts.length; start += RecordChunk) {
            const end = Math.min(attempts.length, start + RecordChunk)
            const fast: Array<{
              readonly index: number
              readonly claimed: Delivery
              readonly recorded: AttemptRecorded
            }> = []
            const careful: Array<number> = []
            const seen = new Set<string>()
            for (let index = start; index < end; index++) {
              const { claimed, input } = attempts[index]!
              const id = claimed.delivery_id.toLowerCase()
              // A delivery's second attempt in one batch is judged after its first, the careful way.
              const first = isUuid(id) && !seen.has(id)
              seen.add(id)
              const transition = first ? applyAttempt(claimed, input, policy) : undefined
              if (transition === undefined || Result.isFailure(transition)) careful.push(index)
              else fast.push({ index, claimed, recorded: transition.success })
            }
            const applied =
              fast.length === 0
                ? []
                : yield* recordGuarded(fast).pipe(
                    Effect.catchTag("SqlError", (error) =>
                      Effect.as(
                        Effect.logWarning(
                          "delivery outbox: a batch of attempts was not recorded; recording them one by one"
                        ).pipe(Effect.annotateLogs({ error: error.message, attempts: fast.length })),
                        []
                      )
                    )
                  )
            const byIdx = new Map(applied.map((row) => [row.idx, row]))
            for (const [idx, { index, recorded }] of fast.entries()) {
              const row = byIdx.get(idx)
              if (row === undefined) careful.push(index)
              else results[index] = Result.succeed({ delivery: toDelivery(row), attempt: recorded.attempt })
            }
            // In input order, so two attempts on one delivery are judged one after the other.
            careful.sort((a, b) => a - b)
            for (const index of careful) {
              const { claimed, input } = attempts[index]!
              results[index] = yield* Effect.result(recordOne(claimed, input))
            }
          }
          return results as ReadonlyArray<AttemptRecordResult>
        }).pipe(orDie("recordAttempts"), Effect.withSpan("PgDeliveryOutbox.recordAttempts"))

      const recordAttempt = (claimed: Delivery, input: AttemptInput) =>
        Effect.flatMap(recordAttempts([{ claimed, input }]), ([result]) =>
          Result.isSuccess(result!) ? Effect.succeed(result.success) : Effect.fail(result!.failure)
        ).pipe(Effect.withSpan("PgDeliveryOutbox.recordAttempt"))

      const get = (deliveryId: string) =>
        Effect.gen(function* () {
          if (!isUuid(deliveryId)) return yield* new DeliveryNotFound({ delivery_id: deliveryId })
          const rows = yield* sql<DeliveryRow>`
            SELECT ${columns} FROM webhook_deliveries WHERE delivery_id = ${deliveryId}
          `
          const [found] = yield* withAttempts(rows)
          if (found === undefined) return yield* new DeliveryNotFound({ delivery_id: deliveryId })
          return found
        }).pipe(orDie("get"), Effect.withSpan("PgDeliveryOutbox.get"))

      const listByRule = (ruleId: string, options?: { readonly limit?: number | undefined }) =>
        (isUuid(ruleId)
          ? sql<DeliveryRow>`
              SELECT ${columns} FROM webhook_deliveries
              WHERE rule_id = ${ruleId}
              ORDER BY seq DESC
              LIMIT ${limitOf(options?.limit)}
            `.pipe(Effect.flatMap(withAttempts))
          : Effect.succeed([])
        ).pipe(orDie("listByRule"), Effect.withSpan("PgDeliveryOutbox.listByRule"))

      const listFailed = (options?: {
        readonly ruleIds?: ReadonlyArray<string> | undefined
        readonly limit?: number | undefined
      }) => {
        const ruleIds = options?.ruleIds
        const ofRules =
          ruleIds === undefined ? sql`TRUE` : sql`rule_id = ANY (${ruleIds.filter(isUuid)}::uuid[])`
        return sql<DeliveryRow>`
          SELECT ${columns} FROM webhook_deliveries
          WHERE status = 'failed' AND ${ofRules}
          ORDER BY seq DESC
          LIMIT ${limitOf(options?.limit)}
        `.pipe(
          Effect.map((rows) => rows.map(toDelivery)),
          orDie("listFailed"),
          Effect.withSpan("PgDeliveryOutbox.listFailed")
        )
      }

      const refire = (deliveryId: string, at: number) =>
        Effect.gen(function* () {
          const stored = yield* lockOne(deliveryId)
          const result = applyRefire(stored, at)
          if (Result.isFailure(result)) return yield* result.failure
          yield* store(result.success)
          return result.success
        }).pipe(sql.withTransaction, orDie("refire"), Effect.withSpan("PgDeliveryOutbox.refire"))

      return DeliveryOutbox.of({
        enqueue,
        enqueueClaimed,
        claimDue,
        recordAttempt,
        recordAttempts,
        get,
        listByRule,
        listFailed,
        refire
      })
    })
  )

export const layer: Layer.Layer<DeliveryOutbox, never, SqlClient.SqlClient> = layerWith(DefaultRetryPolicy)
