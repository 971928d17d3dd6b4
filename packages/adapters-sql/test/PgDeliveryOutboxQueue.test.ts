/**
 * The delivery outbox's queue table (migration 0014): it holds the open
 * deliveries (pending or failed) beside the outbox, so that recording an
 * attempt changes no indexed column of `webhook_deliveries` and Postgres
 * writes it as a heap-only update. The queue follows every write, raw
 * INSERTs, DELETEs and TRUNCATEs included, and the migration fills it from an
 * outbox that already has rows.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { responded } from "@ratings/domain/model/Delivery"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { delivery, deliveryId, T0 } from "@ratings/domain/test-support/contract/events-delivery-outbox"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { Migrations } from "../src/migrations/index.ts"
import { TestDatabase, UnmigratedDatabase } from "./TestDatabase.ts"

const queue = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly delivery_id: string; readonly status: string }>`
    SELECT delivery_id, status FROM webhook_delivery_queue ORDER BY seq
  `
  return rows.map((r) => `${r.delivery_id.slice(-2)}:${r.status}`)
})

describe("PgDeliveryOutbox queue table", () => {
  it.layer(PgDeliveryOutbox.layer.pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("claims then records, delivered or to retry, update the outbox rows heap-only", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* DeliveryOutbox
        yield* sql`TRUNCATE webhook_deliveries, webhook_delivery_attempts`
        const body = JSON.stringify({ event: "rating.changed", data: "x".repeat(600) })
        yield* outbox.enqueue(Array.from({ length: 200 }, (_, i) => ({ ...delivery(i + 1), body })))
        // Claimed first, as the dispatcher does: the claim's version and the record's both fit on the
        // row's page (migration 0015), with no need of the page being pruned in between.
        const claimed = yield* outbox.claimDue({ at: T0 + 10, limit: 200 })
        assert.lengthOf(claimed, 200)
        // The backend's counters, read before and after within one transaction: exact, unlike the
        // sampled statistics (they hold whatever the backend has not yet reported, so only a difference counts).
        const counters = sql<{ readonly updated: number; readonly hot: number }>`
          SELECT pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass)::int AS updated,
                 pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass)::int AS hot
        `
        const counted = yield* Effect.gen(function* () {
          const [before] = yield* counters
          const results = yield* outbox.recordAttempts(
            claimed.map((d, i) => ({
              claimed: d,
              input: { at: T0 + 20, outcome: responded(i % 2 === 0 ? 200 : 500, 3) }
            }))
          )
          assert.lengthOf(results, 200)
          const [after] = yield* counters
          return { updated: after!.updated - before!.updated, hot: after!.hot - before!.hot }
        }).pipe(sql.withTransaction)
        assert.strictEqual(counted.updated, 200)
        assert.isAtLeast(counted.hot, 180, `${counted.hot} of 200 records heap-only`)
        const left = yield* queue
        assert.lengthOf(left, 100, "the delivered left the queue; the retried stay")
        assert.isTrue(left.every((q) => q.endsWith(":pending")))
      })
    )

    it.effect("the queue follows holds, re-fires, raw inserts, deletes and truncation", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* DeliveryOutbox
        yield* sql`TRUNCATE webhook_deliveries, webhook_delivery_attempts`
        yield* outbox.enqueue([1, 2, 3].map((n) => delivery(n)))
        assert.deepStrictEqual(yield* queue, ["01:pending", "02:pending", "03:pending"])
        const [one, two] = yield* outbox.claimDue({ at: T0, limit: 2 })
        yield* outbox.hold(one!, "endpoint disabled")
        yield* outbox.recordAttempt(two!, { at: T0 + 1, outcome: responded(204, 3) })
        assert.deepStrictEqual(yield* queue, ["01:failed", "03:pending"])
        assert.deepStrictEqual(
          (yield* outbox.listFailed()).map((d) => d.delivery_id),
          [deliveryId(1)]
        )
        yield* outbox.refire(deliveryId(1), T0 + 2)
        assert.deepStrictEqual(yield* queue, ["01:pending", "03:pending"])
        yield* sql`DELETE FROM webhook_deliveries WHERE delivery_id = ${deliveryId(3)}`
        assert.deepStrictEqual(yield* queue, ["01:pending"])
        yield* sql`TRUNCATE webhook_deliveries`
        assert.deepStrictEqual(yield* queue, [])
      })
    )
  })

  it.layer(UnmigratedDatabase)((it) => {
    it.effect(
      "the migration queues an existing outbox's pending and failed deliveries, not the delivered",
      () =>
        Effect.gen(function* () {
          const before = Object.fromEntries(Object.entries(Migrations).filter(([id]) => id < "0014"))
          yield* PgMigrator.run({ loader: PgMigrator.fromRecord(before) })
          const sql = yield* SqlClient.SqlClient
          const statuses = ["pending", "failed", "delivered", "pending"] as const
          for (const [i, status] of statuses.entries()) {
            const d = delivery(i + 1)
            yield* sql`
            INSERT INTO webhook_deliveries
              (delivery_id, rule_id, event, body, status, cycle, attempts, next_attempt_at, created_at)
            VALUES (${d.delivery_id}, ${d.rule_id}, ${d.event}, ${d.body}, ${status}, 0, 0,
              ${status === "pending" ? new Date(T0) : null}, ${new Date(T0)})
          `
          }
          yield* PgMigrator.run({ loader: PgMigrator.fromRecord(Migrations) })
          assert.deepStrictEqual(yield* queue, ["01:pending", "02:failed", "04:pending"])
          yield* Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            assert.deepStrictEqual(
              (yield* outbox.claimDue({ at: T0, limit: 10 })).map((d) => d.delivery_id),
              [deliveryId(1), deliveryId(4)]
            )
            assert.deepStrictEqual(
              (yield* outbox.listFailed()).map((d) => d.delivery_id),
              [deliveryId(2)]
            )
          }).pipe(Effect.provide(PgDeliveryOutbox.layer))
        }).pipe(Effect.provide(NodeServices.layer))
    )
  })
})
