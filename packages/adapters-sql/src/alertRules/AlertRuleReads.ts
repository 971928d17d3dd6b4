/**
 * The alert-rule reads a caller triggers: an account's rules, one rule of an
 * account, and the rules an event matches. None selects the sealed key.
 */
import { AlertRuleNotFound, type MatchableEvent } from "@ratings/domain/model/AlertRule"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isUuid } from "../PgTransaction.ts"
import { decodeRules, orDie, RuleColumns } from "./AlertRuleRows.ts"

export const list = (sql: SqlClient.SqlClient) => (accountId: string) =>
  sql`
    SELECT ${sql.literal(RuleColumns)} FROM alert_rules WHERE account_id = ${accountId} ORDER BY seq
  `.pipe(Effect.flatMap(decodeRules), orDie("list"), Effect.withSpan("PgAlertRuleRepository.list"))

export const get = (sql: SqlClient.SqlClient) => (accountId: string, ruleId: string) =>
  Effect.gen(function* () {
    if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const [rule] = yield* sql`
      SELECT ${sql.literal(RuleColumns)} FROM alert_rules WHERE id = ${ruleId} AND account_id = ${accountId}
    `.pipe(Effect.flatMap(decodeRules), orDie("get"))
    if (rule === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    return rule
  }).pipe(Effect.withSpan("PgAlertRuleRepository.get"))

// The SQL form of the domain's `matches`: an empty filter admits everything,
// and webhook.test is addressed to one rule, never matched.
export const matching = (sql: SqlClient.SqlClient) => (event: MatchableEvent) =>
  sql`
    SELECT ${sql.literal(RuleColumns)} FROM alert_rules
    WHERE ${event.event} <> 'webhook.test'
      AND (cardinality(events) = 0 OR ${event.event} = ANY (events))
      AND (cardinality(entity_types) = 0 OR ${event.data.entity_type} = ANY (entity_types))
      AND (cardinality(slugs) = 0 OR ${event.data.entity_slug} = ANY (slugs))
    ORDER BY seq
  `.pipe(Effect.flatMap(decodeRules), orDie("matching"), Effect.withSpan("PgAlertRuleRepository.matching"))
