/**
 * The behaviour of the DeliveryOutbox port, written once and run against every
 * implementation, so they cannot drift: the domain's layerMemory in
 * test/ports/memory/DeliveryOutboxMemory.test.ts, the Postgres adapter in
 * adapters-sql's PgDeliveryOutbox.test.ts. The first five cases are the
 * outbox's claim, lease, record and re-fire rules; the rest pin down what the
 * dispatcher and the dashboard rely on. Each test gets a fresh, empty outbox
 * from `makeLayer`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, type Layer, Result } from "effect"
import { type Delivery, millisOf, noResponse, responded } from "../../../src/model/Delivery.ts"
import { DeliveryOutbox } from "../../../src/ports/DeliveryOutbox.ts"
import { newDelivery } from "../../../src/webhooks/DeliveryStateMachine.ts"
import { RetryOffsetsMs } from "../../../src/webhooks/RetrySchedule.ts"

export const SECOND = 1_000
export const HOUR = 3_600 * SECOND
export const T0 = Date.UTC(2026, 7, 1)
export const RULE = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
export const OTHER_RULE = "1c9f8e32-4d5a-4b6a-9f7e-2a3b4c5d6e7f"

export const deliveryId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

export const delivery = (n: number, at = T0, rule_id = RULE): Delivery =>
  newDelivery({
    delivery_id: deliveryId(n),
    rule_id,
    event: "rating.changed",
    body: `{"n":${n}}`,
    at
  })

export const deliveryOutboxContract = (name: string, makeLayer: () => Layer.Layer<DeliveryOutbox, unknown>) =>
  describe(`DeliveryOutbox contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, DeliveryOutbox>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect("claims due deliveries, earliest first, up to the limit; not yet due ones wait", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1, T0 + 2), delivery(2, T0), delivery(3, T0 + HOUR)])
          const claimed = yield* outbox.claimDue({ at: T0 + 10, limit: 10, leaseMs: 2 * HOUR })
          assert.deepStrictEqual(
            claimed.map((d) => d.body),
            ['{"n":2}', '{"n":1}']
          )
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 10, limit: 1 }), 0)
          assert.deepStrictEqual(
            (yield* outbox.claimDue({ at: T0 + HOUR, limit: 10 })).map((d) => d.body),
            ['{"n":3}']
          )
        })
      )
    )

    it.effect("no delivery is claimed twice at once, even by concurrent claims", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue(Array.from({ length: 50 }, (_, i) => delivery(i)))
          const batches = yield* Effect.all(
            Array.from({ length: 8 }, () => outbox.claimDue({ at: T0, limit: 10 })),
            { concurrency: "unbounded" }
          )
          const ids = batches.flat().map((d) => d.delivery_id)
          assert.strictEqual(ids.length, 50)
          assert.strictEqual(new Set(ids).size, 50)
        })
      )
    )

    it.effect("a claim is a lease: once it expires the delivery can be claimed again", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 1, leaseMs: 60 * SECOND }), 1)
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND - 1, limit: 1 }), 0)
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND, limit: 1 }), 1)
        })
      )
    )

    it.effect("recording an attempt applies the state machine, logs the attempt and releases the claim", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
          const { delivery: after } = yield* outbox.recordAttempt(claimed!, {
            at: T0,
            outcome: responded(500, 12)
          })
          assert.strictEqual(millisOf(after.next_attempt_at!), T0 + 30 * SECOND)
          assert.lengthOf(yield* outbox.claimDue({ at: T0 + 30 * SECOND - 1, limit: 1 }), 0)
          const [retry] = yield* outbox.claimDue({ at: T0 + 30 * SECOND, limit: 1 })
          assert.strictEqual(retry!.delivery_id, claimed!.delivery_id)
          const stale = yield* Effect.flip(
            outbox.recordAttempt(claimed!, { at: T0 + 30 * SECOND, outcome: responded(200, 1) })
          )
          assert.strictEqual(stale._tag, "DeliveryTransitionRejected", "an attempt is never counted twice")
          yield* outbox.recordAttempt(retry!, { at: T0 + 30 * SECOND, outcome: responded(200, 8) })
          const [listed] = yield* outbox.listByRule(RULE)
          assert.strictEqual(listed!.status, "delivered")
          assert.deepStrictEqual(
            listed!.attempt_log.map((a) => [a.attempt, a.outcome]),
            [
              [0, "http_error"],
              [1, "delivered"]
            ]
          )
        })
      )
    )

    it.effect("failed deliveries are listed, never claimed again, and can be re-fired by hand", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1), delivery(2, T0, OTHER_RULE)])
          for (let i = 0; i < 6; i++) {
            const due = yield* outbox.claimDue({ at: T0 + 13 * HOUR, limit: 10 })
            for (const d of due) {
              yield* outbox.recordAttempt(d, { at: millisOf(d.next_attempt_at!), outcome: responded(503, 5) })
            }
          }
          assert.lengthOf(
            yield* outbox.claimDue({ at: T0 + 1_000 * HOUR, limit: 10 }),
            0,
            "not replayed automatically"
          )
          assert.lengthOf(yield* outbox.listFailed(), 2)
          const failed = yield* outbox.listFailed({ ruleIds: [RULE] })
          assert.lengthOf(failed, 1)
          const refired = yield* outbox.refire(failed[0]!.delivery_id, T0 + 48 * HOUR)
          assert.strictEqual(refired.delivery_id, failed[0]!.delivery_id)
          assert.strictEqual(refired.cycle, 1)
          const [again] = yield* outbox.claimDue({ at: T0 + 48 * HOUR, limit: 10 })
          assert.strictEqual(again!.delivery_id, failed[0]!.delivery_id)
          const notFailed = yield* Effect.flip(outbox.refire(again!.delivery_id, T0 + 49 * HOUR))
          assert.strictEqual(notFailed._tag, "DeliveryTransitionRejected")
          const missing = yield* Effect.flip(outbox.refire(deliveryId(999_999), T0))
          assert.strictEqual(missing._tag, "DeliveryNotFound")
        })
      )
    )

    it.effect(
      "retries fall due at 30 s, 5 min, 30 min, 2 h and 12 h after the initial attempt, then failed",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            yield* outbox.enqueue([delivery(1)])
            const dueAt: Array<number> = []
            let d = (yield* outbox.claimDue({ at: T0, limit: 1 }))[0]!
            for (let attempt = 0; attempt <= RetryOffsetsMs.length; attempt++) {
              const at = millisOf(d.next_attempt_at!)
              const { delivery: after } = yield* outbox.recordAttempt(d, {
                at,
                outcome: noResponse("timeout", 10_000)
              })
              if (after.next_attempt_at === null) {
                assert.strictEqual(after.status, "failed")
                break
              }
              dueAt.push(millisOf(after.next_attempt_at) - T0)
              assert.lengthOf(
                yield* outbox.claimDue({ at: millisOf(after.next_attempt_at) - 1, limit: 1 }),
                0
              )
              d = (yield* outbox.claimDue({ at: millisOf(after.next_attempt_at), limit: 1 }))[0]!
            }
            assert.deepStrictEqual(dueAt, RetryOffsetsMs)
            const stored = yield* outbox.get(deliveryId(1))
            assert.strictEqual(stored.status, "failed")
            assert.strictEqual(stored.last_error, "timeout")
            assert.deepStrictEqual(
              stored.attempt_log.map((a) => a.attempt),
              [0, 1, 2, 3, 4, 5]
            )
          })
        )
    )

    it.effect("an attempt before the delivery is due, or on a delivered one, is refused", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1, T0 + HOUR)])
          const early = yield* Effect.flip(
            outbox.recordAttempt(delivery(1, T0 + HOUR), { at: T0, outcome: responded(200, 1) })
          )
          assert.strictEqual(early._tag, "DeliveryTransitionRejected")
          const [claimed] = yield* outbox.claimDue({ at: T0 + HOUR, limit: 1 })
          const { delivery: done } = yield* outbox.recordAttempt(claimed!, {
            at: T0 + HOUR,
            outcome: responded(204, 3)
          })
          const again = yield* Effect.flip(
            outbox.recordAttempt(done, { at: T0 + 2 * HOUR, outcome: responded(200, 1) })
          )
          assert.strictEqual(again._tag, "DeliveryTransitionRejected")
          assert.lengthOf((yield* outbox.get(deliveryId(1))).attempt_log, 1)
        })
      )
    )

    it.effect("enqueueing an id already in the outbox leaves the stored delivery as it is", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          yield* outbox.enqueue([{ ...delivery(1, T0 + HOUR), body: '{"replaced":true}' }, delivery(2)])
          const stored = yield* outbox.get(deliveryId(1))
          assert.strictEqual(stored.body, '{"n":1}')
          assert.strictEqual(stored.next_attempt_at, "2026-08-01T00:00:00+00:00")
          assert.lengthOf(yield* outbox.listByRule(RULE), 2)
        })
      )
    )

    it.effect("get returns the delivery as enqueued with its attempt log; an unknown id is not found", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          const d = {
            ...delivery(1),
            event: "webhook.test" as const,
            body: '{"event":"webhook.test","x":"é\\n"}'
          }
          yield* outbox.enqueue([d])
          assert.deepStrictEqual(yield* outbox.get(deliveryId(1)), { ...d, attempt_log: [] })
          const [claimed] = yield* outbox.claimDue({ at: T0, limit: 1 })
          const { attempt } = yield* outbox.recordAttempt(claimed!, {
            at: T0 + 5,
            outcome: noResponse("connection_reset", 42, "socket hang up")
          })
          const stored = yield* outbox.get(deliveryId(1))
          assert.deepStrictEqual(stored.attempt_log, [attempt])
          assert.strictEqual(stored.first_attempt_at, "2026-08-01T00:00:00.005000+00:00")
          assert.strictEqual((yield* Effect.flip(outbox.get(deliveryId(2))))._tag, "DeliveryNotFound")
          assert.strictEqual((yield* Effect.flip(outbox.get("not-a-uuid")))._tag, "DeliveryNotFound")
        })
      )
    )

    it.effect("a rule's deliveries are listed newest first, up to the limit", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1), delivery(2, T0, OTHER_RULE), delivery(3)])
          yield* outbox.enqueue([delivery(4)])
          assert.deepStrictEqual(
            (yield* outbox.listByRule(RULE)).map((d) => d.delivery_id),
            [deliveryId(4), deliveryId(3), deliveryId(1)]
          )
          assert.deepStrictEqual(
            (yield* outbox.listByRule(RULE, { limit: 2 })).map((d) => d.delivery_id),
            [deliveryId(4), deliveryId(3)]
          )
          assert.lengthOf(yield* outbox.listByRule("2d0a9f43-5e6b-4c7d-8a9b-3c4d5e6f7a8b"), 0)
          assert.lengthOf(yield* outbox.listByRule("not-a-uuid"), 0)
        })
      )
    )

    it.effect("listFailed filters by rule and limits, newest first; an empty rule list lists nothing", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          const failed = (n: number, rule = RULE): Delivery => ({
            ...delivery(n, T0, rule),
            status: "failed",
            attempts: 6,
            next_attempt_at: null,
            first_attempt_at: "2026-08-01T00:00:00+00:00",
            last_error: "HTTP 500"
          })
          yield* outbox.enqueue([failed(1), delivery(2), failed(3, OTHER_RULE), failed(4)])
          const ids = (ds: ReadonlyArray<Delivery>) => ds.map((d) => d.delivery_id)
          assert.deepStrictEqual(ids(yield* outbox.listFailed()), [
            deliveryId(4),
            deliveryId(3),
            deliveryId(1)
          ])
          assert.deepStrictEqual(ids(yield* outbox.listFailed({ limit: 1 })), [deliveryId(4)])
          assert.deepStrictEqual(ids(yield* outbox.listFailed({ ruleIds: [OTHER_RULE] })), [deliveryId(3)])
          assert.deepStrictEqual(ids(yield* outbox.listFailed({ ruleIds: [] })), [])
          assert.deepStrictEqual(yield* outbox.listFailed({ ruleIds: [RULE], limit: 5 }), [
            failed(4),
            failed(1)
          ])
        })
      )
    )

    it.effect(
      "a delivery enqueued claimed is its caller's: no claim takes it while the lease runs, the caller records its attempt",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            const held = yield* outbox.enqueueClaimed(delivery(1), { at: T0, leaseMs: 60 * SECOND })
            assert.deepStrictEqual(held, delivery(1))
            assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 10 }), 0, "leased to its caller")
            assert.lengthOf(yield* outbox.claimDue({ at: T0 + 60 * SECOND - 1, limit: 10 }), 0)
            const { delivery: after } = yield* outbox.recordAttempt(held, {
              at: T0 + 3,
              outcome: responded(500, 2)
            })
            assert.strictEqual(after.status, "pending")
            assert.strictEqual(millisOf(after.next_attempt_at!), T0 + 3 + 30 * SECOND)
            const [retry] = yield* outbox.claimDue({ at: T0 + 3 + 30 * SECOND, limit: 10 })
            assert.strictEqual(retry?.delivery_id, deliveryId(1), "recording released the claim")
            assert.strictEqual((yield* outbox.get(deliveryId(1))).attempt_log.length, 1)
          })
        )
    )

    it.effect("a claimed enqueue whose caller never records is claimable once its lease ends", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueueClaimed(delivery(1), { at: T0, leaseMs: 60 * SECOND })
          const [orphan] = yield* outbox.claimDue({ at: T0 + 60 * SECOND, limit: 10 })
          assert.strictEqual(orphan?.delivery_id, deliveryId(1))
        })
      )
    )

    it.effect("enqueueing claimed an id already in the outbox is a defect; the stored delivery stays", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          const exit = yield* Effect.exit(
            outbox.enqueueClaimed({ ...delivery(1), body: '{"replaced":true}' }, { at: T0 })
          )
          assert.isTrue(Exit.hasDies(exit))
          assert.strictEqual((yield* outbox.get(deliveryId(1))).body, '{"n":1}')
          assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 10 }), 1, "and it is not leased")
        })
      )
    )

    it.effect("recording an attempt for an unknown delivery is DeliveryNotFound", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          const error = yield* Effect.flip(
            outbox.recordAttempt(delivery(7), { at: T0, outcome: responded(200, 1) })
          )
          assert.strictEqual(error._tag, "DeliveryNotFound")
        })
      )
    )

    it.effect(
      "a batch of attempts is recorded as if one after the other: each refused one (stale claim, early, terminal, unknown, the same attempt twice) is refused alone, and the others are recorded",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            yield* outbox.enqueue([
              delivery(1),
              delivery(2),
              delivery(3),
              delivery(4, T0 + HOUR),
              delivery(5)
            ])
            const claimed = yield* outbox.claimDue({ at: T0, limit: 10 })
            const byId = (n: number) => claimed.find((d) => d.delivery_id === deliveryId(n))!
            // Delivery 3 moves on before the batch: its claim is stale when the batch comes.
            yield* outbox.recordAttempt(byId(3), { at: T0, outcome: responded(500, 1) })
            const { delivery: done } = yield* outbox.recordAttempt(byId(5), {
              at: T0,
              outcome: responded(200, 1)
            })
            const results = yield* outbox.recordAttempts([
              { claimed: byId(1), input: { at: T0 + 1, outcome: responded(204, 7) } },
              { claimed: byId(3), input: { at: T0 + 1, outcome: responded(204, 7) } },
              { claimed: byId(2), input: { at: T0 + 2, outcome: responded(503, 9) } },
              { claimed: delivery(4, T0 + HOUR), input: { at: T0 + 3, outcome: responded(200, 1) } },
              { claimed: done, input: { at: T0 + 4, outcome: responded(200, 1) } },
              { claimed: delivery(6), input: { at: T0 + 5, outcome: responded(200, 1) } },
              { claimed: byId(1), input: { at: T0 + 6, outcome: responded(200, 1) } }
            ])
            assert.deepStrictEqual(
              results.map((r) => (Result.isSuccess(r) ? r.success.delivery.status : r.failure._tag)),
              [
                "delivered",
                "DeliveryTransitionRejected",
                "pending",
                "DeliveryTransitionRejected",
                "DeliveryTransitionRejected",
                "DeliveryNotFound",
                "DeliveryTransitionRejected"
              ]
            )
            const [first, , second] = results
            assert.isTrue(Result.isSuccess(first!) && Result.isSuccess(second!))
            if (Result.isSuccess(first!) && Result.isSuccess(second!)) {
              assert.deepStrictEqual(first.success.delivery, {
                ...byId(1),
                status: "delivered",
                attempts: 1,
                next_attempt_at: null,
                first_attempt_at: "2026-08-01T00:00:00.001000+00:00",
                last_error: null
              })
              assert.deepStrictEqual(first.success.attempt, {
                delivery_id: deliveryId(1),
                cycle: 0,
                attempt: 0,
                started_at: "2026-08-01T00:00:00.001000+00:00",
                status_code: 204,
                outcome: "delivered",
                error: null,
                duration_ms: 7
              })
              assert.strictEqual(millisOf(second.success.delivery.next_attempt_at!), T0 + 2 + 30 * SECOND)
            }
            // What was stored is what was returned, and each attempt is logged once.
            const stored = yield* Effect.forEach([1, 2, 3, 4, 5], (n) => outbox.get(deliveryId(n)))
            assert.deepStrictEqual(
              stored.map((d) => [d.status, d.attempt_log.length]),
              [
                ["delivered", 1],
                ["pending", 1],
                ["pending", 1],
                ["pending", 0],
                ["delivered", 1]
              ]
            )
            if (Result.isSuccess(first!)) {
              assert.deepStrictEqual(stored[0], {
                ...first.success.delivery,
                attempt_log: [first.success.attempt]
              })
            }
            assert.strictEqual(stored[2]!.last_error, "HTTP 500", "the stale claim did not overwrite it")
            // Recording released the claims: the retries are claimable when due (3's first).
            assert.deepStrictEqual(
              (yield* outbox.claimDue({ at: T0 + 2 + 30 * SECOND, limit: 10 })).map((d) => d.delivery_id),
              [deliveryId(3), deliveryId(2)]
            )
          })
        )
    )

    it.effect(
      "a claim handed back (releaseClaims) is claimable again at once, due as it was, with no attempt counted",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            yield* outbox.enqueue([delivery(1), delivery(2)])
            const claimed = yield* outbox.claimDue({
              at: T0 + 5,
              limit: 10,
              leaseMs: 60 * SECOND,
              token: "a:1"
            })
            assert.lengthOf(claimed, 2)
            assert.lengthOf(yield* outbox.claimDue({ at: T0 + 5, limit: 10 }), 0, "both leased")
            const released = yield* outbox.releaseClaims([{ deliveryId: deliveryId(2), token: "a:1" }])
            assert.deepStrictEqual(released, [deliveryId(2)])
            const [again] = yield* outbox.claimDue({ at: T0 + 5, limit: 10, token: "b:1" })
            assert.strictEqual(
              again?.delivery_id,
              deliveryId(2),
              "claimable at once, long before the lease ends"
            )
            assert.deepStrictEqual(again, delivery(2), "due as it was, no attempt counted")
            const stored = yield* outbox.get(deliveryId(2))
            assert.deepStrictEqual(stored.attempt_log, [])
            assert.strictEqual(stored.attempts, 0)
            assert.lengthOf(
              yield* outbox.claimDue({ at: T0 + 60 * SECOND + 4, limit: 10 }),
              0,
              "delivery 1 keeps its lease, delivery 2 its new claim"
            )
            assert.deepStrictEqual(yield* outbox.releaseClaims([]), [])
          })
        )
    )

    it.effect(
      "a release touches only claims still held under its token: one taken over by another process after the lease ran out, one of another token, one recorded, or an unknown id stay as they are",
      () =>
        run(
          Effect.gen(function* () {
            const outbox = yield* DeliveryOutbox
            const lease = 60 * SECOND
            yield* outbox.enqueue([delivery(1), delivery(2), delivery(3)])
            const mine = yield* outbox.claimDue({ at: T0, limit: 2, leaseMs: lease, token: "a:1" })
            assert.deepStrictEqual(
              mine.map((d) => d.delivery_id),
              [deliveryId(1), deliveryId(2)]
            )
            const [theirs] = yield* outbox.claimDue({ at: T0, limit: 10, leaseMs: 2 * lease, token: "b:1" })
            assert.strictEqual(theirs?.delivery_id, deliveryId(3))
            // Delivery 1's lease runs out; another process takes it over under its own token.
            const [takenOver] = yield* outbox.claimDue({
              at: T0 + lease,
              limit: 1,
              leaseMs: lease,
              token: "b:2"
            })
            assert.strictEqual(takenOver?.delivery_id, deliveryId(1))
            // Delivery 2's attempt is recorded: that ends the claim.
            const { delivery: recorded } = yield* outbox.recordAttempt(mine[1]!, {
              at: T0 + 1,
              outcome: responded(200, 1)
            })
            const released = yield* outbox.releaseClaims([
              { deliveryId: deliveryId(1), token: "a:1" },
              { deliveryId: deliveryId(2), token: "a:1" },
              { deliveryId: deliveryId(3), token: "a:1" },
              { deliveryId: deliveryId(4), token: "a:1" },
              { deliveryId: "not-a-uuid", token: "a:1" }
            ])
            assert.deepStrictEqual(released, [], "none of them is held under a:1 any more")
            assert.lengthOf(
              yield* outbox.claimDue({ at: T0 + lease, limit: 10 }),
              0,
              "the other process's claims of 1 and 3 hold"
            )
            const { attempt_log, ...stored } = yield* outbox.get(deliveryId(2))
            assert.deepStrictEqual(stored, recorded, "2 is as its record left it")
            assert.lengthOf(attempt_log, 1)
            // The holder's own release does hand them back.
            assert.deepStrictEqual(
              yield* outbox.releaseClaims([
                { deliveryId: deliveryId(1), token: "b:2" },
                { deliveryId: deliveryId(3), token: "b:1" }
              ]),
              [deliveryId(1), deliveryId(3)]
            )
            assert.deepStrictEqual(
              (yield* outbox.claimDue({ at: T0 + lease, limit: 10 })).map((d) => d.delivery_id),
              [deliveryId(1), deliveryId(3)]
            )
          })
        )
    )

    it.effect("a claim taken without a token, or enqueued claimed, is not released by any token", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          yield* outbox.enqueue([delivery(1)])
          yield* outbox.claimDue({ at: T0, limit: 10 })
          yield* outbox.enqueueClaimed(delivery(2), { at: T0 })
          const released = yield* outbox.releaseClaims([
            { deliveryId: deliveryId(1), token: "" },
            { deliveryId: deliveryId(2), token: "a:1" }
          ])
          assert.deepStrictEqual(released, [])
          assert.lengthOf(yield* outbox.claimDue({ at: T0, limit: 10 }), 0)
        })
      )
    )

    it.effect("an empty batch records nothing", () =>
      run(
        Effect.gen(function* () {
          const outbox = yield* DeliveryOutbox
          assert.deepStrictEqual(yield* outbox.recordAttempts([]), [])
        })
      )
    )
  })
