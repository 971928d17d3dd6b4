/**
 * The AlertRuleRepository port on Postgres. Every read or delete a caller can
 * trigger carries the account in its WHERE clause, so another account's rule
 * is "not found" by construction, not by a check after the fact. The signing
 * key is sealed with the server key (SecretBox) before it reaches the table,
 * bound to the rule id, and only `signingKey`, `destination` and
 * `destinations` (what the dispatcher reads to send) ever select that column.
 *
 * Opened keys are cached in this process, by rule id and sealed text, for a
 * few minutes: the dispatcher reads a rule's key for every delivery, and a
 * fan-out sends many deliveries to each rule. The cache only saves the
 * decryption; every read still asks the table, so a deleted rule is gone at
 * once, and a re-sealed key is new sealed text and misses the cache. The
 * cache is bounded, holds nothing that is not in the table, and is never
 * logged.
 *
 * `create` counts the account's rules and inserts in one transaction (a
 * savepoint inside the caller's) under a transaction-scoped advisory lock on
 * the account, as the export quota does (PgExportLog): concurrent creates of
 * one account queue, in this process or any other, and cannot pass the bound
 * together. The count reads through alert_rules_account.
 *
 * The port has no error channel for store failures; a database failure is a
 * defect carrying a StoreError with the reason, never a bare SqlError.
 */
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import {
  type AlertRule,
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleNotFound,
  type AlertRuleRecord,
  type MatchableEvent
} from "@ratings/domain/model/AlertRule"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { AlertEventKind } from "@ratings/domain/model/WebhookEvent"
import { AlertRuleRepository, type RuleDestination } from "@ratings/domain/ports/AlertRuleRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { SecretBox } from "./SecretBox.ts"
import { isoOf, isUuid } from "./PgTransaction.ts"

const orDie =
  (operation: string) =>
  <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>): Effect.Effect<A, never, R> =>
    Effect.catch(effect, (error) =>
      Effect.die(new StoreError({ message: `alert rules, ${operation}: ${error.message}` }))
    )

/** The sealed key is bound to its rule (in Postgres's lowercase spelling), so it cannot be moved to another row. */
/** First key of the two-key advisory lock: keeps these locks apart from any other use of advisory locks. */
export const RuleCountLockSpace = 0x414c5254 // "ALRT"

const keyContext = (ruleId: string) => `alert_rule:${ruleId.toLowerCase()}`

/** How long an opened signing key stays cached, and how many are kept at most. */
const KeyCacheTtlMs = 5 * 60_000
const KeyCacheSize = 20_000

interface RuleRow {
  readonly id: string
  readonly name: string | null
  readonly entity_types: ReadonlyArray<EntityType>
  readonly slugs: ReadonlyArray<string>
  readonly events: ReadonlyArray<AlertEventKind>
  readonly webhook_url: string
  readonly created_at: Date
}

const toRule = (row: RuleRow): AlertRule => ({
  id: row.id,
  name: row.name,
  entity_types: row.entity_types,
  slugs: row.slugs,
  events: row.events,
  channels: { webhook_url: row.webhook_url },
  created_at: isoOf(row.created_at)
})

export const layer: Layer.Layer<AlertRuleRepository, never, SqlClient.SqlClient | SecretBox> = Layer.effect(
  AlertRuleRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox

    // The column list of a served rule; the sealed key is deliberately not in it.
    const ruleColumns = sql.literal("id, name, entity_types, slugs, events, webhook_url, created_at")

    // Insertion order is age order, so the first entry is the one to drop when full.
    const openedKeys = new Map<string, { readonly key: string; readonly until: number }>()

    /** The rule's signing key from its sealed text, decrypted at most once per cache lifetime. */
    const openKey = (ruleId: string, sealed: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const cacheKey = `${ruleId.toLowerCase()}\n${sealed}`
        const cached = openedKeys.get(cacheKey)
        if (cached !== undefined && cached.until > now) return cached.key
        const key = yield* box.open(sealed, keyContext(ruleId))
        openedKeys.delete(cacheKey)
        if (openedKeys.size >= KeyCacheSize) {
          for (const old of openedKeys.keys()) {
            openedKeys.delete(old)
            if (openedKeys.size < KeyCacheSize) break
          }
        }
        openedKeys.set(cacheKey, { key, until: now + KeyCacheTtlMs })
        return key
      })

    const list = (accountId: string) =>
      sql<RuleRow>`
        SELECT ${ruleColumns} FROM alert_rules WHERE account_id = ${accountId} ORDER BY seq
      `.pipe(
        Effect.map((rows) => rows.map(toRule)),
        orDie("list"),
        Effect.withSpan("PgAlertRuleRepository.list")
      )

    const get = (accountId: string, ruleId: string) =>
      Effect.gen(function* () {
        if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        const [row] = yield* sql<RuleRow>`
          SELECT ${ruleColumns} FROM alert_rules WHERE id = ${ruleId} AND account_id = ${accountId}
        `.pipe(orDie("get"))
        if (row === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        return toRule(row)
      }).pipe(Effect.withSpan("PgAlertRuleRepository.get"))

    const create = (record: AlertRuleRecord, maxPerAccount: number = AlertRuleLimits.rulesPerAccount) =>
      Effect.gen(function* () {
        const sealed = yield* box.seal(record.signing_key, keyContext(record.id))
        yield* sql`SELECT pg_advisory_xact_lock(${RuleCountLockSpace}, hashtext(${record.account_id}::text))`.pipe(
          orDie("create")
        )
        const [held] = yield* sql<{ readonly n: number }>`
          SELECT count(*)::int AS n FROM alert_rules WHERE account_id = ${record.account_id}
        `.pipe(orDie("create"))
        if ((held?.n ?? 0) >= maxPerAccount) return yield* AlertRuleLimitReached.of(maxPerAccount)
        const [row] = yield* sql<RuleRow>`
          INSERT INTO alert_rules
            (id, account_id, name, entity_types, slugs, events, webhook_url, signing_key_sealed, created_at)
          VALUES (
            ${record.id}, ${record.account_id}, ${record.name},
            ${[...record.entity_types]}::text[], ${[...record.slugs]}::text[], ${[...record.events]}::text[],
            ${record.channels.webhook_url}, ${sealed}, ${record.created_at}::timestamptz
          )
          ON CONFLICT (id) DO NOTHING
          RETURNING ${ruleColumns}
        `.pipe(orDie("create"))
        // A duplicate id is a bug in the caller (ids are fresh UUIDs), as in memory.
        if (row === undefined) return yield* Effect.die(new Error(`alert rule ${record.id} exists`))
        return toRule(row)
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", (error) =>
          Effect.die(new StoreError({ message: `alert rules, create: ${error.message}` }))
        ),
        Effect.withSpan("PgAlertRuleRepository.create")
      )

    const del = (accountId: string, ruleId: string) =>
      Effect.gen(function* () {
        if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        const deleted = yield* sql<{ readonly id: string }>`
          DELETE FROM alert_rules WHERE id = ${ruleId} AND account_id = ${accountId} RETURNING id
        `.pipe(orDie("delete"))
        if (deleted.length === 0) return yield* new AlertRuleNotFound({ rule_id: ruleId })
      }).pipe(Effect.withSpan("PgAlertRuleRepository.delete"))

    // The SQL form of the domain's `matches`: an empty filter admits everything,
    // and webhook.test is addressed to one rule, never matched.
    const matching = (event: MatchableEvent) =>
      sql<RuleRow>`
        SELECT ${ruleColumns} FROM alert_rules
        WHERE ${event.event} <> 'webhook.test'
          AND (cardinality(events) = 0 OR ${event.event} = ANY (events))
          AND (cardinality(entity_types) = 0 OR ${event.data.entity_type} = ANY (entity_types))
          AND (cardinality(slugs) = 0 OR ${event.data.entity_slug} = ANY (slugs))
        ORDER BY seq
      `.pipe(
        Effect.map((rows) => rows.map(toRule)),
        orDie("matching"),
        Effect.withSpan("PgAlertRuleRepository.matching")
      )

    const signingKey = (ruleId: string) =>
      Effect.gen(function* () {
        if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        const [row] = yield* sql<{ readonly signing_key_sealed: string }>`
          SELECT signing_key_sealed FROM alert_rules WHERE id = ${ruleId}
        `.pipe(orDie("signingKey"))
        if (row === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        return yield* openKey(ruleId, row.signing_key_sealed).pipe(orDie("signingKey"))
      }).pipe(Effect.withSpan("PgAlertRuleRepository.signingKey"))

    const destination = (ruleId: string) =>
      Effect.gen(function* () {
        if (!isUuid(ruleId)) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        const [row] = yield* sql<{ readonly webhook_url: string; readonly signing_key_sealed: string }>`
          SELECT webhook_url, signing_key_sealed FROM alert_rules WHERE id = ${ruleId}
        `.pipe(orDie("destination"))
        if (row === undefined) return yield* new AlertRuleNotFound({ rule_id: ruleId })
        const signing_key = yield* openKey(ruleId, row.signing_key_sealed).pipe(orDie("destination"))
        return { webhook_url: row.webhook_url, signing_key }
      }).pipe(Effect.withSpan("PgAlertRuleRepository.destination"))

    // One query for a batch of claimed deliveries; ids are matched in Postgres's lowercase
    // spelling but returned under the caller's, as `destination` would answer each.
    const destinations = (ruleIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const found = new Map<string, RuleDestination>()
        const wanted = [...new Set(ruleIds.filter(isUuid).map((id) => id.toLowerCase()))]
        if (wanted.length === 0) return found
        const rows = yield* sql<{
          readonly id: string
          readonly webhook_url: string
          readonly signing_key_sealed: string
        }>`
          SELECT id, webhook_url, signing_key_sealed FROM alert_rules WHERE id = ANY (${wanted}::uuid[])
        `.pipe(orDie("destinations"))
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

    return AlertRuleRepository.of({
      list,
      get,
      create,
      delete: del,
      matching,
      signingKey,
      destination,
      destinations
    })
  })
)
