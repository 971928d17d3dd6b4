/**
 * The alert-rule reads a caller triggers: an account's rules, one rule of an
 * account, and the rules an event (or each of many) matches. None selects
 * the sealed key.
 */
import { type AlertRule, AlertRuleNotFound, type MatchableEvent } from "@ratings/domain/model/AlertRule"
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { isUuid } from "../PgTransaction.ts"
import { decodeRules, decodeWith, orDie, RuleColumns, RuleRow, toRule } from "./AlertRuleRows.ts"

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

const decodeMatched = decodeWith(Schema.Struct({ event_index: Schema.Number, ...RuleRow.fields }))

/** `matching` of many events in one statement: each event's rules, in rule order. */
export const matchingEach = (sql: SqlClient.SqlClient) => (events: ReadonlyArray<MatchableEvent>) =>
  events.length === 0
    ? Effect.succeed([])
    : sql`
    SELECT (e.event_index - 1)::int AS event_index, ${sql.literal(RuleColumns.replace(/(\w+)/g, "r.$1"))}
    FROM unnest(${events.map((e) => e.event)}::text[], ${events.map((e) => e.data.entity_type)}::text[],
        ${events.map((e) => e.data.entity_slug)}::text[]) WITH ORDINALITY AS e(event, entity_type, slug, event_index)
      JOIN alert_rules r ON e.event <> 'webhook.test'
        AND (cardinality(r.events) = 0 OR e.event = ANY (r.events))
        AND (cardinality(r.entity_types) = 0 OR e.entity_type = ANY (r.entity_types))
        AND (cardinality(r.slugs) = 0 OR e.slug = ANY (r.slugs))
    ORDER BY e.event_index, r.seq
  `.pipe(
        Effect.flatMap(decodeMatched),
        Effect.map((rows) => {
          const each = events.map((): Array<AlertRule> => [])
          for (const { event_index, ...row } of rows) each[event_index]!.push(toRule(row))
          return each
        }),
        orDie("matchingEach"),
        Effect.withSpan("PgAlertRuleRepository.matchingEach")
      )
