import { assert, describe, it } from "@effect/vitest"
import { Duration, Schema } from "effect"
import { matchRows, readRows } from "../../src/quantum/QuantumRows.ts"
import {
  DefaultSnapshotTtl,
  isExpired,
  makeSnapshot,
  QuantumSnapshot
} from "../../src/quantum/QuantumSnapshot.ts"
import { chains, goodRows } from "./QuantumFixtures.ts"

const fetchedAt = Date.parse("2026-08-01T00:00:00.000Z")
const read = readRows([...goodRows, { slug: 1 }])
const rows = matchRows(read.rows, chains)

describe("QuantumSnapshot", () => {
  it("a snapshot is stamped with its fetch time and expires a TTL later (24 hours by default), naming LayerQu", () => {
    const snapshot = makeSnapshot(
      { rows, rows_skipped: read.rows_skipped },
      { now: fetchedAt, ttlMillis: Duration.toMillis(DefaultSnapshotTtl) }
    )
    assert.strictEqual(snapshot.as_of, "2026-08-01T00:00:00+00:00")
    assert.strictEqual(snapshot.expires_at, "2026-08-02T00:00:00+00:00")
    assert.strictEqual(snapshot.rows_skipped, 1)
    assert.strictEqual(snapshot.source, "LayerQu")
    assert.strictEqual(snapshot.source_url, "https://layerqu.com/dashboard/")
    assert.isFalse("sample" in snapshot)
    assert.isTrue(
      makeSnapshot({ rows, rows_skipped: 0 }, { now: fetchedAt, ttlMillis: 1, sample: true }).sample
    )
  })

  it("a snapshot is expired from the instant expires_at is reached", () => {
    const snapshot = makeSnapshot({ rows, rows_skipped: 0 }, { now: fetchedAt, ttlMillis: 60_000 })
    assert.isFalse(isExpired(snapshot, fetchedAt))
    assert.isFalse(isExpired(snapshot, fetchedAt + 59_999))
    assert.isTrue(isExpired(snapshot, fetchedAt + 60_000))
  })

  it("a snapshot survives a JSON round trip through its schema, as a store keeps it", () => {
    const snapshot = makeSnapshot(
      { rows, rows_skipped: 1 },
      { now: fetchedAt, ttlMillis: 1000, sample: true }
    )
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(QuantumSnapshot)(snapshot)))
    assert.deepStrictEqual(Schema.decodeUnknownSync(QuantumSnapshot)(json), snapshot)
  })
})
