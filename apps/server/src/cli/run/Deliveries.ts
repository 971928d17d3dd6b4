/**
 * What `ratings deliveries list|refire` do (the commands and what they
 * promise: DeliveriesCommand.ts). `list` never prints a signing key or a
 * body; `refire` is AlertRuleService.refire with no account.
 */
import type { Delivery } from "@ratings/domain/model/Delivery"
import { isoTimestampOf, Uuid } from "@ratings/domain/model/Primitives"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { Console, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

const isUuid = Schema.is(Uuid)

/** Control characters (a receiver's error text can carry any) would break the one-line-per-delivery format. */
const oneLine = (text: string): string => text.replace(/\p{Cc}+/gu, " ").trim()

/**
 * One tab-separated line: id, rule, event, status, attempts of the current
 * cycle, next attempt, last error (last: the only free-text column).
 */
export const formatDelivery = (
  d: Pick<
    Delivery,
    "delivery_id" | "rule_id" | "event" | "status" | "cycle" | "attempts" | "next_attempt_at" | "last_error"
  >
): string =>
  [
    d.delivery_id,
    d.rule_id,
    d.event,
    d.status,
    d.cycle === 0 ? `attempts ${d.attempts}` : `attempts ${d.attempts} (re-fire ${d.cycle})`,
    d.next_attempt_at === null ? "next -" : `next ${d.next_attempt_at}`,
    d.last_error === null ? "-" : oneLine(d.last_error)
  ].join("\t")

interface ListedRow {
  readonly delivery_id: string
  readonly rule_id: string
  readonly event: Delivery["event"]
  readonly status: Delivery["status"]
  readonly cycle: number
  readonly attempts: number
  readonly next_attempt_at: Date | null
  readonly last_error: string | null
}

/**
 * Every rule's deliveries, newest first. The outbox port lists per rule or
 * failed ones only, and has no reason to list across accounts; this operator
 * view reads the table directly, and selects no body and no key.
 */
const allDeliveries = (limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<ListedRow>`
      SELECT delivery_id, rule_id, event, status, cycle, attempts, next_attempt_at, last_error
      FROM webhook_deliveries
      ORDER BY seq DESC
      LIMIT ${limit}
    `
    return rows.map((row) => ({
      ...row,
      next_attempt_at: row.next_attempt_at === null ? null : isoTimestampOf(row.next_attempt_at)
    }))
  })

const fail = (message: string) =>
  Effect.andThen(Console.error(message), Effect.fail(new CommandFailed({ message: "failed" })))

export const list = Effect.fnUntraced(function* (input: {
  readonly failed: boolean
  readonly rule: Option.Option<string>
  readonly limit: number
}) {
  const { failed, rule, limit } = input
  if (limit < 1) return yield* fail(`--limit must be 1 or more, got ${limit}`)
  if (Option.isSome(rule) && !isUuid(rule.value)) {
    return yield* fail(`--rule must be an alert rule id (a UUID), got ${JSON.stringify(rule.value)}`)
  }
  const outbox = yield* DeliveryOutbox
  const deliveries: ReadonlyArray<Parameters<typeof formatDelivery>[0]> = failed
    ? yield* outbox.listFailed({ ruleIds: Option.isSome(rule) ? [rule.value] : undefined, limit })
    : Option.isSome(rule)
      ? yield* outbox.listByRule(rule.value, { limit })
      : yield* allDeliveries(limit)
  for (const delivery of deliveries) yield* Console.log(formatDelivery(delivery))
  if (deliveries.length === 0) {
    yield* Console.error(
      `no ${failed ? "failed " : ""}deliveries${Option.isSome(rule) ? ` of rule ${rule.value}` : ""}`
    )
  }
}, Effect.provide(AppLayer))

export const refire = Effect.fnUntraced(function* (deliveryId: string) {
  const result = yield* (yield* AlertRuleService).refire(undefined, deliveryId).pipe(Effect.result)
  if (result._tag === "Failure") {
    const error = result.failure
    switch (error._tag) {
      case "DeliveryNotFound":
        return yield* fail(`no delivery ${JSON.stringify(deliveryId)}`)
      case "DeliveryNotFailed":
        return yield* fail(`not re-fired: ${error.message}`)
      case "AlertRuleNotFound":
        return yield* fail(
          `not re-fired: the alert rule ${error.rule_id} of delivery ${deliveryId} was deleted, ` +
            "so there is no one to send it to"
        )
    }
  }
  const delivery = result.success
  yield* Console.log(
    `delivery ${delivery.delivery_id} re-fired (re-fire ${delivery.cycle}): ${delivery.status}, ` +
      `due ${delivery.next_attempt_at}; the dispatcher of a running server sends it`
  )
}, Effect.provide(AppLayer))
