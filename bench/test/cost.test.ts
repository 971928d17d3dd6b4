/**
 * Keeps the cost curve benchmark (bench/cost.bench.ts) from rotting: its
 * whole run at two tiny sizes (the dataset imported by `ratings import`, one
 * re-rating imported and published by the CLI, the list and detail loaded
 * with the cache on and off for a second), every cell of its table filled;
 * its options, its re-rating draft and its table's arithmetic. No timings.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Column, costBench, costTable, parseCostOptions, reRating } from "../cost.bench.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

describe("cost curve benchmark", () => {
  it("imports, re-rates and loads at each size, printing one table with every cell filled", async () => {
    const options = parseCostOptions({
      SIZES: "50,100",
      DURATION: "1",
      WARMUP: "0",
      CONNECTIONS: "4",
      PUBLISHES: "1"
    })
    const result = await costBench(serverUrl(), options, () => {})
    assert.deepStrictEqual(result.broken, [])
    assert.deepStrictEqual(
      result.columns.map((c) => c.entities),
      [50, 100]
    )
    for (const c of result.columns) {
      assert.isAbove(c.rows, c.entities, "the import wrote the entities and their scorecards")
      assert.isAbove(c.importPeakRss, 0)
      assert.isAbove(c.databaseBytes, 0)
      assert.isAbove(c.publish.seconds, 0)
      assert.isAbove(c.draft.cpu, 0)
      for (const cell of [c.listCached, c.listUncached, c.detailCached, c.detailUncached]) {
        assert.isAbove(cell.rps, 0)
        assert.isDefined(cell.p50)
        assert.strictEqual(cell.errors + cell.non2xx, 0)
      }
    }
    const report = result.report.join("\n")
    assert.match(report, /^cost curve benchmark: 50 \/ 100 entities, seed 1;/m)
    assert.match(report, /^machine: .*load average [\d.]+ [\d.]+ [\d.]+$/m)
    assert.notInclude(report, "BROKEN")
    const table = result.report.filter((l) => l.startsWith("| "))
    assert.strictEqual(table[0], "| measure | 50 entities | 100 entities |")
    assert.deepStrictEqual(
      table.slice(2).map((l) => l.split(" | ")[0]!.slice(2)),
      [
        "rows imported",
        "`ratings import` of the dataset",
        "import rate",
        "import peak RSS",
        "database size after import",
        "re-rating: `ratings import` of its draft (median of 1)",
        "re-rating: `ratings publish` (median of 1)",
        "list of 50, cached",
        "list of 50, uncached",
        "detail of one protocol, cached",
        "detail of one protocol, uncached",
        "load average (1 min) after the column"
      ]
    )
    for (const line of table.slice(2)) {
      const cells = line.slice(2, -2).split(" | ").slice(1)
      assert.strictEqual(cells.length, 2, line)
      for (const cell of cells) assert.match(cell, /^[1-9\d][\d,.]*( |$)/, `${line}: a figure in every cell`)
      assert.notMatch(line, /NaN|Infinity|\?|undefined/, line)
    }
  }, 600_000)

  it("options: sizes, the load's settings and re-ratings, each refused with its name when invalid", () => {
    const defaults = parseCostOptions({ LOADGEN: "autocannon" })
    assert.deepStrictEqual(defaults.sizes, [1000, 10_000, 100_000])
    assert.strictEqual(defaults.duration, 5)
    assert.strictEqual(defaults.publishes, 5)
    assert.deepStrictEqual(parseCostOptions({ SIZES: "100, 2000", LOADGEN: "autocannon" }).sizes, [100, 2000])
    assert.isTrue(defaults.analyze)
    assert.isFalse(parseCostOptions({ ANALYZE: "0", LOADGEN: "autocannon" }).analyze)
    assert.throws(() => parseCostOptions({ SIZES: "1k" }), /SIZES must be whole numbers >= 20/)
    assert.throws(() => parseCostOptions({ SIZES: "10" }), /SIZES must be whole numbers >= 20/)
    assert.throws(() => parseCostOptions({ DURATION: "0" }), /DURATION must be a whole number >= 1, got 0/)
    assert.throws(() => parseCostOptions({ PUBLISHES: "x" }), /PUBLISHES must be a whole number >= 1/)
    assert.throws(() => parseCostOptions({ SEED: "" }), /SEED must not be empty/)
  })

  it("a re-rating's draft: the scorecard at the new version, its first scored answer moved, ids and claim left out", () => {
    const answer = (question_id: string, score: number | null) => ({
      id: "00000000-0000-4000-8000-000000000001",
      question_id,
      domain: "security",
      score,
      max_score: 4,
      weight: 1,
      confidence: score === null ? ("not_applicable" as const) : ("high" as const),
      response: null,
      rationale: null
    })
    const scorecard = {
      id: "00000000-0000-4000-8000-000000000002",
      entity_type: "protocol" as const,
      slug: "lendwell",
      scorecard_version: 2,
      composite_score: 50,
      answers: [answer("PROT-SEC-01", null), answer("PROT-SEC-02", 2), answer("PROT-SEC-03", 3)]
    }
    const odd = reRating(scorecard, 3)
    assert.strictEqual(odd.scorecard_version, 3)
    assert.isFalse("id" in odd)
    assert.isFalse("composite_score" in odd)
    assert.deepStrictEqual(
      odd.answers.map((a) => [a.question_id, a.score, "id" in a]),
      [
        ["PROT-SEC-01", null, false],
        ["PROT-SEC-02", 4, false],
        ["PROT-SEC-03", 3, false]
      ]
    )
    assert.strictEqual(reRating(scorecard, 4).answers[1]!.score, 0)
  })

  it("the table: a row a measure, a column a size, figures rounded", () => {
    const cell = { rps: 1234.4, p50: 1.26, p99: 12.7, errors: 0, non2xx: 0 }
    const column = (entities: number): Column => ({
      entities,
      rows: 67_000,
      importSeconds: 2.5,
      importCpu: 2,
      importPeakRss: 300 * 2 ** 20,
      databaseBytes: 40 * 2 ** 20,
      draft: { seconds: 1.234, cpu: 0.9 },
      publish: { seconds: 0.5, cpu: 0.4 },
      listCached: cell,
      listUncached: cell,
      detailCached: cell,
      detailUncached: cell,
      load: 1.5
    })
    const table = costTable([column(1000), column(10_000)], 3)
    assert.strictEqual(table[0], "| measure | 1,000 entities | 10,000 entities |")
    assert.include(table, "| `ratings import` of the dataset | 2.5 s (CPU 2.0 s) | 2.5 s (CPU 2.0 s) |")
    assert.include(table, "| import rate | 26,800 rows/s | 26,800 rows/s |")
    assert.include(table, "| import peak RSS | 300 MB | 300 MB |")
    assert.include(
      table,
      "| re-rating: `ratings import` of its draft (median of 3) | 1.23 s (CPU 0.90 s) | 1.23 s (CPU 0.90 s) |"
    )
    assert.include(
      table,
      "| list of 50, cached | 1,234 req/s, p50 1.3 / p99 13 ms | 1,234 req/s, p50 1.3 / p99 13 ms |"
    )
  })
})
