/**
 * Migration 0006: the size of every stored quantum-readiness snapshot, kept
 * beside its rows so that a read can pass over a snapshot too large to serve
 * without reading it (docs/design-notes.md, "Quantum upstream"). `row_count`
 * and `rows_bytes` (the length of the rows as Postgres sends them) are
 * generated columns: computed here for the snapshots already stored, and by
 * Postgres on every insert, including one by a process running older code.
 * Nothing is deleted: an oversized snapshot stays as history and is never
 * served (PgQuantumSnapshotStore.latest).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE quantum_snapshots
      ADD COLUMN row_count integer GENERATED ALWAYS AS (jsonb_array_length(rows)) STORED,
      ADD COLUMN rows_bytes integer GENERATED ALWAYS AS (octet_length(rows::text)) STORED
  `
})
