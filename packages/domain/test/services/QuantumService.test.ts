import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import type { EntityRecord } from "../../src/model/Entity.ts"
import { ChainDirectory } from "../../src/ports/ChainDirectory.ts"
import { QuantumSnapshotStore } from "../../src/ports/QuantumSnapshotStore.ts"
import { QuantumSource } from "../../src/ports/QuantumSource.ts"
import { MaxQuantumRows } from "../../src/quantum/QuantumRows.ts"
import { QuantumService } from "../../src/services/QuantumService.ts"
import { chains, ethereumRow, goodRows, solanaRow } from "../quantum/QuantumFixtures.ts"
import { ChainDirectoryMemory } from "../../src/ports/memory/ChainDirectoryMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../../src/ports/memory/QuantumSnapshotStoreMemory.ts"
import { QuantumSourceMemory } from "../../src/ports/memory/QuantumSourceMemory.ts"

const start = Date.parse("2026-08-01T00:00:00.000Z")

/** Sets the clock to `start`, the directory to the fixture chains and the source to the fixture rows. */
const arrange = Effect.gen(function* () {
  yield* TestClock.setTime(start)
  yield* Ref.set(yield* ChainDirectoryMemory, chains)
  yield* (yield* QuantumSourceMemory).respond([...goodRows, { slug: "broken" }])
})

describe("QuantumService", () => {
  it.effect(
    "refresh succeeds, time passes beyond the TTL, the next refresh fails: the table is served stale; a later success is fresh again",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const service = yield* QuantumService
        const source = yield* QuantumSourceMemory

        const first = yield* service.refresh
        assert.isTrue(first.outcome.ok)
        const fresh = yield* service.leagueTable
        assert.isTrue(fresh.available)
        if (!fresh.available) return
        assert.strictEqual(fresh.as_of, "2026-08-01T00:00:00+00:00")
        assert.strictEqual(fresh.rows_skipped, 1)
        assert.strictEqual(fresh.rows.length, goodRows.length)
        assert.isFalse("stale" in fresh)

        yield* TestClock.adjust("25 hours")
        yield* source.fail("connect ETIMEDOUT")
        const failed = yield* service.refresh
        assert.isFalse(failed.outcome.ok)
        assert.include(failed.outcome.error ?? "", "connect ETIMEDOUT")
        assert.isUndefined(failed.snapshot)
        const stale = yield* service.leagueTable
        assert.isTrue(stale.available && stale.stale === true)
        assert.strictEqual(
          stale.available && stale.as_of,
          "2026-08-01T00:00:00+00:00",
          "the last snapshot is kept"
        )
        const chain = yield* service.chain("ethereum")
        assert.isTrue(chain.available && chain.stale === true)

        yield* TestClock.adjust("1 hour")
        yield* source.respond([ethereumRow])
        const recovered = yield* service.refresh
        assert.isTrue(recovered.outcome.ok)
        const again = yield* service.leagueTable
        assert.isTrue(again.available)
        if (!again.available) return
        assert.isFalse("stale" in again)
        assert.strictEqual(again.as_of, "2026-08-02T02:00:00+00:00")
        assert.strictEqual(again.rows_skipped, 0)
        assert.strictEqual(yield* source.fetches, 3)
      }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("a refresh that fails while the snapshot is still fresh does not mark it stale", () =>
    Effect.gen(function* () {
      yield* arrange
      const service = yield* QuantumService
      yield* service.refresh
      yield* TestClock.adjust("23 hours")
      yield* (yield* QuantumSourceMemory).fail("HTTP 503")
      assert.isFalse((yield* service.refresh).outcome.ok)
      const table = yield* service.leagueTable
      assert.isTrue(table.available)
      assert.isFalse("stale" in table)
      yield* TestClock.adjust("1 hour")
      const expired = yield* service.leagueTable
      assert.isTrue(expired.available && expired.stale === true, "once it expires the earlier failure counts")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("the snapshot TTL is configurable", () =>
    Effect.gen(function* () {
      yield* arrange
      const service = yield* QuantumService
      const { snapshot } = yield* service.refresh
      assert.strictEqual(snapshot?.expires_at, "2026-08-01T01:00:00+00:00")
      yield* TestClock.adjust("1 hour")
      yield* (yield* QuantumSourceMemory).fail("down")
      yield* service.refresh
      const table = yield* service.leagueTable
      assert.isTrue(table.available && table.stale === true)
    }).pipe(Effect.provide(QuantumService.layerTest({ ttl: "1 hour" })))
  )

  it.effect("available: false with a reason when nothing could be served; refresh never fails", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const service = yield* QuantumService
      const store = yield* QuantumSnapshotStore
      const result = yield* service.refresh
      assert.isFalse(result.outcome.ok)
      assert.deepStrictEqual(yield* store.lastOutcome, Option.some(result.outcome))
      const table = yield* service.leagueTable
      assert.isFalse(table.available)
      assert.strictEqual(!table.available && table.reason, "source unreachable")
      assert.strictEqual(table.source, "LayerQu")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("a fetch with no readable row is a failed refresh: the previous snapshot is kept", () =>
    Effect.gen(function* () {
      yield* arrange
      const service = yield* QuantumService
      const source = yield* QuantumSourceMemory
      yield* service.refresh
      yield* TestClock.adjust("25 hours")
      yield* source.respond([{ slug: "x" }, null])
      const result = yield* service.refresh
      assert.isFalse(result.outcome.ok)
      assert.include(result.outcome.error ?? "", "2 skipped")
      const table = yield* service.leagueTable
      assert.isTrue(table.available && table.rows.length === goodRows.length && table.stale === true)
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect(
    "a dataset of more than MaxQuantumRows rows is refused whole: the refresh fails naming the count, the previous snapshot is kept",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const service = yield* QuantumService
        const source = yield* QuantumSourceMemory
        const manyRows = (n: number) =>
          Array.from({ length: n }, (_, i) => ({ ...ethereumRow, slug: `chain-${i}`, name: `Chain ${i}` }))
        yield* service.refresh
        yield* TestClock.adjust("1 hour")
        yield* source.respond(manyRows(MaxQuantumRows + 1))
        const refused = yield* service.refresh
        assert.isFalse(refused.outcome.ok)
        assert.include(
          refused.outcome.error ?? "",
          `QuantumTooManyRows: the dataset has ${MaxQuantumRows + 1} rows, more than the ${MaxQuantumRows} accepted`
        )
        const kept = yield* service.leagueTable
        assert.isTrue(kept.available && kept.rows.length === goodRows.length, "the previous snapshot is kept")
        assert.isTrue(kept.available && kept.as_of === "2026-08-01T00:00:00+00:00")

        yield* source.respond(manyRows(MaxQuantumRows))
        const full = yield* service.refresh
        assert.isTrue(full.outcome.ok, full.outcome.error)
        const table = yield* service.leagueTable
        assert.isTrue(
          table.available && table.rows.length === MaxQuantumRows,
          "exactly the bound is accepted"
        )
      }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect(
    "matched_chain_slug follows the service database: a draft matches, and a chain added after the fetch matches on the next read",
    () =>
      Effect.gen(function* () {
        yield* arrange
        const directory = yield* ChainDirectoryMemory
        yield* Ref.set(directory, [])
        const service = yield* QuantumService
        const saved = yield* service.refresh
        assert.deepStrictEqual(
          saved.snapshot?.rows.map((r) => r.matched_chain_slug),
          [null, null, null, null]
        )
        yield* Ref.set(directory, [{ slug: "solana", name: "Solana", status: "draft" }])
        const table = yield* service.leagueTable
        assert.deepStrictEqual(table.available && table.rows.map((r) => r.matched_chain_slug), [
          null,
          "solana",
          null,
          null
        ])
        const reading = yield* service.chain("solana")
        assert.isTrue(reading.available && reading.qri === solanaRow.qri && reading.danger === null)
      }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("unknown and unassessed chains are available: false with a reason, not errors", () =>
    Effect.gen(function* () {
      yield* arrange
      const service = yield* QuantumService
      yield* service.refresh
      const unknown = yield* service.chain("no-such-chain")
      assert.strictEqual(!unknown.available && unknown.reason, "unknown chain")
      const unassessed = yield* service.chain("base")
      assert.strictEqual(!unassessed.available && unassessed.reason, "not assessed by source")
      const known = yield* service.chain("arbitrum-one")
      assert.isTrue(known.available && known.as_of === "2026-08-01T00:00:00+00:00")
    }).pipe(Effect.provide(QuantumService.layerTest()))
  )

  it.effect("a snapshot from the shipped sample source is marked sample and says so in its attribution", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const service = yield* QuantumService
      const { snapshot } = yield* service.refresh
      assert.strictEqual(snapshot?.sample, true)
      const table = yield* service.leagueTable
      assert.include(table.attribution, "Sample data")
    }).pipe(
      Effect.provide(
        QuantumService.layer.pipe(
          Layer.provide(
            Layer.mergeAll(
              Layer.succeed(
                QuantumSource,
                QuantumSource.of({ fetch: Effect.succeed(goodRows), sample: true })
              ),
              QuantumSnapshotStoreMemory.layer,
              ChainDirectoryMemory.layer
            )
          )
        )
      )
    )
  )

  it.effect(
    "ChainDirectory.layerEntities lists every chain record, drafts included, but no private or inactive chain (ADR 0003)",
    () =>
      Effect.gen(function* () {
        const all = yield* (yield* ChainDirectory).all
        assert.deepStrictEqual(all, [
          { slug: "solana", name: "Solana", status: "draft" },
          { slug: "optimism", name: "Optimism", status: "published" }
        ])
      }).pipe(
        Effect.provide(
          ChainDirectory.layerEntities.pipe(
            Layer.provide(
              EntityRepositoryMemory.layer([
                {
                  entity_type: "chain",
                  record: chainRecord(
                    "00000000-0000-4000-8000-000000000001",
                    "solana",
                    "Solana",
                    "draft",
                    false
                  )
                },
                {
                  entity_type: "chain",
                  record: chainRecord(
                    "00000000-0000-4000-8000-000000000002",
                    "base",
                    "Base",
                    "published",
                    true
                  )
                },
                {
                  entity_type: "chain",
                  record: {
                    ...chainRecord(
                      "00000000-0000-4000-8000-000000000004",
                      "retired",
                      "Retired",
                      "published",
                      false
                    ),
                    is_active: false
                  }
                },
                {
                  entity_type: "chain",
                  record: chainRecord(
                    "00000000-0000-4000-8000-000000000005",
                    "optimism",
                    "Optimism",
                    "published",
                    false
                  )
                },
                {
                  entity_type: "protocol",
                  record: chainRecord(
                    "00000000-0000-4000-8000-000000000003",
                    "aave",
                    "Aave",
                    "published",
                    false
                  )
                }
              ])
            )
          )
        )
      )
  )
})

function chainRecord(
  id: string,
  slug: string,
  name: string,
  status: EntityRecord["status"],
  isPrivate: boolean
): EntityRecord {
  return {
    id,
    slug,
    name,
    status,
    categories: [],
    chains: [],
    urls: {},
    external_ids: {},
    description: null,
    is_active: true,
    is_private: isPrivate,
    created_at: "2026-08-01T00:00:00Z",
    updated_at: "2026-08-01T00:00:00Z"
  }
}
