/**
 * The QuantumSnapshotStore port on Postgres. Snapshots and refresh outcomes
 * are appended; the latest of each is the one read, so every server process
 * serves what any of them fetched, and the history stays for inspection.
 * Rows are one jsonb array: they are always read whole. Every row a read
 * returns is decoded with the domain's schemas (PgRows), so a hand-edited row
 * that no longer fits is a StoreError naming the read, not a malformed
 * payload on the wire.
 */
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { MaxQuantumRows } from "@ratings/domain/quantum/QuantumRows"
import {
  QuantumRefreshOutcome,
  QuantumSnapshot,
  unstorableReason
} from "@ratings/domain/quantum/QuantumSnapshot"
import { notifyChanges } from "./PgCacheInvalidation.ts"
import { decodeRows, orReadError } from "./PgRows.ts"

/**
 * The most bytes of rows a read fetches: half the client's 16 MiB message
 * limit. Any snapshot the domain accepts (MaxQuantumRows rows, texts of at
 * most MaxQuantumTextLength characters) is well under it.
 */
export const MaxServedRowsBytes = 8 * 1024 * 1024

const storeError =
  (operation: string) =>
  (error: SqlError.SqlError): StoreError =>
    new StoreError({ message: `quantum snapshot store, ${operation}: ${error.message}` })

/**
 * A snapshot row, decoded with the domain's schemas of the fields it holds:
 * the rows with `QuantumRow`, the date-times as the texts that keep them as
 * given (`IsoDateTime`), `sample` null when the snapshot did not say.
 */
const SnapshotRow = Schema.Struct({
  rows: QuantumSnapshot.fields.rows,
  rows_skipped: QuantumSnapshot.fields.rows_skipped,
  as_of_text: QuantumSnapshot.fields.as_of,
  expires_at_text: QuantumSnapshot.fields.expires_at,
  source: QuantumSnapshot.fields.source,
  source_url: QuantumSnapshot.fields.source_url,
  sample: Schema.NullOr(Schema.Boolean)
})
type SnapshotRow = typeof SnapshotRow.Type

/** A refresh outcome row, decoded with the domain's schemas; `error` null when the refresh succeeded. */
const OutcomeRow = Schema.Struct({
  at_text: QuantumRefreshOutcome.fields.at,
  ok: QuantumRefreshOutcome.fields.ok,
  error: Schema.NullOr(Schema.String)
})
type OutcomeRow = typeof OutcomeRow.Type

const decodeSnapshotRows = decodeRows(SnapshotRow)
const decodeOutcomeRows = decodeRows(OutcomeRow)

/**
 * The quantum version, bumped in the write's own transaction: both the
 * snapshot and the last outcome show in every quantum body (the stale flag),
 * so a cached body computed before the commit is never served after it.
 */
const withBump =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(write: Effect.Effect<A, E, R>) =>
    sql.withTransaction(
      Effect.tap(write, () => notifyChanges(sql, [{ entity_type: "quantum", entity_id: "*" }]))
    )

const toSnapshot = (row: SnapshotRow): QuantumSnapshot => ({
  rows: row.rows,
  rows_skipped: row.rows_skipped,
  as_of: row.as_of_text,
  expires_at: row.expires_at_text,
  source: row.source,
  source_url: row.source_url,
  ...(row.sample === null ? {} : { sample: row.sample })
})

const toOutcome = (row: OutcomeRow): QuantumRefreshOutcome => ({
  at: row.at_text,
  ok: row.ok,
  ...(row.error === null ? {} : { error: row.error })
})

const save = (sql: SqlClient.SqlClient) =>
  Effect.fn("PgQuantumSnapshotStore.save")(function* (snapshot: QuantumSnapshot) {
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
    `.pipe(withBump(sql), Effect.mapError(storeError("save")))
  })

/**
 * The latest snapshot within the served bounds: at most MaxQuantumRows rows
 * and `MaxServedRowsBytes` of rows as Postgres sends them (migration 0006). A
 * snapshot an older version stored over them is passed over rather than
 * failing every read (`save` refuses one in the first place). A row that
 * does not decode is a StoreError naming the read.
 */
const latest = (sql: SqlClient.SqlClient): Effect.Effect<Option.Option<QuantumSnapshot>, StoreError> =>
  sql`
    SELECT rows, rows_skipped, as_of_text, expires_at_text, source, source_url, sample
    FROM quantum_snapshots
    WHERE row_count <= ${MaxQuantumRows} AND rows_bytes <= ${MaxServedRowsBytes}
    ORDER BY id DESC LIMIT 1
  `.pipe(
    Effect.flatMap(decodeSnapshotRows),
    Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toSnapshot)),
    orReadError("quantum snapshot store, latest"),
    Effect.withSpan("PgQuantumSnapshotStore.latest")
  )

const recordOutcome = (sql: SqlClient.SqlClient) =>
  Effect.fn("PgQuantumSnapshotStore.recordOutcome")(function* (outcome: QuantumRefreshOutcome) {
    yield* sql`
      INSERT INTO quantum_refresh_outcomes (at, at_text, ok, error)
      VALUES (${outcome.at}::timestamptz, ${outcome.at}, ${outcome.ok}, ${outcome.error ?? null})
    `.pipe(withBump(sql), Effect.mapError(storeError("recordOutcome")))
  })

/** The latest refresh outcome; a row that does not decode is a StoreError naming the read. */
const lastOutcome = (
  sql: SqlClient.SqlClient
): Effect.Effect<Option.Option<QuantumRefreshOutcome>, StoreError> =>
  sql`
    SELECT at_text, ok, error FROM quantum_refresh_outcomes ORDER BY id DESC LIMIT 1
  `.pipe(
    Effect.flatMap(decodeOutcomeRows),
    Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toOutcome)),
    orReadError("quantum snapshot store, lastOutcome"),
    Effect.withSpan("PgQuantumSnapshotStore.lastOutcome")
  )

export const layer: Layer.Layer<QuantumSnapshotStore, never, SqlClient.SqlClient> = Layer.effect(
  QuantumSnapshotStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return QuantumSnapshotStore.of({
      save: save(sql),
      latest: latest(sql),
      recordOutcome: recordOutcome(sql),
      lastOutcome: lastOutcome(sql)
    })
  })
)
