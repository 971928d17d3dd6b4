/**
 * The behaviour of the QuantumSnapshotStore port, written once and run against
 * every implementation, so they cannot drift: the domain's layerMemory in
 * test/ports/memory/QuantumSnapshotStoreMemory.test.ts, the Postgres adapter in
 * adapters-sql's PgQuantumSnapshotStore.test.ts. Each test gets a fresh, empty
 * store from `makeLayer`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { QuantumRow } from "../../../src/model/Quantum.ts"
import { QuantumSnapshotStore } from "../../../src/ports/QuantumSnapshotStore.ts"
import type { StoreError } from "../../../src/ports/StoreError.ts"
import { MaxQuantumRows } from "../../../src/quantum/QuantumRows.ts"
import { makeSnapshot, type QuantumSnapshot } from "../../../src/quantum/QuantumSnapshot.ts"

const T0 = Date.parse("2026-08-01T00:00:00Z")
const HOUR = 3_600_000

export const ethereum: QuantumRow = {
  slug: "ethereum",
  name: "Ethereum",
  profile: "L1",
  qri: 25,
  band: 2,
  band_label: "Acknowledged",
  stage: 2,
  hybrid: "FAIL",
  danger: false,
  ci: 5,
  matched_chain_slug: "ethereum"
}

export const tron: QuantumRow = {
  slug: "tron",
  name: "Tron",
  profile: "L1",
  qri: null,
  band: null,
  band_label: null,
  stage: null,
  hybrid: "UNKNOWN",
  danger: null,
  ci: null,
  matched_chain_slug: null
}

export const arbitrum: QuantumRow = {
  slug: "arb1",
  name: "Arbitrum One",
  profile: "L2",
  qri: 12.5,
  band: 1,
  band_label: "Unaware",
  stage: 0,
  hybrid: "FAIL",
  danger: true,
  ci: 0.25,
  matched_chain_slug: "arbitrum-one"
}

export const snapshotAt = (
  hours: number,
  rows: ReadonlyArray<QuantumRow> = [ethereum, tron],
  sample = false
) => makeSnapshot({ rows, rows_skipped: 1 }, { now: T0 + hours * HOUR, ttlMillis: 24 * HOUR, sample })

export const quantumSnapshotStoreContract = (
  name: string,
  makeLayer: () => Layer.Layer<QuantumSnapshotStore, StoreError | unknown>
) =>
  describe(`QuantumSnapshotStore contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, QuantumSnapshotStore>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect("an empty store has no snapshot and no refresh outcome", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          assert.isTrue(Option.isNone(yield* store.latest))
          assert.isTrue(Option.isNone(yield* store.lastOutcome))
        })
      )
    )

    it.effect("a saved snapshot is read back whole: rows, rows_skipped, as_of, expires_at, source", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const snapshot = snapshotAt(0, [ethereum, tron, arbitrum])
          yield* store.save(snapshot)
          assert.deepStrictEqual(yield* store.latest, Option.some(snapshot))
        })
      )
    )

    it.effect("the latest saved snapshot is the one read, whatever its as_of", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          yield* store.save(snapshotAt(5))
          const older = snapshotAt(1, [arbitrum])
          yield* store.save(older)
          assert.deepStrictEqual(yield* store.latest, Option.some(older))
        })
      )
    )

    it.effect("the sample flag survives a round trip: true, false and absent stay as saved", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const sample = snapshotAt(0, [ethereum], true)
          assert.isTrue(sample.sample)
          yield* store.save(sample)
          assert.deepStrictEqual(yield* store.latest, Option.some(sample))
          const plain = snapshotAt(1)
          assert.isFalse("sample" in plain)
          yield* store.save(plain)
          assert.deepStrictEqual(yield* store.latest, Option.some(plain))
          const explicitFalse: QuantumSnapshot = { ...plain, sample: false }
          yield* store.save(explicitFalse)
          assert.deepStrictEqual(yield* store.latest, Option.some(explicitFalse))
        })
      )
    )

    it.effect("date-times come back as written, offset included", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const snapshot: QuantumSnapshot = {
            ...snapshotAt(0),
            as_of: "2026-08-01T02:00:00+02:00",
            expires_at: "2026-08-02T00:00:00+00:00"
          }
          yield* store.save(snapshot)
          assert.deepStrictEqual(yield* store.latest, Option.some(snapshot))
        })
      )
    )

    it.effect(
      "a snapshot of more than MaxQuantumRows rows is refused by save (StoreError); the latest stays the one before",
      () =>
        run(
          Effect.gen(function* () {
            const store = yield* QuantumSnapshotStore
            const before = snapshotAt(0)
            yield* store.save(before)
            const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ ...tron, slug: `chain-${i}` }))
            const error = yield* Effect.flip(store.save(snapshotAt(1, rows(MaxQuantumRows + 1))))
            assert.strictEqual(error._tag, "StoreError")
            assert.include(error.message, `over the ${MaxQuantumRows}-row bound`)
            assert.deepStrictEqual(yield* store.latest, Option.some(before))
            const full = snapshotAt(2, rows(MaxQuantumRows))
            yield* store.save(full)
            assert.deepStrictEqual(yield* store.latest, Option.some(full), "exactly the bound is kept")
          })
        )
    )

    it.effect("the last recorded refresh outcome is the one read, with or without an error", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const failed = { at: "2026-08-01T00:00:00+00:00", ok: false, error: "source unreachable" }
          yield* store.recordOutcome(failed)
          assert.deepStrictEqual(yield* store.lastOutcome, Option.some(failed))
          const ok = { at: "2026-08-01T01:00:00+00:00", ok: true }
          yield* store.recordOutcome(ok)
          assert.deepStrictEqual(yield* store.lastOutcome, Option.some(ok))
        })
      )
    )

    it.effect("snapshots and outcomes are kept apart: an outcome does not replace the snapshot", () =>
      run(
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const snapshot = snapshotAt(0)
          yield* store.save(snapshot)
          yield* store.recordOutcome({ at: "2026-08-02T00:00:00+00:00", ok: false, error: "HTTP 500" })
          assert.deepStrictEqual(yield* store.latest, Option.some(snapshot))
        })
      )
    )
  })
