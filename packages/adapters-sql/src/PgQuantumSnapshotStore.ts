/**
 * The QuantumSnapshotStore port on Postgres. Snapshots and refresh outcomes
 * are appended; the latest of each is the one read, so every server process
 * serves what any of them fetched, and the history stays for inspection.
 *
 * Rows are one jsonb array: they are always read whole, and they are checked
 * against the domain's schema on the way out, so a hand-edited row that no
 * longer fits is a StoreError rather than a malformed payload on the wire.
 *
 * A read serves the latest snapshot within bounds: at most MaxQuantumRows
 * rows and `MaxServedRowsBytes` of rows as Postgres sends them (generated
 * columns, migration 0006). A snapshot an older version stored over them
 * (110,000 rows: a reply over the client's 16 MiB message limit) is passed
 * over rather than failing every read; `save` refuses one in the first place.
 */
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { QuantumRow } from "@ratings/domain/model/Quantum"
import { MaxQuantumRows } from "@ratings/domain/quantum/QuantumRows"
import {
  QuantumRefreshOutcome,
  QuantumSnapshot,
  unstorableReason
} from "@ratings/domain/quantum/QuantumSnapshot"

/**
 * The most bytes of rows a read fetches: half the client's 16 MiB message
 * limit. Any snapshot the domain accepts (MaxQuantumRows rows, texts of at
 * most MaxQuantumTextLength characters) is well under it.
 */
export const MaxServedRowsBytes = 8 * 1024 * 1024

const storeError =
  (operation: string) =>
  (error: SqlError.SqlError | Schema.SchemaError): StoreError =>
    new StoreError({ message: `quantum snapshot store, ${operation}: ${error.message}` })

const Rows = Schema.Array(QuantumRow)
const decodeRows = Schema.decodeUnknownEffect(Rows)
const decodeSnapshot = Schema.decodeUnknownEffect(QuantumSnapshot)
const decodeOutcome = Schema.decodeUnknownEffect(QuantumRefreshOutcome)

interface SnapshotRow {
  readonly rows: unknown
  readonly rows_skipped: number
  readonly as_of_text: string
  readonly expires_at_text: string
  readonly source: string
  readonly source_url: string
  readonly sample: boolean | null
}

interface OutcomeRow {
  readonly at_text: string
  readonly ok: boolean
  readonly error: string | null
}

export const layer: Layer.Layer<QuantumSnapshotStore, never, SqlClient.SqlClient> = Layer.effect(
  QuantumSnapshotStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const save = Effect.fn("PgQuantumSnapshotStore.save")(function* (snapshot: QuantumSnapshot) {
      const refused = unstorableReason(snapshot)
      if (refused !== undefined)
        return yield* new StoreError({ message: `quantum snapshot store, save: ${refused}` })
      yield* sql`
        INSERT INTO quantum_snapshots
          (rows, rows_skipped, as_of, as_of_text, expires_at, expires_at_text, source, source_url, sample)
        VALUES (
          ${JSON.stringify(snapshot.rows)}::jsonb, ${snapshot.rows_skipped},
          ${snapshot.as_of}::timestamptz, ${snapshot.as_of},
          ${snapshot.expires_at}::timestamptz, ${snapshot.expires_at},
          ${snapshot.source}, ${snapshot.source_url}, ${snapshot.sample ?? null}
        )
      `.pipe(Effect.mapError(storeError("save")))
    })

    const latest = Effect.gen(function* () {
      const [row] = yield* sql<SnapshotRow>`
        SELECT rows, rows_skipped, as_of_text, expires_at_text, source, source_url, sample
        FROM quantum_snapshots
        WHERE row_count <= ${MaxQuantumRows} AND rows_bytes <= ${MaxServedRowsBytes}
        ORDER BY id DESC LIMIT 1
      `
      if (row === undefined) return Option.none<QuantumSnapshot>()
      const rows = yield* decodeRows(row.rows)
      const snapshot = yield* decodeSnapshot({
        rows,
        rows_skipped: row.rows_skipped,
        as_of: row.as_of_text,
        expires_at: row.expires_at_text,
        source: row.source,
        source_url: row.source_url,
        ...(row.sample === null ? {} : { sample: row.sample })
      })
      return Option.some(snapshot)
    }).pipe(Effect.mapError(storeError("latest")), Effect.withSpan("PgQuantumSnapshotStore.latest"))

    const recordOutcome = Effect.fn("PgQuantumSnapshotStore.recordOutcome")(function* (
      outcome: QuantumRefreshOutcome
    ) {
      yield* sql`
        INSERT INTO quantum_refresh_outcomes (at, at_text, ok, error)
        VALUES (${outcome.at}::timestamptz, ${outcome.at}, ${outcome.ok}, ${outcome.error ?? null})
      `.pipe(Effect.mapError(storeError("recordOutcome")))
    })

    const lastOutcome = Effect.gen(function* () {
      const [row] = yield* sql<OutcomeRow>`
        SELECT at_text, ok, error FROM quantum_refresh_outcomes ORDER BY id DESC LIMIT 1
      `
      if (row === undefined) return Option.none<QuantumRefreshOutcome>()
      const outcome = yield* decodeOutcome({
        at: row.at_text,
        ok: row.ok,
        ...(row.error === null ? {} : { error: row.error })
      })
      return Option.some(outcome)
    }).pipe(Effect.mapError(storeError("lastOutcome")), Effect.withSpan("PgQuantumSnapshotStore.lastOutcome"))

    return QuantumSnapshotStore.of({ save, latest, recordOutcome, lastOutcome })
  })
)
