import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { QuantumSnapshotStore } from "../../src/ports/QuantumSnapshotStore.ts"
import { StoreError } from "../../src/ports/StoreError.ts"
import * as QuantumRefresher from "../../src/services/QuantumRefresher.ts"
import { QuantumService } from "../../src/services/QuantumService.ts"
import { chains, goodRows } from "../quantum/QuantumFixtures.ts"
import { ChainDirectoryMemory } from "../../src/ports/memory/ChainDirectoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../../src/ports/memory/QuantumSnapshotStoreMemory.ts"
import { QuantumSourceMemory } from "../../src/ports/memory/QuantumSourceMemory.ts"

const start = Date.parse("2026-08-01T00:00:00.000Z")

const arrange = Effect.gen(function* () {
  yield* TestClock.setTime(start)
  yield* Ref.set(yield* ChainDirectoryMemory, chains)
  yield* (yield* QuantumSourceMemory).respond(goodRows)
})

/** Starts the loop in a child fiber and lets it run up to its first sleep. */
const startRefresher = (options?: QuantumRefresher.QuantumRefresherOptions) =>
  Effect.forkChild(QuantumRefresher.run(options), { startImmediately: true }).pipe(
    Effect.tap(() => Effect.yieldNow)
  )

const fetches = Effect.flatMap(QuantumSourceMemory, (s) => s.fetches)

describe("QuantumRefresher", () => {
  it.effect(
    "with no snapshot it refreshes at start, then once every interval (default 1 hour), at exact times",
    () =>
      Effect.gen(function* () {
        yield* arrange
        yield* startRefresher()
        assert.strictEqual(yield* fetches, 1, "start-up refresh: nothing stored yet")
        const first = yield* (yield* QuantumSnapshotStore).latest
        assert.strictEqual(Option.getOrThrow(first).as_of, "2026-08-01T00:00:00+00:00")

        yield* TestClock.adjust("59 minutes")
        assert.strictEqual(yield* fetches, 1, "not before the interval")
        yield* TestClock.adjust("1 minute")
        assert.strictEqual(yield* fetches, 2, "at exactly 1 hour")
        yield* TestClock.adjust("3 hours")
        assert.strictEqual(yield* fetches, 5, "every hour since")
        const latest = yield* (yield* QuantumSnapshotStore).latest
        assert.strictEqual(Option.getOrThrow(latest).as_of, "2026-08-01T04:00:00+00:00")
      }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("the interval is configurable", () =>
    Effect.gen(function* () {
      yield* arrange
      yield* startRefresher({ interval: "15 minutes" })
      yield* TestClock.adjust("14 minutes")
      assert.strictEqual(yield* fetches, 1)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* fetches, 2)
      yield* TestClock.adjust("45 minutes")
      assert.strictEqual(yield* fetches, 5)
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect(
    "a failing upstream does not stop the loop: each failure is recorded and the next interval retries",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const source = yield* QuantumSourceMemory
        const store = yield* QuantumSnapshotStore
        yield* source.fail("HTTP 500")
        const fiber = yield* startRefresher()
        assert.strictEqual(yield* source.fetches, 1)
        assert.isFalse(Option.getOrThrow(yield* store.lastOutcome).ok)
        assert.isTrue(Option.isNone(yield* store.latest))

        yield* TestClock.adjust("2 hours")
        assert.strictEqual(yield* source.fetches, 3, "two more attempts, both failed")
        assert.isUndefined(fiber.pollUnsafe(), "the loop is still running")

        yield* source.respond(goodRows)
        yield* TestClock.adjust("1 hour")
        assert.strictEqual(yield* source.fetches, 4)
        assert.isTrue(Option.getOrThrow(yield* store.lastOutcome).ok)
        assert.strictEqual(Option.getOrThrow(yield* store.latest).as_of, "2026-08-01T03:00:00+00:00")
      }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("the start-up refresh is skipped while the stored snapshot is fresh", () =>
    Effect.gen(function* () {
      yield* arrange
      yield* (yield* QuantumService).refresh
      yield* TestClock.adjust("23 hours")
      yield* startRefresher()
      assert.strictEqual(yield* fetches, 1, "only the refresh made before the refresher started")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(yield* fetches, 2, "the schedule still runs")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("the start-up refresh runs when the stored snapshot has expired", () =>
    Effect.gen(function* () {
      yield* arrange
      yield* (yield* QuantumService).refresh
      yield* TestClock.adjust("24 hours")
      yield* startRefresher()
      assert.strictEqual(yield* fetches, 2)
      const latest = Option.getOrThrow(yield* (yield* QuantumSnapshotStore).latest)
      assert.strictEqual(latest.as_of, "2026-08-02T00:00:00+00:00")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("a store that cannot be read at start-up does not stop the loop: it refreshes anyway", () =>
    Effect.gen(function* () {
      yield* arrange
      const fiber = yield* startRefresher()
      assert.strictEqual(yield* fetches, 1)
      yield* TestClock.adjust("1 hour")
      assert.strictEqual(yield* fetches, 2)
      assert.isUndefined(fiber.pollUnsafe())
    }).pipe(
      Effect.provide(
        QuantumService.layer.pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              QuantumSourceMemory.layer,
              ChainDirectoryMemory.layer,
              // the memory store, except that reading the latest snapshot fails
              Layer.effect(
                QuantumSnapshotStore,
                Effect.map(QuantumSnapshotStore, (store) =>
                  QuantumSnapshotStore.of({
                    ...store,
                    latest: Effect.fail(new StoreError({ message: "connection refused" }))
                  })
                )
              ).pipe(Layer.provide(QuantumSnapshotStoreMemory.layer))
            )
          )
        )
      )
    )
  )

  it.effect("the layer runs the loop for as long as it lives", () =>
    Effect.gen(function* () {
      yield* arrange
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(QuantumRefresher.layer({ interval: "1 hour" }))
          yield* Effect.yieldNow
          assert.strictEqual(yield* fetches, 1)
          yield* TestClock.adjust("2 hours")
          assert.strictEqual(yield* fetches, 3)
        })
      )
      yield* TestClock.adjust("5 hours")
      assert.strictEqual(yield* fetches, 3, "closing the scope stopped the loop")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("an interval that is not positive and finite is refused", () =>
    Effect.gen(function* () {
      yield* arrange
      for (const interval of [0, -1, "Infinity"] as const) {
        const exit = yield* Effect.exit(QuantumRefresher.run({ interval }))
        assert.isTrue(Exit.isFailure(exit) && Exit.hasDies(exit), String(interval))
      }
      assert.strictEqual(yield* fetches, 0)
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )
})
