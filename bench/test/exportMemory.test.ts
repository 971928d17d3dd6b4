/**
 * Keeps the export memory benchmark (bench/exportMemory.bench.ts) from
 * rotting: its whole run at a small size (generated dataset imported into a
 * fresh database, Pro keys, the server child process with its memory probe,
 * ours and the baseline compared byte for byte, every export's rows counted),
 * and its verdict against figures that must pass and fail. The memory figures
 * themselves are the benchmark's to print, not a test's to assert.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { type ExportMemoryResult, type Measured, runExportMemory, verdictOf } from "../exportMemory.bench.ts"
import { withScratchDatabase } from "../harness.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const figures = (
  ours: readonly [number, number],
  baseline: readonly [number, number]
): ExportMemoryResult => {
  const m = (variant: Measured["variant"], rows: number, peakLive: number): Measured => ({
    variant,
    rows,
    peakLive,
    peakJs: peakLive,
    peakRss: 0,
    bytes: rows * 100,
    exports: 4
  })
  return {
    options: { sizes: [500, 5000], concurrency: 4, repeat: 1, entities: 9000, seed: "1", dataDir: "" },
    listed: 6000,
    idleJs: 0,
    compared: 2,
    measured: [
      m("ours", 500, ours[0]),
      m("baseline", 500, baseline[0]),
      m("ours", 5000, ours[1]),
      m("baseline", 5000, baseline[1])
    ]
  }
}

describe("export memory benchmark", () => {
  it("runs end to end: ours and the baseline send the same document, every export its rows, every batch measured", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "bench-export-data-"))
    try {
      const options = { sizes: [20, 200], concurrency: 2, repeat: 1, entities: 600, seed: "test", dataDir }
      const r = await withScratchDatabase(serverUrl(), "bench_export_test", false, (db) =>
        runExportMemory(db.url, options)
      )
      assert.strictEqual(r.compared, 2)
      assert.isAtLeast(r.listed, 200)
      assert.deepStrictEqual(
        r.measured.map((m) => `${m.variant} ${m.rows} ${m.exports}`),
        ["ours 20 2", "baseline 20 2", "ours 200 2", "baseline 200 2"]
      )
      for (const m of r.measured) {
        assert.isAbove(m.bytes, m.rows * 20, `${m.variant} ${m.rows} bytes`)
        assert.isTrue(Number.isFinite(m.peakLive) && Number.isFinite(m.peakJs) && Number.isFinite(m.peakRss))
      }
      assert.isAbove(r.idleJs, 0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("the verdict: flat when ours' live peak at the largest size is within 2x the smallest's, whatever the baseline", () => {
    assert.isTrue(verdictOf(figures([3e6, 4e6], [5e6, 45e6])).flat)
    assert.isTrue(verdictOf(figures([3e6, 6e6], [5e6, 5e6])).flat)
    assert.isFalse(verdictOf(figures([3e6, 6.1e6], [5e6, 45e6])).flat)
    assert.isFalse(verdictOf(figures([3e6, 30e6], [5e6, 45e6])).flat)
    const v = verdictOf(figures([2e6, 4e6], [5e6, 40e6]))
    assert.strictEqual(v.ours, 2)
    assert.strictEqual(v.baseline, 8)
  })
})
