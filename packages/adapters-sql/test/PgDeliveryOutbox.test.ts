import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Latch, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { millisOf, noResponse, responded } from "@ratings/domain/model/Delivery"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { RetryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import { otherProcessClient, secondConnection, sharedDatabase } from "./PostgresTarget.ts"
import {
  delivery,
  deliveryId,
  deliveryOutboxContract,
  RULE,
  SECOND,
  T0
} from "@ratings/domain/test-support/contract/events-delivery-outbox"
import { TestDatabase } from "./TestDatabase.ts"

/** One database for the file, emptied before each contract test. */
const database = sharedDatabase(["webhook_deliveries", "webhook_delivery_attempts"])

deliveryOutboxContract("PgDeliveryOutbox", () => PgDeliveryOutbox.layer.pipe(Layer.provide(database)))

const truncate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`TRUNCATE webhook_deliveries CASCADE`
})

/** Claims in batches until a claim comes back empty, as a dispatcher loop does. */
const drain = (at: number, limit: number) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox
    const claimed: Array<string> = []
    for (;;) {
      const batch = yield* outbox.claimDue({ at, limit })
      if (batch.length === 0) return claimed
      claimed.push(...batch.map((d) => d.delivery_id))
    }
  })

describe("PgDeliveryOutbox", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "two server processes claiming 200 due deliveries at once claim disjoint sets that cover them all",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const outbox = yield* DeliveryOutbox
          const otherProcess = yield* Layer.build(
            PgDeliveryOutbox.layer.pipe(Layer.provide(otherProcessClient))
          )
          const inOtherProcess = <A, E>(effect: Effect.Effect<A, E, DeliveryOutbox>) =>
            Effect.provide(effect, otherProcess)
          // Both pools connected before the race starts, so neither drains the lot alone.
          yield* drain(T0 - 1, 1)
          yield* inOtherProcess(drain(T0 - 1, 1))
          const all = Array.from({ length: 200 }, (_, i) => delivery(i + 1, T0 + (i % 7)))
          yield* outbox.enqueue(all)
          const [mine, theirs] = yield* Effect.all([drain(T0 + 10, 5), inOtherProcess(drain(T0 + 10, 5))], {
            concurrency: 2
          })
          assert.isAbove(mine.length, 0)
          assert.isAbove(theirs.length, 0, "both processes got work")
          const overlap = mine.filter((id) => theirs.includes(id))
          assert.deepStrictEqual(overlap, [], "no delivery is claimed by both")
          assert.strictEqual(mine.length + theirs.length, 200)
          assert.deepStrictEqual(
            new Set([...mine, ...theirs]),
            new Set(all.map((d) => d.delivery_id)),
            "every due delivery is claimed"
          )
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect("a claim still in flight elsewhere is skipped, not waited for (SKIP LOCKED)", () =>
      Effect.gen(function* () {
        yield* truncate
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue(Array.from({ length: 20 }, (_, i) => delivery(i + 1)))
        const [held, others] = yield* sql.withTransaction(
          Effect.gen(function* () {
            // Claimed inside an open transaction: the rows stay locked until it commits.
            const held = yield* outbox.claimDue({ at: T0, limit: 8 })
            const others = yield* secondConnection(drain(T0, 50), PgDeliveryOutbox.layer)
            return [held, others] as const
          })
        )
        assert.lengthOf(held, 8)
        assert.deepStrictEqual(
          others,
          Array.from({ length: 12 }, (_, i) => deliveryId(i + 9))
        )
      }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a crashed process's claim expires: another process claims and delivers; the late record is refused",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          const lease = 60 * SECOND
          // This process claims, then "dies" without recording anything.
          const [orphan] = yield* outbox.claimDue({ at: T0, limit: 10, leaseMs: lease })
          const other = <A, E>(effect: (o: typeof outbox) => Effect.Effect<A, E>) =>
            secondConnection(
              Effect.gen(function* () {
                return yield* effect(yield* DeliveryOutbox)
              }),
              PgDeliveryOutbox.layer
            )
          assert.lengthOf(yield* other((o) => o.claimDue({ at: T0 + lease - 1, limit: 10 })), 0, "leased")
          const [reclaimed] = yield* other((o) => o.claimDue({ at: T0 + lease, limit: 10 }))
          assert.strictEqual(reclaimed?.delivery_id, orphan?.delivery_id)
          yield* other((o) => o.recordAttempt(reclaimed!, { at: T0 + lease, outcome: responded(200, 3) }))
          const late = yield* Effect.flip(
            outbox.recordAttempt(orphan!, { at: T0 + lease + 1, outcome: responded(200, 4) })
          )
          assert.strictEqual(late._tag, "DeliveryTransitionRejected")
          const stored = yield* outbox.get(deliveryId(1))
          assert.strictEqual(stored.status, "delivered")
          assert.lengthOf(stored.attempt_log, 1, "the attempt is counted once")
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect("two processes recording the same claimed attempt at once: exactly one is counted", () =>
      Effect.gen(function* () {
        yield* truncate
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([delivery(1)])
        const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
        const record = Effect.gen(function* () {
          const o = yield* DeliveryOutbox
          return yield* Effect.exit(o.recordAttempt(claimed!, { at: T0, outcome: responded(500, 1) }))
        })
        const exits = yield* Effect.all([record, secondConnection(record, PgDeliveryOutbox.layer)], {
          concurrency: 2
        })
        assert.strictEqual(exits.filter((e) => e._tag === "Success").length, 1)
        assert.lengthOf((yield* outbox.get(deliveryId(1))).attempt_log, 1)
      }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "two processes recording overlapping batches of the same claims at once, in opposite orders: each attempt is counted exactly once",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue(Array.from({ length: 40 }, (_, i) => delivery(i + 1)))
          const claimed = yield* outbox.claimDue({ at: T0, limit: 40 })
          const batch = claimed.map((d, i) => ({
            claimed: d,
            input: { at: T0 + 1, outcome: responded(200, i) }
          }))
          const recordAll = (attempts: typeof batch) =>
            Effect.flatMap(DeliveryOutbox, (o) => o.recordAttempts(attempts))
          const [mine, theirs] = yield* Effect.all(
            [recordAll(batch), secondConnection(recordAll([...batch].reverse()), PgDeliveryOutbox.layer)],
            { concurrency: 2 }
          )
          const theirsInOrder = [...theirs].reverse()
          for (const [i, d] of claimed.entries()) {
            assert.strictEqual(
              [mine[i]!, theirsInOrder[i]!].filter(Result.isSuccess).length,
              1,
              `${d.delivery_id} is recorded by exactly one of the two`
            )
          }
          const stored = yield* Effect.forEach(claimed, (d) => outbox.get(d.delivery_id))
          assert.isTrue(stored.every((d) => d.status === "delivered" && d.attempt_log.length === 1))
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a batch caught in a deadlock with another process is not lost: each of its attempts is still recorded once",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1), delivery(2)])
          const [one, two] = yield* outbox.claimDue({ at: T0, limit: 2 })
          const waiting = sql<{ readonly n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
          `
          // Another process holds delivery 2, the batch locks 1 and waits for 2, then the other
          // process asks for 1: Postgres breaks the deadlock by failing one of the two, the one
          // whose deadlock_timeout runs out first. The other process's is set far longer, so the
          // batch is always the one failed (else the test would pass or fail on timing).
          const started = yield* Latch.make(false)
          const batchWaits = yield* Latch.make(false)
          const other = Effect.gen(function* () {
            const otherSql = yield* SqlClient.SqlClient
            return yield* otherSql.withTransaction(
              Effect.gen(function* () {
                yield* otherSql`SET LOCAL deadlock_timeout = '60s'`
                yield* otherSql`SELECT 1 FROM webhook_deliveries WHERE delivery_id = ${deliveryId(2)} FOR UPDATE`
                yield* started.open
                yield* batchWaits.await
                return yield* Effect.exit(
                  otherSql`SELECT 1 FROM webhook_deliveries WHERE delivery_id = ${deliveryId(1)} FOR UPDATE`
                )
              })
            )
          }).pipe(Effect.provide(otherProcessClient))
          const otherFiber = yield* Effect.forkChild(other)
          yield* started.await
          const batch = yield* Effect.forkChild(
            outbox.recordAttempts([
              { claimed: one!, input: { at: T0 + 1, outcome: responded(200, 1) } },
              { claimed: two!, input: { at: T0 + 1, outcome: responded(200, 2) } }
            ])
          )
          while ((yield* waiting)[0]!.n === 0) yield* Effect.yieldNow
          yield* batchWaits.open
          const otherOutcome = yield* Fiber.join(otherFiber)
          assert.isTrue(
            Exit.isSuccess(otherOutcome),
            "the other process got its lock: the batch was the one failed"
          )
          const results = yield* Fiber.join(batch)
          assert.isTrue(results.every(Result.isSuccess), "both recorded")
          for (const n of [1, 2]) {
            const stored = yield* outbox.get(deliveryId(n))
            assert.strictEqual(stored.status, "delivered")
            assert.lengthOf(stored.attempt_log, 1)
          }
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a claim whose row changed under it in any field a transition reads is judged on the stored row, as a lone record is",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1), delivery(2)])
          const [one, two] = yield* outbox.claimDue({ at: T0, limit: 2 })
          // Same cycle and attempt count, but no longer due: the stored row must decide.
          yield* sql`
            UPDATE webhook_deliveries SET next_attempt_at = ${new Date(T0 + 3_600_000)}
            WHERE delivery_id = ${deliveryId(1)}
          `
          const [early, fine] = yield* outbox.recordAttempts([
            { claimed: one!, input: { at: T0 + 5, outcome: responded(200, 1) } },
            { claimed: two!, input: { at: T0 + 5, outcome: responded(200, 1) } }
          ])
          assert.isTrue(Result.isFailure(early!) && early.failure._tag === "DeliveryTransitionRejected")
          assert.isTrue(Result.isSuccess(fine!))
          assert.strictEqual((yield* outbox.get(deliveryId(1))).attempt_log.length, 0)
          assert.strictEqual((yield* outbox.get(deliveryId(2))).status, "delivered")
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a delivery enqueued claimed (test-webhook) is skipped by another server process's dispatcher until its lease ends",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const outbox = yield* DeliveryOutbox
          const lease = 60 * SECOND
          const held = yield* outbox.enqueueClaimed(delivery(1), { at: T0, leaseMs: lease })
          const otherProcess = yield* Layer.build(
            PgDeliveryOutbox.layer.pipe(Layer.provide(otherProcessClient))
          )
          const claimElsewhere = (at: number) =>
            Effect.provide(
              Effect.flatMap(DeliveryOutbox, (o) => o.claimDue({ at, limit: 10 })),
              otherProcess
            )
          assert.lengthOf(yield* claimElsewhere(T0 + lease - 1), 0)
          yield* outbox.recordAttempt(held, { at: T0, outcome: responded(200, 5) })
          assert.lengthOf(yield* claimElsewhere(T0 + 2 * lease), 0, "delivered: nothing left to claim")
          const stored = yield* outbox.get(deliveryId(1))
          assert.strictEqual(stored.status, "delivered")
          assert.lengthOf(stored.attempt_log, 1)
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a stopping process hands back its claims not started: another server process claims them at once, and a claim that process took over after the lease ran out is untouched",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* DeliveryOutbox
          const lease = 60 * SECOND
          const otherProcess = yield* Layer.build(
            PgDeliveryOutbox.layer.pipe(Layer.provide(otherProcessClient))
          )
          const elsewhere = <A>(f: (o: typeof outbox) => Effect.Effect<A>) =>
            Effect.provide(Effect.flatMap(DeliveryOutbox, f), otherProcess)
          yield* outbox.enqueue([delivery(1)])
          yield* outbox.claimDue({ at: T0, limit: 10, leaseMs: lease, token: "this:1" })
          yield* outbox.enqueue([delivery(2), delivery(3)])
          yield* outbox.claimDue({ at: T0 + 1, limit: 2, leaseMs: lease, token: "this:2" })
          // Delivery 1's claim ran out meanwhile; the other process takes it over.
          const [takenOver] = yield* elsewhere((o) =>
            o.claimDue({ at: T0 + lease, limit: 10, leaseMs: lease, token: "other:1" })
          )
          assert.strictEqual(takenOver?.delivery_id, deliveryId(1))
          const released = yield* outbox.releaseClaims([
            { deliveryId: deliveryId(1), token: "this:1" },
            { deliveryId: deliveryId(2), token: "this:2" },
            { deliveryId: deliveryId(3), token: "this:2" }
          ])
          assert.deepStrictEqual(released, [deliveryId(2), deliveryId(3)])
          const leases = yield* sql<{ readonly delivery_id: string; readonly claim_token: string | null }>`
            SELECT delivery_id, claim_token FROM webhook_deliveries ORDER BY seq
          `
          assert.deepStrictEqual(
            leases.map((r) => [r.delivery_id, r.claim_token]),
            [
              [deliveryId(1), "other:1"],
              [deliveryId(2), null],
              [deliveryId(3), null]
            ]
          )
          const [two, three] = yield* elsewhere((o) => o.claimDue({ at: T0 + lease + 1, limit: 10 }))
          assert.deepStrictEqual(
            [two?.delivery_id, three?.delivery_id],
            [deliveryId(2), deliveryId(3)],
            "claimed at once by the other process, long before their leases end"
          )
          assert.deepStrictEqual([two, three], [delivery(2), delivery(3)], "no attempt counted")
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a row that does not decode with the domain's schema is a StoreError defect, not a value cast into shape",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          // Only a constraint dropped inside this transaction (rolled back below) lets such a row in.
          let exit: Exit.Exit<unknown, unknown> | undefined
          yield* sql
            .withTransaction(
              Effect.gen(function* () {
                yield* sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_check`
                yield* sql`UPDATE webhook_deliveries SET event = 'rating.unknown' WHERE delivery_id = ${deliveryId(1)}`
                exit = yield* Effect.exit(outbox.get(deliveryId(1)))
                return yield* Effect.fail("roll back" as const)
              })
            )
            .pipe(Effect.ignore)
          assert.isTrue(exit !== undefined && Exit.hasDies(exit), "a defect")
          assert.include(
            String(exit !== undefined && Exit.isFailure(exit) ? exit.cause : ""),
            "did not decode"
          )
          assert.strictEqual((yield* outbox.get(deliveryId(1))).event, "rating.changed", "rolled back")
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect(
      "a claim stays on its row's page (a heap-only update: no new index entries), for rows as a fan-out writes them",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const outbox = yield* DeliveryOutbox
          const body = JSON.stringify({ event: "rating.changed", data: "x".repeat(600) })
          yield* outbox.enqueue(Array.from({ length: 300 }, (_, i) => ({ ...delivery(i + 1), body })))
          const pages = sql<{ readonly delivery_id: string; readonly page: string }>`
            SELECT delivery_id, (ctid::text::point)[0]::text AS page FROM webhook_deliveries
          `
          const before = new Map((yield* pages).map((r) => [r.delivery_id, r.page]))
          const claimed = yield* drain(T0 + 10, 100)
          assert.strictEqual(claimed.length, 300)
          const after = yield* pages
          const stayed = after.filter((r) => before.get(r.delivery_id) === r.page).length
          assert.isAtLeast(stayed, 270, `${stayed} of 300 claimed rows stayed on their page`)
        }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect("a fan-out larger than one INSERT keeps its order and lands whole", () =>
      Effect.gen(function* () {
        yield* truncate
        const outbox = yield* DeliveryOutbox
        const all = Array.from({ length: 1_234 }, (_, i) => delivery(i + 1))
        yield* outbox.enqueue(all)
        const listed = yield* outbox.listByRule(RULE)
        assert.strictEqual(listed.length, all.length)
        assert.deepStrictEqual(
          listed.map((d) => d.delivery_id),
          all.map((d) => d.delivery_id).reverse()
        )
        const claimed = yield* outbox.claimDue({ at: T0, limit: 5 })
        assert.deepStrictEqual(
          claimed.map((d) => d.delivery_id),
          all.slice(0, 5).map((d) => d.delivery_id),
          "ties of next_attempt_at go in enqueue order"
        )
      }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )

    it.effect("the outbox runs on the RetryPolicy provided (here a scaled one)", () =>
      Effect.gen(function* () {
        yield* truncate
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([delivery(1)])
        const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
        const { delivery: after } = yield* outbox.recordAttempt(claimed!, {
          at: T0,
          outcome: responded(502, 1)
        })
        assert.strictEqual(millisOf(after.next_attempt_at!) - T0, 30)
      }).pipe(Effect.provide(PgDeliveryOutbox.layer.pipe(Layer.provide(RetryPolicy.layer({ scale: 0.001 })))))
    )

    it.effect("outcome texts with quotes, backslashes, braces, commas and non-ASCII are stored exactly", () =>
      Effect.gen(function* () {
        yield* truncate
        const outbox = yield* DeliveryOutbox
        yield* outbox.enqueue([delivery(1), delivery(2), delivery(3)])
        const claimed = yield* outbox.claimDue({ at: T0, limit: 3 })
        const message = 'refused: "quoted", back\\slash \\" {brace}, comma, NULL, \u00e9\u4e2d \n line'
        const results = yield* outbox.recordAttempts([
          { claimed: claimed[0]!, input: { at: T0, outcome: noResponse("connection_refused", 2, message) } },
          { claimed: claimed[1]!, input: { at: T0, outcome: responded(200, 3) } },
          { claimed: claimed[2]!, input: { at: T0, outcome: noResponse("other", 4, "NULL") } }
        ])
        assert.deepStrictEqual(
          results.map((r) => Result.isSuccess(r)),
          [true, true, true]
        )
        const first = yield* outbox.get(claimed[0]!.delivery_id)
        assert.include(first.last_error!, message)
        assert.strictEqual(first.attempt_log[0]!.error, first.last_error)
        assert.strictEqual(first.attempt_log[0]!.status_code, null)
        const second = yield* outbox.get(claimed[1]!.delivery_id)
        assert.strictEqual(second.status, "delivered")
        assert.strictEqual(second.last_error, null)
        assert.strictEqual(second.attempt_log[0]!.error, null)
        assert.strictEqual(second.attempt_log[0]!.status_code, 200)
        const third = yield* outbox.get(claimed[2]!.delivery_id)
        assert.include(third.last_error!, "NULL")
        assert.strictEqual(third.attempt_log[0]!.duration_ms, 4)
      }).pipe(Effect.provide(PgDeliveryOutbox.layer))
    )
  })
})
