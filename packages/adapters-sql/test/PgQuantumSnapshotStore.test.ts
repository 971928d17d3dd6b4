import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { MaxQuantumRows } from "@ratings/domain/quantum/QuantumRows"
import * as PgQuantumSnapshotStore from "../src/PgQuantumSnapshotStore.ts"
import {
  quantumSnapshotStoreContract,
  snapshotAt,
  tron
} from "@ratings/domain/test-support/contract/events-quantum-snapshot-store"
import { TestDatabase } from "./TestDatabase.ts"
import { secondConnection, sharedDatabase } from "./PostgresTarget.ts"

/** One database for the file, emptied before each contract test. */
const database = sharedDatabase(["quantum_snapshots", "quantum_refresh_outcomes"])

quantumSnapshotStoreContract("PgQuantumSnapshotStore", () =>
  PgQuantumSnapshotStore.layer.pipe(Layer.provide(database))
)

describe("PgQuantumSnapshotStore", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("a snapshot saved by one server process is served by another", () =>
      Effect.gen(function* () {
        const store = yield* QuantumSnapshotStore
        const snapshot = snapshotAt(3)
        yield* store.save(snapshot)
        const other = yield* secondConnection(
          Effect.gen(function* () {
            return yield* (yield* QuantumSnapshotStore).latest
          }),
          PgQuantumSnapshotStore.layer
        )
        assert.deepStrictEqual(other, Option.some(snapshot))
      }).pipe(Effect.provide(PgQuantumSnapshotStore.layer))
    )

    it.effect(
      "a snapshot an older version stored over the bounds (110,000 rows, a reply over 16 MiB; 1,001 rows; 9 MiB of rows) is passed over: the one before is served",
      () =>
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const sql = yield* SqlClient.SqlClient
          yield* sql`DELETE FROM quantum_snapshots`
          const before = snapshotAt(5)
          yield* store.save(before)
          // written as the code before the row bound wrote it, with nothing checking the count
          const storeOldStyle = (count: number, nameLength = 4) => sql`
            INSERT INTO quantum_snapshots
              (rows, rows_skipped, as_of, as_of_text, expires_at, expires_at_text, source, source_url)
            SELECT jsonb_agg(
                ${JSON.stringify(tron)}::jsonb
                  || jsonb_build_object('slug', 'chain-' || n, 'name', repeat('x', ${nameLength}))
              ),
              0, now(), ${before.as_of}, now(), ${before.expires_at}, 'LayerQu', 'https://layerqu.com/dashboard/'
            FROM generate_series(1, ${count}) AS n
          `
          yield* storeOldStyle(110_000)
          assert.deepStrictEqual(yield* store.latest, Option.some(before))
          yield* storeOldStyle(MaxQuantumRows + 1)
          assert.deepStrictEqual(yield* store.latest, Option.some(before))
          // few rows, but over MaxServedRowsBytes of text
          yield* storeOldStyle(9, 1024 * 1024)
          assert.deepStrictEqual(yield* store.latest, Option.some(before))
          yield* storeOldStyle(MaxQuantumRows)
          const latest = yield* store.latest
          assert.strictEqual(
            Option.getOrThrow(latest).rows.length,
            MaxQuantumRows,
            "one within the bound is served"
          )
        }).pipe(Effect.provide(PgQuantumSnapshotStore.layer))
    )

    it.effect("a stored row that no longer fits the schema is a StoreError, not a malformed payload", () =>
      Effect.gen(function* () {
        const store = yield* QuantumSnapshotStore
        const sql = yield* SqlClient.SqlClient
        yield* store.save(snapshotAt(4))
        yield* sql`UPDATE quantum_snapshots SET rows = '[{"slug": "x", "band": 9}]'::jsonb`
        const error = yield* Effect.flip(store.latest)
        assert.strictEqual(error._tag, "StoreError")
        assert.include(error.message, "quantum snapshot store, latest")
      }).pipe(Effect.provide(PgQuantumSnapshotStore.layer))
    )

    it.effect(
      "every column of the rows a read returns is decoded: a stored date-time text that no longer is one is a StoreError naming the read, for the snapshot and for the refresh outcome",
      () =>
        Effect.gen(function* () {
          const store = yield* QuantumSnapshotStore
          const sql = yield* SqlClient.SqlClient
          yield* sql`DELETE FROM quantum_snapshots`
          yield* sql`DELETE FROM quantum_refresh_outcomes`
          const snapshot = snapshotAt(6)
          yield* store.save(snapshot)
          const outcome = { at: "2026-08-02T00:00:00+00:00", ok: false, error: "HTTP 500" }
          yield* store.recordOutcome(outcome)

          yield* sql`UPDATE quantum_snapshots SET as_of_text = 'yesterday'`
          const asOf = yield* Effect.flip(store.latest)
          assert.strictEqual(asOf._tag, "StoreError")
          assert.include(asOf.message, "quantum snapshot store, latest: a stored row does not decode")
          yield* sql`UPDATE quantum_snapshots SET as_of_text = ${snapshot.as_of}, expires_at_text = ''`
          const expiresAt = yield* Effect.flip(store.latest)
          assert.include(expiresAt.message, "quantum snapshot store, latest: a stored row does not decode")
          yield* sql`UPDATE quantum_snapshots SET expires_at_text = ${snapshot.expires_at}`
          assert.deepStrictEqual(
            yield* store.latest,
            Option.some(snapshot),
            "the restored row is served again"
          )

          yield* sql`UPDATE quantum_refresh_outcomes SET at_text = 'not a time'`
          const at = yield* Effect.flip(store.lastOutcome)
          assert.strictEqual(at._tag, "StoreError")
          assert.include(at.message, "quantum snapshot store, lastOutcome: a stored row does not decode")
          yield* sql`UPDATE quantum_refresh_outcomes SET at_text = ${outcome.at}`
          assert.deepStrictEqual(
            yield* store.lastOutcome,
            Option.some(outcome),
            "the restored row is read again"
          )
        }).pipe(Effect.provide(PgQuantumSnapshotStore.layer))
    )
  })
})
