/**
 * What the dispatcher reads to send: a rule's signing key, its destination
 * (url, keys, endpoint health), and the destinations of a batch of rules in
 * one query. The only reads that select the sealed keys, opened through the
 * key cache; a replaced key is read only while its overlap runs.
 */
import { AlertRuleNotFound } from "@ratings/domain/model/AlertRule"
import type { RuleDestination } from "@ratings/domain/ports/AlertRuleRepository"
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { isUuid } from "../PgTransaction.ts"
import type { KeyOpener } from "./AlertRuleKeys.ts"
import { type DestinationRow, decodeDestinations, destinationColumns, orDie } from "./AlertRuleRows.ts"

/** The rule's destination from its row: the keys opened through the cache. */
const toDestination = (
  openKey: KeyOpener,
  row: {
    readonly id: string
    readonly webhook_url: string
    readonly signing_key_sealed: string
    readonly previous_key_sealed: string | null
    readonly disabled: boolean
    readonly failing: boolean
  },
  operation: string
) =>
  Effect.gen(function* () {
    const signing_key = yield* openKey(row.id, row.signing_key_sealed).pipe(orDie(operation))
    const previous_signing_key =
      row.previous_key_sealed === null
        ? null
        : yield* openKey(row.id, row.previous_key_sealed).pipe(orDie(operation))
    return {
      webhook_url: row.webhook_url,
      signing_key,
      previous_signing_key,
      disabled: row.disabled,
      failing: row.failing
    } satisfies RuleDestination
  })

const nowIso = Effect.map(Clock.currentTimeMillis, (at) => new Date(at).toISOString())

/** The stored url and sealed key of one rule, or AlertRuleNotFound. */
const destinationRow = (sql: SqlClient.SqlClient, ruleId: string, operation: string) =>
  Effect.gen(function* () {
    if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
    const [row] = yield* sql`
      SELECT ${destinationColumns(sql, yield* nowIso)} FROM alert_rules WHERE id = ${ruleId}
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
    return yield* toDestination(openKey, { ...row, id: ruleId }, "destination")
  }).pipe(Effect.withSpan("PgAlertRuleRepository.destination"))

/**
 * A batch's row as a destination, in plain code when its keys are cached (a
 * fan-out reads each rule once per event); a key not cached is opened.
 */
const toDestinationAt = (openKey: KeyOpener, row: DestinationRow, now: number) => {
  const signing_key = openKey.cached(row.id, row.signing_key_sealed, now)
  const previous_signing_key =
    row.previous_key_sealed === null ? null : openKey.cached(row.id, row.previous_key_sealed, now)
  return signing_key === undefined || previous_signing_key === undefined
    ? undefined
    : ({
        webhook_url: row.webhook_url,
        signing_key,
        previous_signing_key,
        disabled: row.disabled,
        failing: row.failing
      } satisfies RuleDestination)
}

// One query for a batch of claimed deliveries; ids are matched in Postgres's lowercase
// spelling but returned under the caller's, as `destination` would answer each.
export const destinations =
  (sql: SqlClient.SqlClient, openKey: KeyOpener) => (ruleIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const found = new Map<string, RuleDestination>()
      const wanted = [...new Set(ruleIds.filter(isUuid).map((id) => id.toLowerCase()))]
      if (wanted.length === 0) return found
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql`
        SELECT ${destinationColumns(sql, new Date(now).toISOString())} FROM alert_rules WHERE id = ANY (${wanted}::uuid[])
      `.pipe(Effect.flatMap(decodeDestinations), orDie("destinations"))
      const byId = new Map<string, RuleDestination>()
      for (const row of rows)
        byId.set(
          row.id,
          toDestinationAt(openKey, row, now) ?? (yield* toDestination(openKey, row, "destinations"))
        )
      for (const id of ruleIds) {
        const destination = byId.get(id.toLowerCase())
        if (destination !== undefined) found.set(id, destination)
      }
      return found
    }).pipe(Effect.withSpan("PgAlertRuleRepository.destinations"))
