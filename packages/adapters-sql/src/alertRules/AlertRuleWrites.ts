/**
 * The alert-rule writes: `create` and `delete`. `create` counts the account's
 * rules and inserts in one transaction (a savepoint inside the caller's)
 * under a transaction-scoped advisory lock on the account, as the export
 * quota does (PgExportLog): concurrent creates of one account queue, in any
 * process, and cannot pass the bound together. The count reads through
 * alert_rules_account.
 */
import {
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleNotFound,
  type AlertRuleRecord
} from "@ratings/domain/model/AlertRule"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isUuid } from "../PgTransaction.ts"
import type { SecretBoxShape } from "../SecretBox.ts"
import {
  CountRow,
  decodeRules,
  decodeWith,
  IdRow,
  keyContext,
  orDie,
  RuleColumns,
  RuleCountLockSpace
} from "./AlertRuleRows.ts"

const decodeCount = decodeWith(CountRow)
const decodeIds = decodeWith(IdRow)

const insertRule = (sql: SqlClient.SqlClient, record: AlertRuleRecord, sealed: string) =>
  sql`
    INSERT INTO alert_rules
      (id, account_id, name, entity_types, slugs, events, webhook_url, signing_key_sealed, created_at)
    VALUES (
      ${record.id}, ${record.account_id}, ${record.name},
      ${[...record.entity_types]}::text[], ${[...record.slugs]}::text[], ${[...record.events]}::text[],
      ${record.channels.webhook_url}, ${sealed}, ${record.created_at}::timestamptz
    )
    ON CONFLICT (id) DO NOTHING
    RETURNING ${sql.literal(RuleColumns)}
  `.pipe(Effect.flatMap(decodeRules), orDie("create"))

export const create =
  (sql: SqlClient.SqlClient, box: SecretBoxShape) =>
  (record: AlertRuleRecord, maxPerAccount: number = AlertRuleLimits.rulesPerAccount) =>
    Effect.gen(function* () {
      const sealed = yield* box.seal(record.signing_key, keyContext(record.id))
      yield* sql`SELECT pg_advisory_xact_lock(${RuleCountLockSpace}, hashtext(${record.account_id}::text))`.pipe(
        orDie("create")
      )
      const [held] = yield* sql`
        SELECT count(*)::int AS n FROM alert_rules WHERE account_id = ${record.account_id}
      `.pipe(Effect.flatMap(decodeCount), orDie("create"))
      if ((held?.n ?? 0) >= maxPerAccount) return yield* AlertRuleLimitReached.of(maxPerAccount)
      const [rule] = yield* insertRule(sql, record, sealed)
      // A duplicate id is a bug in the caller (ids are fresh UUIDs), as in memory.
      if (rule === undefined) return yield* Effect.die(new Error(`alert rule ${record.id} exists`))
      return rule
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("SqlError", (error) =>
        Effect.die(new StoreError({ message: `alert rules, create: ${error.message}` }))
      ),
      Effect.withSpan("PgAlertRuleRepository.create")
    )

export const del = (sql: SqlClient.SqlClient) => (accountId: string, ruleId: string) =>
  Effect.gen(function* () {
    if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const deleted = yield* sql`
      DELETE FROM alert_rules WHERE id = ${ruleId} AND account_id = ${accountId} RETURNING id
    `.pipe(Effect.flatMap(decodeIds), orDie("delete"))
    if (deleted.length === 0) return yield* new AlertRuleNotFound({ rule_id: ruleId })
  }).pipe(Effect.withSpan("PgAlertRuleRepository.delete"))
