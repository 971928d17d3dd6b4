/**
 * The outbox's reads: a delivery with its attempt log, a rule's deliveries,
 * the failed ones, and the plain read the domain's careful recording path
 * judges an attempt on.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import {
  type Delivery,
  type DeliveryAttempt,
  DeliveryNotFound,
  type DeliveryWithAttempts
} from "@ratings/domain/model/Delivery"
import { isUuid } from "../PgTransaction.ts"
import { AttemptRow, DeliveryColumns, DeliveryRow, decodeRows, limitOf, orDie } from "./Rows.ts"

const decodeDeliveries = (operation: string) => decodeRows(DeliveryRow, operation)
const decodeAttempts = decodeRows(AttemptRow, "attempt log")

/** The attempt logs of these deliveries, each in cycle and attempt order. */
const attemptsOf = (sql: SqlClient.SqlClient, ids: ReadonlyArray<string>) =>
  ids.length === 0
    ? Effect.succeed(new Map<string, Array<DeliveryAttempt>>())
    : sql`
        SELECT delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms
        FROM webhook_delivery_attempts
        WHERE delivery_id = ANY (${[...ids]}::uuid[])
        ORDER BY delivery_id, cycle, attempt
      `.pipe(
        Effect.flatMap(decodeAttempts),
        Effect.map((attempts) => {
          const byDelivery = new Map<string, Array<DeliveryAttempt>>()
          for (const attempt of attempts) {
            const list = byDelivery.get(attempt.delivery_id) ?? []
            list.push(attempt)
            byDelivery.set(attempt.delivery_id, list)
          }
          return byDelivery
        })
      )

const withAttempts = (sql: SqlClient.SqlClient) => (deliveries: ReadonlyArray<Delivery>) =>
  Effect.map(
    attemptsOf(
      sql,
      deliveries.map((d) => d.delivery_id)
    ),
    (attempts) =>
      deliveries.map(
        (delivery): DeliveryWithAttempts => ({
          ...delivery,
          attempt_log: attempts.get(delivery.delivery_id) ?? []
        })
      )
  )

/** The delivery as stored now, or undefined (an id that is not a UUID names none). */
const read =
  (sql: SqlClient.SqlClient) =>
  (deliveryId: string): Effect.Effect<Delivery | undefined> =>
    isUuid(deliveryId)
      ? sql`SELECT ${sql.literal(DeliveryColumns)} FROM webhook_deliveries WHERE delivery_id = ${deliveryId}`.pipe(
          Effect.flatMap(decodeDeliveries("read")),
          Effect.map((rows) => rows[0]),
          orDie("read")
        )
      : Effect.succeed(undefined)

const get = (sql: SqlClient.SqlClient) => (deliveryId: string) =>
  Effect.gen(function* () {
    const stored = yield* read(sql)(deliveryId)
    const [found] = stored === undefined ? [] : yield* withAttempts(sql)([stored])
    if (found === undefined) return yield* new DeliveryNotFound({ delivery_id: deliveryId })
    return found
  }).pipe(orDie("get"), Effect.withSpan("PgDeliveryOutbox.get"))

const listByRule =
  (sql: SqlClient.SqlClient) => (ruleId: string, options?: { readonly limit?: number | undefined }) =>
    (isUuid(ruleId)
      ? sql`
          SELECT ${sql.literal(DeliveryColumns)} FROM webhook_deliveries
          WHERE rule_id = ${ruleId}
          ORDER BY seq DESC
          LIMIT ${limitOf(options?.limit)}
        `.pipe(Effect.flatMap(decodeDeliveries("listByRule")), Effect.flatMap(withAttempts(sql)))
      : Effect.succeed([])
    ).pipe(orDie("listByRule"), Effect.withSpan("PgDeliveryOutbox.listByRule"))

const listFailed =
  (sql: SqlClient.SqlClient) =>
  (options?: {
    readonly ruleIds?: ReadonlyArray<string> | undefined
    readonly limit?: number | undefined
  }) => {
    const ruleIds = options?.ruleIds
    const ofRules = ruleIds === undefined ? sql`TRUE` : sql`rule_id = ANY (${ruleIds.filter(isUuid)}::uuid[])`
    return sql`
      SELECT ${sql.literal(DeliveryColumns)} FROM webhook_deliveries
      WHERE status = 'failed' AND ${ofRules}
      ORDER BY seq DESC
      LIMIT ${limitOf(options?.limit)}
    `.pipe(
      Effect.flatMap(decodeDeliveries("listFailed")),
      orDie("listFailed"),
      Effect.withSpan("PgDeliveryOutbox.listFailed")
    )
  }

export const makeReads = (sql: SqlClient.SqlClient) => ({
  read: read(sql),
  get: get(sql),
  listByRule: listByRule(sql),
  listFailed: listFailed(sql)
})
