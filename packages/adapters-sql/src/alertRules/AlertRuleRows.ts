/**
 * The alert_rules table at the adapter boundary: the served columns, the
 * schemas rows decode with (the domain's `AlertRule` fields), the mapping to
 * the domain's rule, and how a failure reaches the domain (the port has no
 * error channel for store failures: a defect carrying a StoreError).
 */
import { AlertChannels, AlertRule } from "@ratings/domain/model/AlertRule"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { decodeRows, IsoFromDate, IsoOrNullFromDate } from "../PgRows.ts"

export const orDie =
  (operation: string) =>
  <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>): Effect.Effect<A, never, R> =>
    Effect.catch(effect, (error) =>
      Effect.die(new StoreError({ message: `alert rules, ${operation}: ${error.message}` }))
    )

/** Decodes the rows of a statement with `row`; a row that does not fit is a StoreError. */
export const decodeWith = <S extends Schema.Codec<unknown, unknown>>(row: S) => {
  const decode = decodeRows(row)
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<S["Type"]>, StoreError> =>
    Effect.mapError(
      decode(rows) as Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError>,
      (error) => new StoreError({ message: `a stored row does not decode: ${error.message}` })
    )
}

/** First key of the two-key advisory lock: keeps these locks apart from any other use of advisory locks. */
export const RuleCountLockSpace = 0x414c5254 // "ALRT"

/** The sealed key is bound to its rule (in Postgres's lowercase spelling), so it cannot be moved to another row. */
export const keyContext = (ruleId: string) => `alert_rule:${ruleId.toLowerCase()}`

/** The column list of a served rule; the sealed key is deliberately not in it. */
export const RuleColumns =
  "id, name, entity_types, slugs, events, webhook_url, created_at, disabled_at, disabled_reason, failing_since"

export const RuleRow = Schema.Struct({
  id: AlertRule.fields.id,
  name: AlertRule.fields.name,
  entity_types: AlertRule.fields.entity_types,
  slugs: AlertRule.fields.slugs,
  events: AlertRule.fields.events,
  webhook_url: AlertChannels.fields.webhook_url,
  created_at: IsoFromDate,
  disabled_at: IsoOrNullFromDate,
  disabled_reason: Schema.NullOr(Schema.String),
  failing_since: IsoOrNullFromDate
})
export type RuleRow = typeof RuleRow.Type

export const toRule = (row: RuleRow): AlertRule => ({
  id: row.id,
  name: row.name,
  entity_types: row.entity_types,
  slugs: row.slugs,
  events: row.events,
  channels: { webhook_url: row.webhook_url },
  created_at: row.created_at,
  disabled: row.disabled_at !== null,
  disabled_at: row.disabled_at,
  disabled_reason: row.disabled_reason,
  failing_since: row.failing_since
})

export const decodeRules = (rows: ReadonlyArray<unknown>) =>
  Effect.map(decodeRuleRows(rows), (decoded) => decoded.map(toRule))
const decodeRuleRows = decodeWith(RuleRow)

/** What the dispatcher reads to send: the url, the sealed keys and the endpoint's health. */
export const DestinationRow = Schema.Struct({
  id: Schema.String,
  webhook_url: AlertChannels.fields.webhook_url,
  signing_key_sealed: Schema.String,
  previous_key_sealed: Schema.NullOr(Schema.String),
  disabled: Schema.Boolean,
  failing: Schema.Boolean
})
export type DestinationRow = typeof DestinationRow.Type
const decodeDestinationsBySchema = decodeWith(DestinationRow)

/** URLs already seen to pass `WebhookUrl`'s checks: a claim's rows mostly share a few. Bounded. */
const checkedUrls = new Set<string>()
const isWebhookUrl = Schema.is(AlertChannels.fields.webhook_url)
const isCheckedUrl = (url: unknown): url is string => {
  if (typeof url !== "string") return false
  if (checkedUrls.has(url)) return true
  if (!isWebhookUrl(url)) return false
  if (checkedUrls.size >= 10_000) checkedUrls.clear()
  checkedUrls.add(url)
  return true
}

/** One row as a `DestinationRow` by hand, or undefined when it breaks one of the schema's rules. */
const destinationOfRow = (row: unknown): DestinationRow | undefined => {
  if (typeof row !== "object" || row === null) return undefined
  const { id, webhook_url, signing_key_sealed, previous_key_sealed, disabled, failing } = row as Record<
    string,
    unknown
  >
  return typeof id === "string" &&
    isCheckedUrl(webhook_url) &&
    typeof signing_key_sealed === "string" &&
    (previous_key_sealed === null || typeof previous_key_sealed === "string") &&
    typeof disabled === "boolean" &&
    typeof failing === "boolean"
    ? { id, webhook_url, signing_key_sealed, previous_key_sealed, disabled, failing }
    : undefined
}

/**
 * The dispatcher's destination rows, decoded by hand on its hot path (the
 * same rules as `DestinationRow`); a row that breaks one hands the whole
 * read to the schema, so the error carries its usual message.
 */
export const decodeDestinations = (
  rows: ReadonlyArray<unknown>
): Effect.Effect<ReadonlyArray<DestinationRow>, StoreError> => {
  const out: Array<DestinationRow> = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const d = destinationOfRow(rows[i])
    if (d === undefined) return decodeDestinationsBySchema(rows)
    out[i] = d
  }
  return Effect.succeed(out)
}

/** The columns of `DestinationRow` at `at` (ISO): a replaced key past its overlap is not read, swept or not. */
export const destinationColumns = (sql: SqlClient.SqlClient, at: string) => sql`
  id, webhook_url, signing_key_sealed,
  CASE WHEN previous_key_expires_at > ${at}::timestamptz THEN previous_key_sealed END AS previous_key_sealed,
  disabled_at IS NOT NULL AS disabled, failing_since IS NOT NULL AS failing
`

export const CountRow = Schema.Struct({ n: Schema.Number })
export const IdRow = Schema.Struct({ id: Schema.String })
