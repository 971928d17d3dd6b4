/**
 * Keeps the read benchmark (bench/read.bench.ts) from rotting: its whole run
 * (fresh database, scale dataset and the demo's incidents and quantum sample,
 * 100 keys per tier, the five servers and the load generator as child
 * processes, the body checks, the measurements) at a tiny size for one
 * second per cell, with wrk when it is installed (the autocannon fallback
 * otherwise, and on its own in a second run); its options and its targets.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CallerNames,
  type Cell,
  inTurn,
  MetricsOnFloor,
  parseOptions,
  type Row,
  RouteNames,
  meanCell,
  Routes,
  readBench,
  tableOf,
  targetsOf
} from "../read.bench.ts"
import { ExplorerP99Ms, ExplorerRoutes, explorerTargets } from "../readExplorer.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const tiny = { PROTOCOLS: "60", DURATION: "1", WARMUP: "0", CONNECTIONS: "4", PAIRS: "2" }

const TierRank = { anonymous: 0, free: 1, pro: 2, enterprise: 3 } as const

describe("read benchmark", () => {
  it("read bench: every route as every caller kind has its bodies checked against the baseline, or is listed as refused by the spec; the loaded ones (a list and a tiered route) are measured on the four servers with 0 errors, the anonymous list with metrics on beside; the table holds each", async () => {
    // Loading every row takes about 4 minutes at one second per cell; the smoke run loads two
    // routes (every caller of the list, the Enterprise questions) and checks every other row's bodies.
    const loaded = ["list", "questions"]
    const options = parseOptions({ ...tiny, LOAD: loaded.join(",") })
    const result = await readBench(serverUrl(), options, () => {})
    assert.deepStrictEqual(result.broken, [])
    const report = result.report.join("\n")
    // The explorer's list and entity pages, anonymous and cached, are measured beside the API's rows.
    assert.deepStrictEqual(
      result.explorer.map((r) => r.route),
      ExplorerRoutes.map((r) => r.name)
    )
    for (const r of result.explorer) {
      assert.isAbove(r.ours.rps, 0, `${r.route}: ours measured`)
      assert.isAbove(r.ceiling.rps, 0, `${r.route}: the ceiling measured`)
      assert.include(report, `| ${r.route} |`)
      assert.include(report, `${r.route} as anonymous: p99 at ${r.connections} connections`)
    }
    for (const route of Routes) {
      for (const caller of CallerNames) {
        const row = result.rows.find((r) => r.route === route.name && r.caller === caller)
        const skipped = result.skipped.find((s) => s.route === route.name && s.caller === caller)
        if (TierRank[caller] < TierRank[route.tier]) {
          assert.isUndefined(row, `${route.name} as ${caller} is not loaded`)
          assert.isDefined(skipped, `${route.name} as ${caller} is listed as skipped`)
          assert.include(report, `${route.name} as ${caller}`)
          continue
        }
        if (!loaded.includes(route.name)) {
          assert.isUndefined(row, `${route.name} as ${caller} is not loaded (LOAD)`)
          assert.include(result.checkedOnly, `${route.name} as ${caller}`, "its bodies were checked")
          continue
        }
        assert.isDefined(row, `${route.name} as ${caller} is measured`)
        assert.include(report, `| ${route.name} | ${caller} | equal |`)
        for (const cell of [row!.ours, row!.uncached, row!.baseline, row!.ceiling]) {
          assert.isAbove(cell.rps, 0, `${route.name} as ${caller}`)
          assert.strictEqual(cell.errors + cell.non2xx, 0, `${route.name} as ${caller}`)
        }
        assert.isAbove(row!.bytes, 0)
        if (caller !== "anonymous")
          assert.isAtLeast(row!.requests, 100, "the row rotates over the tier's keys")
        // A keyed row on a route anonymous callers read has its anonymous figure measured in turn with it.
        if (caller !== "anonymous" && route.tier === "anonymous") {
          assert.isAbove(row!.anonymousBeside?.rps ?? 0, 0, `${route.name} as ${caller}: anonymous beside`)
          assert.strictEqual(row!.pairs?.length, 2, `${route.name} as ${caller}: PAIRS rounds`)
          for (const p of row!.pairs ?? []) assert.isTrue(p.keyed > 0 && p.anonymous > 0)
        } else {
          assert.isUndefined(row!.anonymousBeside, `${route.name} as ${caller}: none beside`)
          assert.isUndefined(row!.pairs, `${route.name} as ${caller}: no pairs`)
        }
        // An anonymous row is measured with metrics off and on in turn; the others have no metrics figure.
        if (caller === "anonymous") {
          assert.isAbove(row!.metricsOn?.rps ?? 0, 0, `${route.name} as ${caller}: metrics on`)
          assert.strictEqual(row!.metricsOn!.errors + row!.metricsOn!.non2xx, 0)
          assert.strictEqual(row!.metricsPairs?.length, 2, `${route.name} as ${caller}: PAIRS rounds`)
          for (const p of row!.metricsPairs ?? []) assert.isTrue(p.off > 0 && p.on > 0)
        } else {
          assert.isUndefined(row!.metricsOn, `${route.name} as ${caller}: no metrics figure`)
          assert.isUndefined(row!.metricsPairs, `${route.name} as ${caller}: no metrics pairs`)
        }
      }
    }
    assert.match(
      report,
      /keyed \/ anonymous: \d+ % \(at least 85 %\); [\d,]+ req\/s keyed, [\d,]+ anonymous, means of 2 alternated pairs \(each: \d+ %, \d+ %\)/
    )
    assert.match(report, /^load generator: (wrk|autocannon)/m)
    assert.match(report, /^machine: /m)
    assert.match(report, /(PASS|FAIL) {2}list of 50 as anonymous: ours \/ ceiling/)
    assert.match(
      report,
      /(PASS|FAIL) {2}list as anonymous: metrics on \/ off: \d+\.\d\dx \(at least 0\.85x\); [\d,]+ req\/s metrics on, [\d,]+ off, means of 2 alternated pairs \(each: \d+\.\d\dx, \d+\.\d\dx\)/
    )
    assert.include(report, "| ours, cache | ours, cache, metrics on | ours, no cache |")
    assert.match(report, /targets pass; total time \d+ s/)
    assert.notInclude(report, "BROKEN")
  }, 900_000)

  it("read bench: the autocannon fallback measures a subset of routes and callers", async () => {
    const options = parseOptions({
      ...tiny,
      LOADGEN: "autocannon",
      ROUTES: "compare",
      CALLERS: "anonymous,enterprise"
    })
    const result = await readBench(serverUrl(), options, () => {})
    assert.deepStrictEqual(result.broken, [])
    assert.deepStrictEqual(
      result.rows.map((r) => `${r.route} ${r.caller}`),
      ["compare enterprise"]
    )
    assert.deepStrictEqual(
      result.skipped.map((s) => `${s.route} ${s.caller}`),
      ["compare anonymous"]
    )
    assert.match(result.report.join("\n"), /^load generator: autocannon fallback/m)
    // No anonymous row is loaded: no metrics-on server, figure or target.
    assert.isUndefined(result.rows[0]!.metricsOn)
    assert.notInclude(result.report.join("\n"), "metrics on / off")
  }, 300_000)

  it("read bench explorer targets: p99 under 50 ms, and ours against the ceiling as the list is held", () => {
    const cell = (rps: number, p99: number) => ({ rps, p99, errors: 0, non2xx: 0 })
    const row = (ours: ReturnType<typeof cell>) => ({
      route: "explorer-entity",
      requests: 10,
      bytes: 20_000,
      connections: 32,
      ours,
      ceiling: cell(10_000, 5)
    })
    const fast = explorerTargets([row(cell(8_000, 12))])
    assert.deepStrictEqual(
      fast.map((t) => [t.name, t.pass]),
      [
        ["explorer-entity as anonymous: ours / ceiling", true],
        ["explorer-entity as anonymous: p99 at 32 connections", true]
      ]
    )
    const slow = explorerTargets([row(cell(3_000, ExplorerP99Ms))])
    assert.deepStrictEqual(
      slow.map((t) => t.pass),
      [false, false],
      "30 % of the ceiling, and a p99 of 50 ms is not under 50"
    )
    assert.strictEqual(slow[1]!.unit, "ms")
  })

  it("read bench options: defaults, subsets in the bench's order, and an invalid value names its option", () => {
    const d = parseOptions({ LOADGEN: "autocannon" })
    assert.deepStrictEqual([d.protocols, d.duration, d.warmup, d.connections, d.pairs], [10_000, 5, 2, 64, 4])
    assert.deepStrictEqual(d.routes, RouteNames)
    assert.deepStrictEqual(d.load, RouteNames, "every route is loaded by default")
    assert.deepStrictEqual(d.callers, CallerNames)
    assert.deepStrictEqual(parseOptions({ LOADGEN: "autocannon", CALLERS: "pro,anonymous" }).callers, [
      "anonymous",
      "pro"
    ])
    for (const [env, says] of [
      [{ DURATION: "abc" }, /DURATION must be a whole number >= 1, got abc/],
      [{ DURATION: "0" }, /DURATION must be a whole number >= 1, got 0/],
      [{ WARMUP: "-1" }, /WARMUP must be a whole number >= 0/],
      [{ PROTOCOLS: "1.5" }, /PROTOCOLS must be a whole number/],
      [{ CONNECTIONS: "1" }, /CONNECTIONS must be a whole number >= 2/],
      [{ PAIRS: "0" }, /PAIRS must be a whole number >= 1, got 0/],
      [{ ROUTES: "list,nope" }, /ROUTES: unknown nope/],
      [{ CALLERS: "admin" }, /CALLERS: unknown admin/],
      [{ LOAD: "list,nope" }, /LOAD: unknown nope/],
      [{ LOADGEN: "ab" }, /LOADGEN must be wrk or autocannon/]
    ] as const)
      assert.throws(() => parseOptions({ LOADGEN: "autocannon", ...env }), says)
  })

  it("read bench targets: ratios against the baseline, keyed against anonymous, the list against the ceiling, and without the cache", () => {
    const cell = (rps: number) => ({ rps, p99: 1, errors: 0, non2xx: 0 })
    const row = (route: string, caller: Row["caller"], ours: number, uncached: number): Row => ({
      route,
      caller,
      check: "equal",
      requests: 1,
      bytes: 1,
      ours: cell(ours),
      uncached: cell(uncached),
      baseline: cell(100),
      ceiling: cell(1000)
    })
    const targets = targetsOf([
      row("list", "anonymous", 550, 100),
      row("list", "pro", 420, 49),
      row("detail-slug", "anonymous", 299, 50)
    ])
    const verdict = Object.fromEntries(targets.map((t) => [t.name, t.pass]))
    assert.deepStrictEqual(verdict, {
      "list as anonymous: ours / baseline": true,
      "list as pro: ours / baseline": false,
      "detail-slug as anonymous: ours / baseline": false,
      "list as pro: keyed / anonymous": false,
      "list of 50 as anonymous: ours / ceiling": false,
      "list as anonymous: cache off / baseline": true,
      "list as pro: cache off / baseline": false,
      "detail-slug as anonymous: cache off / baseline": true
    })
  })

  it("read bench: a keyed row's ratio is taken against the anonymous figure measured right after it, when there is one", () => {
    const cell = (rps: number) => ({ rps, p99: 1, errors: 0, non2xx: 0 })
    const row = (caller: Row["caller"], ours: number, beside?: number): Row => ({
      route: "list",
      caller,
      check: "equal",
      requests: 1,
      bytes: 1,
      ours: cell(ours),
      uncached: cell(100),
      baseline: cell(100),
      ceiling: cell(1000),
      anonymousBeside: beside === undefined ? undefined : cell(beside)
    })
    const keyed = (rows: ReadonlyArray<Row>) =>
      targetsOf(rows).find((t) => t.name === "list as pro: keyed / anonymous")
    // The anonymous row (measured a minute earlier) says 70 %; the figure beside it says 95 %: the latter counts.
    const beside = keyed([row("anonymous", 1000), row("pro", 700, 737)])
    assert.strictEqual(Math.round(beside!.value), 95)
    assert.isTrue(beside!.pass)
    assert.strictEqual(beside!.detail, "700 req/s keyed, 737 anonymous measured right after")
    // Without one, the anonymous row's figure, as before.
    const row2 = keyed([row("anonymous", 1000), row("pro", 700)])
    assert.strictEqual(Math.round(row2!.value), 70)
    assert.isFalse(row2!.pass)
    assert.isUndefined(row2!.detail)
  })

  it("read bench: with alternated pairs, a keyed row's ratio is the mean keyed figure over the mean anonymous one, and the report lists each pair's ratio", () => {
    const cell = (rps: number) => ({ rps, p99: 1, errors: 0, non2xx: 0 })
    const keyedRuns = [cell(900), cell(700), cell(800)]
    const anonymousRuns = [cell(1000), cell(1000), cell(700)]
    const pro: Row = {
      route: "list",
      caller: "pro",
      check: "equal",
      requests: 100,
      bytes: 1,
      ours: meanCell(keyedRuns),
      anonymousBeside: meanCell(anonymousRuns),
      pairs: keyedRuns.map((k, i) => ({ keyed: k.rps, anonymous: anonymousRuns[i]!.rps })),
      uncached: cell(100),
      baseline: cell(100),
      ceiling: cell(1000)
    }
    const target = targetsOf([pro]).find((t) => t.name === "list as pro: keyed / anonymous")
    // 800 / 900: the means, not the mean of the ratios (90 %, 70 %, 114 %).
    assert.strictEqual(Math.round(target!.value), 89)
    assert.isTrue(target!.pass)
    assert.strictEqual(
      target!.detail,
      "800 req/s keyed, 900 anonymous, means of 3 alternated pairs (each: 90 %, 70 %, 114 %)"
    )
    assert.deepStrictEqual(
      meanCell([
        { rps: 10, p99: 3, errors: 1, non2xx: 0 },
        { rps: 20, p99: 9, errors: 0, non2xx: 2 }
      ]),
      {
        rps: 15,
        p99: 9,
        errors: 1,
        non2xx: 2
      }
    )
  })
})

describe("read benchmark: metrics on / off", () => {
  const cell = (rps: number, errors = 0): Cell => ({ rps, p99: 1, errors, non2xx: 0 })
  const row = (caller: Row["caller"], ours: number, on?: ReadonlyArray<[number, number]>): Row => ({
    route: "list",
    caller,
    check: "equal",
    requests: 1,
    bytes: 1,
    ours: cell(ours),
    uncached: cell(100),
    baseline: cell(100),
    ceiling: cell(1000),
    ...(on === undefined
      ? {}
      : {
          metricsOn: meanCell(on.map(([, m]) => cell(m))),
          metricsPairs: on.map(([off, m]) => ({ off, on: m }))
        })
  })

  it("read bench: the metrics on / off target is the mean figure with metrics on over the mean off, at least 0.85, with each pair's ratio", () => {
    assert.strictEqual(MetricsOnFloor, 0.85)
    const pairs: ReadonlyArray<[number, number]> = [
      [1000, 900],
      [800, 600]
    ]
    const target = (rows: ReadonlyArray<Row>) =>
      targetsOf(rows).find((t) => t.name === "list as anonymous: metrics on / off")
    // 750 / 900: the means, not the mean of the ratios (0.90x, 0.75x).
    const failing = target([row("anonymous", 900, pairs)])
    assert.strictEqual(failing!.value.toFixed(3), "0.833")
    assert.strictEqual(failing!.unit, "x")
    assert.strictEqual(failing!.min, 0.85)
    assert.isFalse(failing!.pass)
    assert.strictEqual(
      failing!.detail,
      "750 req/s metrics on, 900 off, means of 2 alternated pairs (each: 0.90x, 0.75x)"
    )
    const passing = target([
      row("anonymous", 1000, [
        [1000, 850],
        [1000, 850]
      ])
    ])
    assert.isTrue(passing!.pass, "0.85 is at the floor")
    // Rows without a metrics-on figure (keyed rows, runs without an anonymous row) have no such target.
    assert.isUndefined(target([row("anonymous", 1000)]))
    assert.isFalse(targetsOf([row("pro", 700)]).some((t) => t.name.includes("metrics on / off")))
  })

  it("read bench table: the metrics-on column holds the row's figure, or a dash without one; its errors count", () => {
    const [header, , measured, plain] = tableOf([
      { ...row("anonymous", 1000, [[1000, 900]]), metricsOn: cell(900, 2) },
      row("pro", 700)
    ])
    const columns = (line: string | undefined) =>
      line!
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim())
    const at = columns(header).indexOf("ours, cache, metrics on")
    assert.strictEqual(at, columns(header).indexOf("ours, cache") + 1)
    assert.strictEqual(columns(measured)[at], "900 (1)")
    assert.strictEqual(columns(measured).at(-1), "2", "the metrics-on cell's errors are the row's")
    assert.strictEqual(columns(plain)[at], "-")
    assert.strictEqual(columns(plain).at(-1), "0")
    assert.strictEqual(columns(measured).length, columns(header).length)
  })

  it("read bench: two loads in turn are warmed up once each, then alternate, the first load first in even rounds", async () => {
    const calls: Array<string> = []
    const load = (name: string) => async (seconds: number) => {
      calls.push(`${name} ${seconds}`)
      return cell(seconds)
    }
    const [a, b] = await inTurn(load("off"), load("on"), { pairs: 3, warmup: 1, duration: 5 })
    assert.deepStrictEqual(calls, ["off 1", "on 1", "off 5", "on 5", "on 5", "off 5", "off 5", "on 5"])
    assert.strictEqual(a.length, 3)
    assert.strictEqual(b.length, 3)
    calls.length = 0
    await inTurn(load("off"), load("on"), { pairs: 1, warmup: 0, duration: 2 })
    assert.deepStrictEqual(calls, ["off 2", "on 2"], "no warm-up at WARMUP=0")
  })
})
