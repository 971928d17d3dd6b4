/**
 * What `ratings deliveries rules|enable|refire-failed` do (the commands:
 * DeliveriesCommand.ts). `rules` is the operator's view of every rule's
 * endpoint health (never a key, never a URL's path or query, which may carry
 * a receiver's token); `enable` and `refire-failed` are AlertRuleService's,
 * with no account: an operator acts on any rule.
 */
import { isoTimestampOf, Uuid } from "@ratings/domain/model/Primitives"
import { RefireBatchLimit, type RefireReport } from "@ratings/domain/model/WebhookOperations"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { Console, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

const isUuid = Schema.is(Uuid)

const fail = (message: string) =>
  Effect.andThen(Console.error(message), Effect.fail(new CommandFailed({ message: "failed" })))

interface RuleRow {
  readonly id: string
  readonly account_id: string
  readonly webhook_url: string
  readonly disabled_at: Date | null
  readonly disabled_reason: string | null
  readonly failing_since: Date | null
}

/** The scheme, host and port of a URL: its path and query may carry a receiver's token. */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return "-"
  }
}

const iso = (date: Date | null) => (date === null ? "-" : isoTimestampOf(date))

/** One tab-separated line: id, account, endpoint origin, state, failing since, disabled at, reason. */
export const formatRule = (row: RuleRow): string =>
  [
    row.id,
    row.account_id,
    originOf(row.webhook_url),
    row.disabled_at === null ? "active" : "disabled",
    `failing since ${iso(row.failing_since)}`,
    `disabled at ${iso(row.disabled_at)}`,
    row.disabled_reason ?? "-"
  ].join("\t")

export const rules = Effect.fnUntraced(function* (input: { readonly disabled: boolean }) {
  const sql = yield* SqlClient.SqlClient
  const onlyDisabled = input.disabled ? sql`WHERE disabled_at IS NOT NULL` : sql``
  const rows = yield* sql<RuleRow>`
    SELECT id, account_id, webhook_url, disabled_at, disabled_reason, failing_since
    FROM alert_rules ${onlyDisabled} ORDER BY seq
  `
  for (const row of rows) yield* Console.log(formatRule(row))
  if (rows.length === 0) yield* Console.error(input.disabled ? "no disabled rules" : "no alert rules")
}, Effect.provide(AppLayer))

const reportLine = (report: RefireReport) =>
  `re-fired ${report.refired} failed deliver${report.refired === 1 ? "y" : "ies"}` +
  (report.more ? `; more remain (at most ${RefireBatchLimit} per call): run it again` : "") +
  (report.delivery_ids.length > 0 ? `\n${report.delivery_ids.join("\n")}` : "")

export const enable = Effect.fnUntraced(function* (input: {
  readonly ruleId: string
  readonly refire: boolean
}) {
  if (!isUuid(input.ruleId))
    return yield* fail(`not an alert rule id (a UUID): ${JSON.stringify(input.ruleId)}`)
  const result = yield* (yield* AlertRuleService)
    .enable(undefined, input.ruleId, { refire: input.refire })
    .pipe(Effect.result)
  if (result._tag === "Failure") return yield* fail(`no alert rule ${input.ruleId}`)
  const { was_disabled_at, refire } = result.success
  yield* Console.log(
    was_disabled_at === null
      ? `rule ${input.ruleId} was not disabled; its failing count is reset`
      : `rule ${input.ruleId} enabled (it was disabled at ${was_disabled_at})`
  )
  if (refire !== null) yield* Console.log(reportLine(refire))
}, Effect.provide(AppLayer))

export const refireFailed = Effect.fnUntraced(function* (input: {
  readonly rule: Option.Option<string>
  readonly account: Option.Option<string>
  readonly since: string
  readonly limit: number
}) {
  const { rule, account, since, limit } = input
  if (Option.isSome(rule) === Option.isSome(account))
    return yield* fail("give exactly one of --rule <rule id> or --account <account id>")
  if (Option.isSome(rule) && !isUuid(rule.value))
    return yield* fail(`--rule must be an alert rule id (a UUID), got ${JSON.stringify(rule.value)}`)
  const sinceMs = Date.parse(since)
  if (!/(?:Z|[+-]\d{2}:\d{2})$/.test(since) || Number.isNaN(sinceMs))
    return yield* fail(
      `--since must be an ISO 8601 date-time with a zone, such as 2026-11-01T00:00:00Z; got ${JSON.stringify(since)}`
    )
  if (!(limit >= 1 && limit <= RefireBatchLimit))
    return yield* fail(`--limit must be 1 to ${RefireBatchLimit}, got ${limit}`)
  const scope = Option.isSome(rule) ? { ruleId: rule.value } : { accountId: Option.getOrThrow(account) }
  const result = yield* (yield* AlertRuleService)
    .refireFailed(undefined, scope, { since: sinceMs, limit })
    .pipe(Effect.result)
  if (result._tag === "Failure") return yield* fail(`no alert rule ${Option.getOrUndefined(rule)}`)
  yield* Console.log(reportLine(result.success))
}, Effect.provide(AppLayer))
