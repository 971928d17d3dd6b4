/**
 * Keeps the CLI start benchmark (bench/cliStart.bench.ts) from rotting: its
 * whole run at one timed run a command, against a scratch database. Checks
 * the shape of what it prints (a row a command with its times and verdict)
 * and that every command answered as expected, not the timings themselves.
 */
import { assert, describe, it } from "@effect/vitest"
import { cliStartBench, formatReport, median, parseCliStartOptions } from "../cliStart.bench.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

describe("CLI start benchmark", () => {
  it("times node -e 0, --help, an argument error and keys create, each answering as it should, in a table with a verdict against its target", async () => {
    const result = await cliStartBench(serverUrl(), parseCliStartOptions({ RUNS: "1" }))
    assert.deepStrictEqual(result.broken, [])
    assert.deepStrictEqual(
      result.rows.map((r) => [r.name, r.target]),
      [
        ["node -e 0", undefined],
        ["ratings --help", 0.3],
        ["ratings publish protocols (error)", 0.3],
        ["ratings keys create", 1]
      ]
    )
    for (const row of result.rows) {
      assert.strictEqual(row.runs.length, 1)
      assert.isAbove(row.median, 0)
      assert.isAbove(row.cpu, 0)
    }
    const report = result.report.join("\n")
    assert.match(report, /^cli start benchmark: \S+node/m)
    assert.match(report, /^machine: /m)
    assert.match(report, /^\| node -e 0 \| \d+\.\d{3} s \| \d+\.\d{3} s \| \d+\.\d{3} s \| - \| floor \|$/m)
    assert.match(
      report,
      /^\| ratings --help \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \| 0\.300 s \| (PASS|FAIL) \|$/m
    )
    assert.match(
      report,
      /^\| ratings keys create \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \| 1\.000 s \| (PASS|FAIL) \|$/m
    )
    assert.notInclude(report, "BROKEN")
  }, 120_000)

  it("options and arithmetic: RUNS, the median, and a verdict from the median against the target", () => {
    assert.strictEqual(parseCliStartOptions({}).runs, 11)
    assert.throws(() => parseCliStartOptions({ RUNS: "0" }), /RUNS must be a whole number >= 1, got 0/)
    assert.strictEqual(median([3, 1, 2]), 2)
    assert.strictEqual(median([4, 1, 3, 2]), 2.5)
    const [, , fast, slow] = formatReport(
      [
        { name: "a", runs: [0.2, 0.1], median: 0.15, cpu: 0.1, target: 0.3, pass: true },
        { name: "b", runs: [2], median: 2, cpu: 1, target: 1, pass: false }
      ],
      2
    )
    assert.strictEqual(fast, "| a | 0.150 s | 0.100 s | 0.100 s | 0.300 s | PASS |")
    assert.strictEqual(slow, "| b | 2.000 s | 2.000 s | 1.000 s | 1.000 s | FAIL |")
  })
})
