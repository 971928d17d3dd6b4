import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import * as PgQuantumSnapshotStore from "../src/PgQuantumSnapshotStore.ts"
import { quantumSnapshotStoreContract, snapshotAt } from "./contract/events-quantum-snapshot-store.ts"
import { TestDatabase } from "./TestDatabase.ts"
import { secondConnection, sharedDatabase } from "./contract/events-database.ts"

/** One database for the file, emptied before each contract test. */
const database = sharedDatabase(["quantum_snapshots", "quantum_refresh_outcomes"])

quantumSnapshotStoreContract("layerMemory", () => QuantumSnapshotStore.layerMemory)
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
  })
})
