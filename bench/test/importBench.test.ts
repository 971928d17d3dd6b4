/**
 * Keeps the import benchmark's import side (bench/importChild.ts, run by
 * import.bench.ts in a child process) from rotting: a small generated dataset
 * loaded into a fresh database by the child, which reports its seconds and
 * peak RSS. The figures themselves are the benchmark's to print.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { writeDataset } from "@ratings/demo-data"
import { Effect } from "effect"
import pg from "pg"
import { withScratchDatabase } from "../harness.ts"
import { importInChild } from "../import.bench.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

describe("import benchmark", () => {
  it("the child imports the generated dataset and reports its seconds and peak RSS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ratings-import-bench-"))
    try {
      await Effect.runPromise(
        writeDataset(dir, { entities: 30, seed: "smoke" }).pipe(Effect.provide(NodeServices.layer))
      )
      await withScratchDatabase(serverUrl(), "bench_import_smoke", false, async (db) => {
        const { seconds, peakRss } = await importInChild(dir, db.url)
        assert.isAbove(seconds, 0)
        assert.isAbove(peakRss, 10 * 1024 * 1024)
        const client = new pg.Client({ connectionString: db.url })
        await client.connect()
        try {
          const { rows } = await client.query("SELECT count(*)::int AS n FROM entities")
          assert.strictEqual(rows[0].n, 30)
        } finally {
          await client.end()
        }
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
