/**
 * The AlertRuleRepository port on Postgres. Every read or delete a caller can
 * trigger carries the account in its WHERE clause, so another account's rule
 * is "not found" by construction, not by a check after the fact. The signing
 * key is sealed with the server key (SecretBox) before it reaches the table,
 * bound to the rule id, and only `signingKey`, `destination` and
 * `destinations` (what the dispatcher reads to send) ever select that column.
 * A database failure, or a row that does not decode, is a defect carrying a
 * StoreError with the reason, never a bare SqlError. The rows, reads, writes,
 * destinations, health and rotation (AlertRuleOperations) and the key cache
 * live in alertRules/; this module wires them.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { destination, destinations, signingKey } from "./alertRules/AlertRuleDestinations.ts"
import { makeKeyOpener } from "./alertRules/AlertRuleKeys.ts"
import { destroyExpiredKeys, enable, recordHealth, rotateKey } from "./alertRules/AlertRuleOperations.ts"
import { get, list, matching, matchingEach } from "./alertRules/AlertRuleReads.ts"
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
      matchingEach: matchingEach(sql),
      signingKey: signingKey(sql, openKey),
      destination: destination(sql, openKey),
      destinations: destinations(sql, openKey),
      recordHealth: recordHealth(sql),
      enable: enable(sql),
      rotateKey: rotateKey(sql, box),
      destroyExpiredKeys: destroyExpiredKeys(sql)
    })
  })
)
