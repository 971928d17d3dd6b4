/**
 * The import's memory stays bounded as its input grows: `ratings import`'s
 * pipeline (bench/importChild.ts, in a child process of its own) loads N and
 * then 4N generated entities into fresh databases, and its peak RSS may grow
 * by only a fraction of the input: files are read and decoded item by item,
 * the answers and records kept compactly in the import's working file, so the
 * growth is the index and plan that validation keeps, not the input.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { writeDataset } from "@ratings/demo-data"
import { Effect } from "effect"
import { withScratchDatabase } from "../harness.ts"
import { importInChild } from "../import.bench.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const N = 1000
/**
 * Peak RSS the import may add per entity beyond N, each some 14 KB of JSON
 * with 64 answers (what it adds is in docs/benchmarks.md, Import).
 */
const MaxGrowthPerEntity = 24 * 1024

/** The peak RSS of importing `entities` generated entities into a fresh database. */
const peakRssOf = async (entities: number): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), "ratings-import-memory-"))
  try {
    await Effect.runPromise(
      writeDataset(dir, { entities, seed: "memory" }).pipe(Effect.provide(NodeServices.layer))
    )
    return await withScratchDatabase(serverUrl(), "import_memory", false, async (db) => {
      const { peakRss } = await importInChild(dir, db.url)
      return peakRss
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("import memory", () => {
  it("peak RSS grows sublinearly from N to 4N entities", async () => {
    const small = await peakRssOf(N)
    const large = await peakRssOf(4 * N)
    const mb = (n: number) => `${Math.round(n / 1048576)} MB`
    const growth = large - small
    assert.isBelow(
      growth,
      3 * N * MaxGrowthPerEntity,
      `peak RSS ${mb(small)} at ${N} entities, ${mb(large)} at ${4 * N}: grew by ${Math.round(growth / (3 * N))} bytes per entity`
    )
    assert.isBelow(large, 1.5 * small, `peak RSS ${mb(small)} at ${N} entities, ${mb(large)} at ${4 * N}`)
  }, 180_000)
})
