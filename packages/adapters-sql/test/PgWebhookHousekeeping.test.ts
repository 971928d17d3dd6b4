/**
 * The webhook history sweep on Postgres, over rows written old: finished
 * deliveries and attempts past the retention go in bounded batches, pending
 * and recent ones stay, a failed one stays until past the retention, and a
 * delivery stays claimable by the dispatcher while a sweep runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { WebhookHousekeeping } from "@ratings/domain/services/WebhookHousekeeping"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { SecretBox } from "../src/SecretBox.ts"
import { TestDatabase } from "./TestDatabase.ts"

const RULE = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"

/** `count` deliveries of one status whose cycle began `daysAgo` days ago, each with one attempt then. */
const insertOld = (status: "delivered" | "failed" | "pending", count: number, daysAgo: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      WITH d AS (
        INSERT INTO webhook_deliveries
          (delivery_id, rule_id, event, body, status, cycle, attempts, next_attempt_at, first_attempt_at, created_at)
        SELECT gen_random_uuid(), ${RULE}, 'rating.changed', '{}', ${status}, 0, 1,
          CASE WHEN ${status} = 'pending' THEN now() END,
          now() - ${daysAgo} * interval '1 day', now() - ${daysAgo} * interval '1 day'
        FROM generate_series(1, ${count})
        RETURNING delivery_id, first_attempt_at
      )
      INSERT INTO webhook_delivery_attempts (delivery_id, cycle, attempt, started_at, outcome, duration_ms)
      SELECT delivery_id, 0, 0, first_attempt_at, 'http_error', 5 FROM d
    `
  })

const counts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ delivered: number; failed: number; pending: number; attempts: number }>`
    SELECT
      (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'delivered') AS delivered,
      (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'failed') AS failed,
      (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending,
      (SELECT count(*)::int FROM webhook_delivery_attempts) AS attempts
  `
  return row
})

const stores = Layer.mergeAll(
  PgDeliveryOutbox.layer,
  PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layerRandom))
)

describe("WebhookHousekeeping on Postgres", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("a sweep removes 2,500 old finished deliveries in batches of 1,000 and keeps the rest", () =>
      Effect.gen(function* () {
        yield* insertOld("delivered", 2_000, 40)
        yield* insertOld("failed", 500, 31)
        yield* insertOld("delivered", 30, 2)
        yield* insertOld("failed", 20, 29)
        yield* insertOld("pending", 10, 40)
        const housekeeping = yield* WebhookHousekeeping
        // Live clock: the rows were written relative to the database's now().
        const swept = yield* TestClock.withLive(housekeeping.sweep)
        // The pending deliveries' attempts are as old as the retention: they go, the deliveries stay.
        assert.deepStrictEqual(swept, { deliveries: 2_500, attempts: 10, keys: 0 })
        assert.deepStrictEqual(yield* counts, { delivered: 30, failed: 20, pending: 10, attempts: 50 })
        // Still claimable: the sweep never touched a pending delivery.
        const outbox = yield* DeliveryOutbox
        assert.lengthOf(yield* outbox.claimDue({ at: Date.now() + 1_000, limit: 100 }), 10)
        assert.deepStrictEqual(yield* TestClock.withLive(housekeeping.sweep), {
          deliveries: 0,
          attempts: 0,
          keys: 0
        })
      }).pipe(
        Effect.provide(
          WebhookHousekeeping.layerWithoutLoop({ batchSize: 1_000, pause: "1 millis" }).pipe(
            Layer.provideMerge(stores)
          )
        )
      )
    )
  })
})
