/**
 * The claim's rows, decoded by hand: the dispatcher's hot path decodes every
 * delivery it sends, and the generic `DeliveryRow` schema is slow for that.
 * This checks the same rules as `DeliveryRow` (UUID ids,
 * a known event kind and status, non-negative integer counts, valid
 * timestamps, text or null) and builds the same `Delivery`; a row that fails
 * a rule is handed to the schema, so the defect carries its usual message.
 */
import { Effect, Schema } from "effect"
import { isoTimestampOf } from "@ratings/domain/model/Primitives"
import { type Delivery, DeliveryStatuses } from "@ratings/domain/model/Delivery"
import { WebhookEventKinds } from "@ratings/domain/model/WebhookEvent"
import { DeliveryRow, decodeRows } from "./Rows.ts"

const isUuidText = Schema.is(DeliveryRow.fields.delivery_id)
const eventKinds: ReadonlySet<unknown> = new Set(WebhookEventKinds)
const statuses: ReadonlySet<unknown> = new Set(DeliveryStatuses)

const isCount = (u: unknown): u is number => typeof u === "number" && Number.isInteger(u) && u >= 0
const isValidDate = (u: unknown): u is Date => u instanceof Date && !Number.isNaN(u.getTime())
const isDateOrNull = (u: unknown): u is Date | null => u === null || isValidDate(u)
const isTextOrNull = (u: unknown): u is string | null => u === null || typeof u === "string"

/** One row as a `Delivery`, or undefined when it breaks one of `DeliveryRow`'s rules. */
export const deliveryOfRow = (row: unknown): Delivery | undefined => {
  if (typeof row !== "object" || row === null) return undefined
  const r = row as Record<string, unknown>
  const { delivery_id, rule_id, event, body, status, cycle, attempts } = r
  const { next_attempt_at, first_attempt_at, last_error, created_at } = r
  if (
    typeof delivery_id !== "string" ||
    typeof rule_id !== "string" ||
    !isUuidText(delivery_id) ||
    !isUuidText(rule_id) ||
    !eventKinds.has(event) ||
    typeof body !== "string" ||
    !statuses.has(status) ||
    !isCount(cycle) ||
    !isCount(attempts) ||
    !isDateOrNull(next_attempt_at) ||
    !isDateOrNull(first_attempt_at) ||
    !isTextOrNull(last_error) ||
    !isValidDate(created_at)
  ) {
    return undefined
  }
  return {
    delivery_id,
    rule_id,
    event: event as Delivery["event"],
    body,
    status: status as Delivery["status"],
    cycle,
    attempts,
    next_attempt_at: next_attempt_at === null ? null : isoTimestampOf(next_attempt_at),
    first_attempt_at: first_attempt_at === null ? null : isoTimestampOf(first_attempt_at),
    last_error,
    created_at: isoTimestampOf(created_at)
  }
}

/** Rows as deliveries; any row that breaks a rule makes the whole read the schema's defect. */
export const decodeDeliveryRows = (operation: string) => {
  const bySchema = decodeRows(DeliveryRow, operation)
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Delivery>> => {
    const out: Array<Delivery> = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const d = deliveryOfRow(rows[i])
      if (d === undefined) return bySchema(rows)
      out[i] = d
    }
    return Effect.succeed(out)
  }
}
