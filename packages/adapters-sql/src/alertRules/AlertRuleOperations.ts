/**
 * The alert-rule writes of webhook operations: endpoint health (the domain's
 * `nextHealth`, as one UPDATE over a batch, computed on each row as it is
 * when written, so concurrent batches compose), enabling an endpoint again,
 * rotating the signing key (the replaced key kept sealed until its overlap
 * ends), and destroying replaced keys whose overlap has ended.
 */
import { type AlertRuleHealth, AlertRuleNotFound } from "@ratings/domain/model/AlertRule"
import { isoOf } from "@ratings/domain/model/Delivery"
import type { EndpointObservation } from "@ratings/domain/webhooks/EndpointHealth"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { IsoOrNullFromDate } from "../PgRows.ts"
import { isUuid } from "../PgTransaction.ts"
import type { SecretBoxShape } from "../SecretBox.ts"
import { decodeRules, decodeWith, IdRow, keyContext, orDie, RuleColumns } from "./AlertRuleRows.ts"

const decodeIds = decodeWith(IdRow)
const HealthRow = Schema.Struct({
  disabled_at: IsoOrNullFromDate,
  disabled_reason: Schema.NullOr(Schema.String),
  failing_since: IsoOrNullFromDate
})
const decodeHealth = decodeWith(HealthRow)

const isoOrNull = (at: number | null) => (at === null ? null : new Date(at).toISOString())

export const recordHealth =
  (sql: SqlClient.SqlClient) =>
  (observations: ReadonlyArray<EndpointObservation>, disableAfterMs: number, reason: string) =>
    Effect.gen(function* () {
      const input = observations
        .filter((o) => isUuid(o.rule_id))
        .map((o) => ({
          rule_id: o.rule_id,
          delivered: o.delivered,
          failing_from: isoOrNull(o.failing_from),
          last_failure: isoOrNull(o.last_failure)
        }))
      if (input.length === 0) return []
      // `since` is the failing run's start after this batch; SET sees the row as it is when written.
      const since = sql`(CASE WHEN o.delivered OR r.failing_since IS NULL THEN o.failing_from ELSE r.failing_since END)`
      const disables = sql`(r.disabled_at IS NULL AND ${since} IS NOT NULL AND o.last_failure IS NOT NULL
        AND o.last_failure - ${since} >= ${disableAfterMs}::double precision * interval '1 millisecond')`
      const rows = yield* sql`
        WITH o AS (
          SELECT * FROM json_to_recordset(${JSON.stringify(input)}::json)
            AS o(rule_id uuid, delivered boolean, failing_from timestamptz, last_failure timestamptz)
        ), before AS (
          SELECT r.id, r.disabled_at IS NOT NULL AS was_disabled FROM alert_rules r JOIN o ON r.id = o.rule_id
        )
        UPDATE alert_rules r SET
          failing_since = ${since},
          disabled_reason = CASE WHEN ${disables} THEN ${reason} ELSE r.disabled_reason END,
          disabled_at = CASE WHEN ${disables} THEN o.last_failure ELSE r.disabled_at END
        FROM o, before
        WHERE r.id = o.rule_id AND before.id = r.id
        RETURNING r.id, (NOT before.was_disabled AND r.disabled_at IS NOT NULL) AS newly
      `.pipe(orDie("recordHealth"))
      return (rows as ReadonlyArray<{ id: string; newly: boolean }>).filter((r) => r.newly).map((r) => r.id)
    }).pipe(Effect.withSpan("PgAlertRuleRepository.recordHealth"))

export const enable = (sql: SqlClient.SqlClient) => (accountId: string | undefined, ruleId: string) =>
  Effect.gen(function* () {
    if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const ofAccount = accountId === undefined ? sql`TRUE` : sql`account_id = ${accountId}`
    const [old] = yield* sql`
      SELECT disabled_at, disabled_reason, failing_since FROM alert_rules
      WHERE id = ${ruleId} AND ${ofAccount} FOR UPDATE
    `.pipe(Effect.flatMap(decodeHealth), orDie("enable"))
    if (old === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const [rule] = yield* sql`
      UPDATE alert_rules SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
      WHERE id = ${ruleId} RETURNING ${sql.literal(RuleColumns)}
    `.pipe(Effect.flatMap(decodeRules), orDie("enable"))
    if (rule === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const before: AlertRuleHealth = { ...old, disabled: old.disabled_at !== null }
    return { rule, before }
  }).pipe(
    sql.withTransaction,
    Effect.catchTag("SqlError", (error) => orDie("enable")(Effect.fail(error))),
    Effect.withSpan("PgAlertRuleRepository.enable")
  )

export const rotateKey =
  (sql: SqlClient.SqlClient, box: SecretBoxShape) =>
  (accountId: string, ruleId: string, newKey: string, previousUntil: number | null) =>
    Effect.gen(function* () {
      if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
      const sealed = yield* box.seal(newKey, keyContext(ruleId))
      const until = isoOrNull(previousUntil)
      // SET reads the row as it was: the replaced key is the one stored before this statement.
      const [rule] = yield* sql`
        UPDATE alert_rules SET
          previous_key_sealed = CASE WHEN ${until}::timestamptz IS NULL THEN NULL ELSE signing_key_sealed END,
          previous_key_expires_at = ${until}::timestamptz,
          signing_key_sealed = ${sealed}
        WHERE id = ${ruleId} AND account_id = ${accountId}
        RETURNING ${sql.literal(RuleColumns)}
      `.pipe(Effect.flatMap(decodeRules), orDie("rotateKey"))
      if (rule === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
      return { rule, previous_key_expires_at: previousUntil === null ? null : isoOf(previousUntil) }
    }).pipe(Effect.withSpan("PgAlertRuleRepository.rotateKey"))

export const destroyExpiredKeys = (sql: SqlClient.SqlClient) => (at: number) =>
  sql`
    UPDATE alert_rules SET previous_key_sealed = NULL, previous_key_expires_at = NULL
    WHERE previous_key_expires_at <= ${new Date(at).toISOString()}::timestamptz
    RETURNING id
  `.pipe(
    Effect.flatMap(decodeIds),
    Effect.map((ids) => ids.length),
    orDie("destroyExpiredKeys"),
    Effect.withSpan("PgAlertRuleRepository.destroyExpiredKeys")
  )
