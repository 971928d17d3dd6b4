/**
 * The webhook-operations contracts over Postgres: endpoint health, key
 * rotation, holding, bulk re-fire and the retention sweep, exactly as in memory;
 * and the replaced key sealed at rest, then removed from its row.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { rule, ruleId } from "@ratings/domain/test-support/contract/events-alert-rule-repository"
import {
  alertRuleOperationsContract,
  deliveryOutboxOperationsContract
} from "@ratings/domain/test-support/contract/events-webhook-operations"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { SecretBox } from "../src/SecretBox.ts"
import { sharedDatabase } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

const database = sharedDatabase(["alert_rules", "webhook_deliveries", "webhook_delivery_attempts"])

alertRuleOperationsContract("PgAlertRuleRepository", () =>
  PgAlertRuleRepository.layer.pipe(Layer.provide(Layer.merge(database, SecretBox.layerRandom)))
)
deliveryOutboxOperationsContract("PgDeliveryOutbox", () =>
  PgDeliveryOutbox.layer.pipe(Layer.provide(database))
)

describe("PgAlertRuleRepository key rotation at rest", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "the replaced key is stored sealed while its overlap runs, and removed from the row after",
      () =>
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          const sql = yield* SqlClient.SqlClient
          const id = ruleId(77)
          const oldKey = `whsec_${Buffer.alloc(32, 1).toString("base64")}`
          const newKey = `whsec_${Buffer.alloc(32, 2).toString("base64")}`
          yield* repo.create(rule(id, "alice", { signing_key: oldKey }))
          yield* repo.rotateKey("alice", id, newKey, 60_000)
          const stored = () =>
            sql<{ signing_key_sealed: string; previous_key_sealed: string | null; expires: Date | null }>`
            SELECT signing_key_sealed, previous_key_sealed, previous_key_expires_at AS expires
            FROM alert_rules WHERE id = ${id}
          `
          const [during] = yield* stored()
          assert.match(during!.previous_key_sealed!, /^v1:/)
          assert.notInclude(JSON.stringify(during), oldKey.slice(6))
          assert.notInclude(JSON.stringify(during), newKey.slice(6))
          assert.strictEqual((yield* repo.destination(id)).previous_signing_key, oldKey)
          assert.strictEqual(yield* repo.destroyExpiredKeys(60_000), 1)
          const [after] = yield* stored()
          assert.deepStrictEqual([after!.previous_key_sealed, after!.expires], [null, null])
        }).pipe(
          Effect.provide(
            PgAlertRuleRepository.layer.pipe(
              Layer.provide(SecretBox.layer(Buffer.alloc(32, 5).toString("base64")))
            )
          )
        )
    )
  })
})
