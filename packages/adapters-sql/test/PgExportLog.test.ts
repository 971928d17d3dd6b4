import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { ExportLog } from "@ratings/domain/ports/ExportLog"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import * as PgExportLog from "../src/PgExportLog.ts"
import { otherProcessClient, postgresTarget } from "./PostgresTarget.ts"
import { exportLogContract, exportRecord } from "@ratings/domain/test-support/contract/ratings-export-log"
import { TestDatabase } from "./TestDatabase.ts"

exportLogContract(postgresTarget(PgExportLog.layer))

const windowStart = "2026-07-31T00:00:00.000Z"

/** The ExportLog of "another server process": its own connection pool to the same database. */
const otherProcess = Effect.map(
  Layer.build(PgExportLog.layer.pipe(Layer.provide(otherProcessClient))),
  (context) => Context.get(context, ExportLog)
)

/** Transactions waiting for an advisory lock right now. */
/** Sessions waiting for an advisory lock of this test's database (other files run beside it on the same server). */
const lockWaiters = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  const [row] = yield* sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
  return row!.n
})

describe("PgExportLog", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "10 concurrent exports of one account from two server processes, quota 5: exactly 5 recorded",
      () =>
        Effect.gen(function* () {
          const here = yield* ExportLog
          const there = yield* otherProcess
          const sql = yield* PgClient.PgClient
          const outcomes = yield* Effect.forEach(
            Array.from({ length: 10 }, (_, i) => i),
            (i) =>
              (i % 2 === 0 ? here : there).recordWithinQuota(
                exportRecord(100 + i, i / 10, { account_id: "racer" }),
                windowStart,
                5
              ),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(outcomes.filter((o) => o.recorded).length, 5)
          const [row] = yield* sql<{
            n: number
          }>`SELECT count(*)::int AS n FROM export_log WHERE account_id = 'racer'`
          assert.strictEqual(row!.n, 5)
        }).pipe(Effect.provide(PgExportLog.layer))
    )

    it.effect("an export in another process waits for an open one of the same account, then counts it", () =>
      Effect.gen(function* () {
        const here = yield* ExportLog
        const there = yield* otherProcess
        const sql = yield* PgClient.PgClient
        const first = exportRecord(200, 0, { account_id: "waiter" })
        const recorded = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // The first export's transaction stays open (holding the account's lock) until released.
        const holder = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const outcome = yield* here.recordWithinQuota(first, windowStart, 1)
              yield* Deferred.succeed(recorded, undefined)
              yield* Deferred.await(release)
              return outcome
            })
          )
          .pipe(Effect.forkChild)
        yield* Deferred.await(recorded)
        const second = yield* there
          .recordWithinQuota(exportRecord(201, 0.5, { account_id: "waiter" }), windowStart, 1)
          .pipe(Effect.forkChild)
        const waiting = yield* lockWaiters.pipe(Effect.repeat({ until: (n) => n > 0, times: 10_000 }))
        assert.strictEqual(waiting, 1)
        assert.isUndefined(second.pollUnsafe())
        yield* Deferred.succeed(release, undefined)
        assert.deepStrictEqual(yield* Fiber.join(holder), { recorded: true })
        assert.deepStrictEqual(yield* Fiber.join(second), { recorded: false, oldest: first.created_at })
      }).pipe(Effect.provide(PgExportLog.layer))
    )

    it.effect("other accounts do not wait for the lock of one account", () =>
      Effect.gen(function* () {
        const here = yield* ExportLog
        const there = yield* otherProcess
        const sql = yield* PgClient.PgClient
        const held = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* here.recordWithinQuota(exportRecord(300, 0, { account_id: "busy" }), windowStart, 5)
              yield* Deferred.succeed(held, undefined)
              yield* Deferred.await(release)
            })
          )
          .pipe(Effect.forkChild)
        yield* Deferred.await(held)
        const outcome = yield* there.recordWithinQuota(
          exportRecord(301, 0, { account_id: "idle" }),
          windowStart,
          5
        )
        assert.deepStrictEqual(outcome, { recorded: true })
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
      }).pipe(Effect.provide(PgExportLog.layer))
    )
  })
})
