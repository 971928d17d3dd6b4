/**
 * `ratings deliveries list|refire`: the operator's view of the webhook outbox
 * (spec part 3, "Webhook delivery": failed deliveries are never replayed
 * automatically, only re-fired by hand). `list` never prints a signing key or
 * a body: the body is the customer's event, and a terminal (or a pasted log)
 * is no place for it. `refire` is the operator's re-fire
 * (AlertRuleService.refire with no account): a failed delivery starts a new
 * cycle with the same delivery_id, due now, and the dispatcher of any running
 * server sends it; anything else exits 1 with a message that says why.
 */
import type { Delivery } from "@ratings/domain/model/Delivery"
import { isoTimestampOf, Uuid } from "@ratings/domain/model/Primitives"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { Console, Effect, Option, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { SqlClient } from "effect/sql"
import { AppLayer } from "../AppLayer.ts"
import { CommandFailed } from "./CommandFailed.ts"

const DefaultLimit = 100

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

const list = Command.make(
  "list",
  {
    failed: Flag.Boolean("failed").pipe(
      Flag.withDescription("Only failed deliveries (retries exhausted; re-fire them by hand)"),
      Flag.withDefault(false)
    ),
    rule: Flag.String("rule").pipe(
      Flag.withDescription("Only the deliveries of this alert rule (its id)"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(`The newest this many deliveries (default ${DefaultLimit})`),
      Flag.withDefault(DefaultLimit)
    )
  },
  Effect.fnUntraced(function* ({ failed, rule, limit }) {
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
).pipe(
  Command.withDescription(
    "List webhook deliveries, newest first: id, rule, event, status, attempts, next attempt, last error"
  )
)

const refire = Command.make(
  "refire",
  { deliveryId: Argument.String("delivery_id").pipe(Argument.withDescription("The delivery to re-fire")) },
  Effect.fnUntraced(function* ({ deliveryId }) {
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
).pipe(Command.withDescription("Re-fire a failed webhook delivery (same delivery_id, a new run of retries)"))

export const DeliveriesCommand = Command.make("deliveries").pipe(
  Command.withDescription("Inspect and re-fire webhook deliveries"),
  Command.withSubcommands([list, refire])
)
