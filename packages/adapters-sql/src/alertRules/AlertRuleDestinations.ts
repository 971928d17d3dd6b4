/**
 * What the dispatcher reads to send: a rule's signing key, its destination
 * (url and key), and the destinations of a batch of rules in one query. The
 * only reads that select the sealed key, opened through the key cache.
 */
import { AlertRuleNotFound } from "@ratings/domain/model/AlertRule"
import type { RuleDestination } from "@ratings/domain/ports/AlertRuleRepository"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isUuid } from "../PgTransaction.ts"
import type { KeyOpener } from "./AlertRuleKeys.ts"
import { decodeDestinations, orDie } from "./AlertRuleRows.ts"

/** The stored url and sealed key of one rule, or AlertRuleNotFound. */
const destinationRow = (sql: SqlClient.SqlClient, ruleId: string, operation: string) =>
  Effect.gen(function* () {
    if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const [row] = yield* sql`
      SELECT id, webhook_url, signing_key_sealed FROM alert_rules WHERE id = ${ruleId}
    `.pipe(Effect.flatMap(decodeDestinations), orDie(operation))
    if (row === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    return row
  })

export const signingKey = (sql: SqlClient.SqlClient, openKey: KeyOpener) => (ruleId: string) =>
  Effect.gen(function* () {
    const row = yield* destinationRow(sql, ruleId, "signingKey")
    return yield* openKey(ruleId, row.signing_key_sealed).pipe(orDie("signingKey"))
  }).pipe(Effect.withSpan("PgAlertRuleRepository.signingKey"))

export const destination = (sql: SqlClient.SqlClient, openKey: KeyOpener) => (ruleId: string) =>
  Effect.gen(function* () {
    const row = yield* destinationRow(sql, ruleId, "destination")
    const signing_key = yield* openKey(ruleId, row.signing_key_sealed).pipe(orDie("destination"))
    return { webhook_url: row.webhook_url, signing_key }
  }).pipe(Effect.withSpan("PgAlertRuleRepository.destination"))

// One query for a batch of claimed deliveries; ids are matched in Postgres's lowercase
// spelling but returned under the caller's, as `destination` would answer each.
export const destinations =
  (sql: SqlClient.SqlClient, openKey: KeyOpener) => (ruleIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const found = new Map<string, RuleDestination>()
      const wanted = [...new Set(ruleIds.filter(isUuid).map((id) => id.toLowerCase()))]
      if (wanted.length === 0) return found
      const rows = yield* sql`
        SELECT id, webhook_url, signing_key_sealed FROM alert_rules WHERE id = ANY (${wanted}::uuid[])
      `.pipe(Effect.flatMap(decodeDestinations), orDie("destinations"))
      const byId = new Map<string, RuleDestination>()
      for (const row of rows) {
        const signing_key = yield* openKey(row.id, row.signing_key_sealed).pipe(orDie("destinations"))
        byId.set(row.id, { webhook_url: row.webhook_url, signing_key })
      }
      for (const id of ruleIds) {
        const destination = byId.get(id.toLowerCase())
        if (destination !== undefined) found.set(id, destination)
      }
      return found
    }).pipe(Effect.withSpan("PgAlertRuleRepository.destinations"))
