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
 * defect carrying a StoreError with the reason, never a bare SqlError; a
 * stored row that does not decode with the domain's schemas is one too.
 *
 * The rows, reads, writes, destinations and the key cache live in
 * alertRules/; this module wires them into the port.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { destination, destinations, signingKey } from "./alertRules/AlertRuleDestinations.ts"
import { makeKeyOpener } from "./alertRules/AlertRuleKeys.ts"
import { get, list, matching } from "./alertRules/AlertRuleReads.ts"
import { create, del } from "./alertRules/AlertRuleWrites.ts"
import { SecretBox } from "./SecretBox.ts"

export { RuleCountLockSpace } from "./alertRules/AlertRuleRows.ts"

export const layer: Layer.Layer<AlertRuleRepository, never, SqlClient.SqlClient | SecretBox> = Layer.effect(
  AlertRuleRepository,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const openKey = makeKeyOpener(box)
    return AlertRuleRepository.of({
      list: list(sql),
      get: get(sql),
      create: create(sql, box),
      delete: del(sql),
      matching: matching(sql),
      signingKey: signingKey(sql, openKey),
      destination: destination(sql, openKey),
      destinations: destinations(sql, openKey)
    })
  })
)
