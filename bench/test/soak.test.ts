/**
 * Keeps the soak benchmark (bench/soak.bench.ts) from rotting: its whole run
 * (fresh database, demo import, keys, the real server and autocannon as child
 * processes, the probe of every planned status, the measurements) for ten
 * seconds at low concurrency, and its verdict against figures that must fail.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  checksOf,
  classesOf,
  classOf,
  classPlan,
  formatResult,
  ListReference,
  type Measured,
  type Snapshot,
  soak,
  targetsOf
} from "../soak.bench.ts"
import type { LoadReport } from "../soakLoad.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

const rest: Snapshot = {
  at: 0,
  rssBytes: 100 * 2 ** 20,
  cpuSeconds: 1,
  fds: 30,
  tcp: { http: 0, postgres: 10, other: 0 },
  postgres: 11
}

const underLoad = (postgres: number): Snapshot => ({
  ...rest,
  fds: rest.fds + 70,
  tcp: { http: 64, postgres: postgres - 1, other: 0 },
  postgres
})

const failed = (errors: number, end: Snapshot, soak: ReadonlyArray<Snapshot> = [underLoad(11)]) =>
  checksOf({ errors, start: rest, end, warmup: [underLoad(11)], soak })
    .filter((c) => !c.pass)
    .map((c) => c.name)

describe("soak benchmark", () => {
  it.effect(
    "soak: mixed traffic on every kind of route gets zero errors, and memory, descriptors and connections are measured",
    () =>
      Effect.gen(function* () {
        const result = yield* Effect.promise(() =>
          soak({
            serverUrl: serverUrl(),
            duration: 10,
            ramp: [],
            rampSeconds: 0,
            connections: 4,
            warmup: 2,
            reference: 2,
            classSeconds: 1,
            onlyClasses: ["questions (Enterprise)", "list {type}"],
            sampleEvery: 2,
            log: () => {}
          })
        )
        const paths = result.plan.map((p) => p.path)
        for (const plural of [
          "protocols",
          "chains",
          "tokens",
          "oracles",
          "vaults",
          "organisations",
          "bridges"
        ])
          assert.isTrue(paths.includes(`/api/v1/${plural}`), `the mix lists ${plural}`)
        for (const route of [
          /^\/api\/v1\/\w+\/[^/]+$/,
          /\/scorecards$/,
          /\/domains$/,
          /\/history$/,
          /\/questions$/,
          /\/evidence$/,
          /^\/api\/v1\/incidents\?/,
          /^\/api\/v1\/quantum-readiness$/,
          /^\/api\/v1\/chains\/[^/]+\/quantum-readiness$/,
          /^\/api\/v1\/methodology$/,
          /^\/health$/,
          /^\/api\/v1\/compare\?/
        ])
          assert.isTrue(
            paths.some((p) => route.test(p)),
            `the mix has a request on ${route}`
          )
        const expected = new Set(result.plan.map((p) => p.expect))
        for (const status of [200, 404, 422]) assert.isTrue(expected.has(status), `the mix expects ${status}`)
        assert.isTrue(
          result.plan.some((p) => p.headers !== undefined),
          "the mix has keyed requests"
        )

        assert.strictEqual(result.errors, 0)
        assert.strictEqual(result.soak.errors, 0)
        assert.strictEqual(result.soak.unexpected, 0)
        assert.isAbove(result.soak.requests, 0)
        assert.isAbove(result.soak.statuses["200"] ?? 0, 0)
        assert.isAbove(result.soak.statuses["404"] ?? 0, 0)
        assert.isAbove(result.soak.statuses["422"] ?? 0, 0)

        assert.isAtLeast(result.samples.length, 3)
        for (const s of [result.start, result.end, ...result.samples]) {
          assert.isAbove(s.rssBytes, 0)
          assert.isAbove(s.cpuSeconds, 0)
          assert.isAbove(s.fds, 0)
          assert.isAbove(s.tcp.postgres, 0, "the server holds Postgres connections")
          assert.isAbove(s.postgres, 0, "pg_stat_activity shows the server's backends")
        }
        assert.isAbove(Math.max(...result.samples.map((s) => s.tcp.http)), 0, "HTTP connections under load")
        assert.strictEqual(result.start.tcp.http, 0, "no HTTP connection left at rest")
        assert.strictEqual(result.end.tcp.http, 0, "no HTTP connection left at rest")

        const leaks = result.checks.filter((c) => c.name !== "RSS" && !c.pass)
        assert.deepStrictEqual(leaks, [])

        // Issue 15's figures: the idle server, the list reference in the same run, per-class latency, the targets.
        assert.isAbove(result.idle.rssBytes, 0)
        assert.isAbove(result.soakCpuSeconds, 0)
        assert.deepStrictEqual(
          result.classes.map((c) => c.name),
          ["list {type}", "questions (Enterprise)"],
          "the classes asked for, loaded alone"
        )
        const planned = classPlan(result.plan)
        assert.includeMembers(
          planned.map((c) => c.name),
          ["list {type}", "detail {type} by slug", "questions (Enterprise)", "404 unknown protocol"]
        )
        assert.strictEqual(
          planned.reduce((n, c) => n + c.requests.length, 0),
          result.plan.length,
          "every request in one class"
        )
        for (const c of result.classes) assert.isAbove(c.report.requests, 0, c.name)
        assert.isAbove(result.bodyBytes["list protocols"] ?? 0, 0, "the probe measures each body")
        assert.isAbove(result.reference.find((x) => x.name === ListReference)?.report.rps ?? 0, 0)
        const timed = Object.values(result.soak.byRequest).reduce((n, t) => n + t.latency.timed, 0)
        assert.isAbove(timed, 0, "the load generator times each request")
        assert.deepStrictEqual(
          result.targets.map((t) => t.name),
          ["mixed / list", "errors", "RSS after the soak / idle"]
        )
        for (const t of result.targets) assert.isDefined(t.value, `${t.name} is measured`)
        const report = formatResult(result)
        for (const printed of [
          /server RSS: [\d.]+ MiB idle \(started, before any load\), [\d.]+ MiB at rest after warm-up, [\d.]+ MiB at rest after the soak, [\d.]+ MiB 8 s later/,
          /reference \(read benchmark's routes/,
          /GET \/api\/v1\/protocols\?limit=50 +[\d,]+ req\/s/,
          /route classes of the soak/,
          /^ {4}detail \{type\} by slug +[\d.]+% +[\d.]+% +[\d.]+ ms +\d+ ms +[\d,]+ B$/m,
          /route classes alone \(\d+ s each at 4 connections\), by the server's CPU per response \(the list reference: [\d,]+ µs\)/,
          /^ {4}questions \(Enterprise\) +[\d.]+% +[\d,]+ +[\d,]+ µs +[\d.]+ +0$/m,
          /targets, from this run:/,
          /^ {2}(PASS|FAIL) {2}mixed \/ list: \d+ % \(mixed [\d,]+ req\/s over the anonymous list's [\d,]+ req\/s; at least 60 %\); server CPU per response: mixed [\d,]+ µs, list [\d,]+ µs \(\d+ % on CPU alone\)$/m,
          /^ {2}PASS {2}errors: 0 over every load of the run \(exactly 0\)$/m,
          /^ {2}(PASS|FAIL) {2}RSS after the soak \/ idle: [\d.]+x \([\d.]+ MiB 8 s after the soak over [\d.]+ MiB idle; [\d.]+ MiB at once; at most 1.5x\)$/m,
          /^\d of 3 targets pass$/m
        ])
          assert.match(report, printed)
      }),
    180_000
  )

  it("soak verdict: one error, descriptor or connection growth beyond tolerance, or RSS growth over 20% fails the run", () => {
    assert.deepStrictEqual(failed(0, rest), [])
    assert.deepStrictEqual(failed(0, { ...rest, rssBytes: rest.rssBytes * 1.19, fds: 35 }), [])
    assert.deepStrictEqual(failed(1, rest), ["errors"])
    assert.deepStrictEqual(failed(0, { ...rest, rssBytes: rest.rssBytes * 1.21 }), ["RSS"])
    assert.deepStrictEqual(failed(0, { ...rest, fds: 36 }), ["file descriptors"])
    assert.deepStrictEqual(failed(0, { ...rest, tcp: { http: 3, postgres: 10, other: 0 } }), [
      "TCP connections"
    ])
    assert.deepStrictEqual(failed(0, { ...rest, postgres: 14 }), ["Postgres connections"])
    assert.deepStrictEqual(failed(0, rest, [underLoad(11), underLoad(14)]), ["Postgres connections"])
  })

  it("soak targets: mixed at 60 % of the list or more, 0 errors, RSS after the soak at most 1.5x idle; unmeasured fails", () => {
    const at = (rps: number) => ({ report: { rps, requests: rps } as LoadReport, cpuSeconds: 1 })
    const passing = (errors: number, mixed: number, list: Measured | undefined, rss: number) =>
      targetsOf({
        errors,
        mixed: at(mixed),
        list,
        idle: rest,
        end: rest,
        settled: { ...rest, rssBytes: rest.rssBytes * rss }
      })
        .filter((t) => !t.pass)
        .map((t) => t.name)
    assert.deepStrictEqual(passing(0, 600, at(1000), 1.5), [])
    const [mixed] = targetsOf({
      errors: 0,
      mixed: at(600),
      list: at(1000),
      idle: rest,
      end: rest,
      settled: rest
    })
    assert.strictEqual(mixed?.value, 0.6)
    assert.match(
      mixed?.detail ?? "",
      /server CPU per response: mixed 1,667 µs, list 1,000 µs \(60 % on CPU alone\)$/
    )
    assert.deepStrictEqual(passing(0, 599, at(1000), 1.5), ["mixed / list"])
    assert.deepStrictEqual(passing(0, 600, undefined, 1), ["mixed / list"])
    assert.deepStrictEqual(passing(1, 600, at(1000), 1), ["errors"])
    assert.deepStrictEqual(passing(0, 600, at(1000), 1.51), ["RSS after the soak / idle"])
    // The settled RSS is the one held to the target; the RSS at once is printed beside it.
    const rss = targetsOf({
      errors: 0,
      mixed: at(600),
      list: at(1000),
      idle: rest,
      end: { ...rest, rssBytes: rest.rssBytes * 2 },
      settled: { ...rest, rssBytes: rest.rssBytes * 1.2 }
    })[2]
    assert.strictEqual(rss?.pass, true)
    assert.match(
      rss?.detail ?? "",
      /^1\.20x \([\d.]+ MiB 8 s after the soak over [\d.]+ MiB idle; [\d.]+ MiB at once; at most 1\.5x\)$/
    )
  })

  it("soak route classes: request names grouped without their entity type, ordered by their share of the waiting", () => {
    assert.strictEqual(classOf("detail protocols by slug"), "detail {type} by slug")
    assert.strictEqual(classOf("list organisations search"), "list {type} search")
    assert.strictEqual(classOf("questions (Enterprise)"), "questions (Enterprise)")
    const tally = (responses: number, totalMs: number, p99: number) => ({
      responses,
      unexpected: {},
      latency: { timed: responses, totalMs, p50: 1, p99, max: p99 }
    })
    const classes = classesOf(
      {
        "detail protocols by slug": tally(10, 10, 2),
        "detail chains by slug": tally(10, 30, 5),
        "questions (Enterprise)": tally(5, 60, 20)
      },
      { "detail protocols by slug": 1000, "detail chains by slug": 3000 }
    )
    assert.deepStrictEqual(classes, [
      { name: "questions (Enterprise)", responses: 5, meanMs: 12, p99: 20, timeShare: 0.6, bytes: 0 },
      { name: "detail {type} by slug", responses: 20, meanMs: 2, p99: 5, timeShare: 0.4, bytes: 2000 }
    ])
  })

  it("soak verdict: the Postgres pool growing back to what the warm-up needed is not a leak", () => {
    const fewer: Snapshot = {
      ...rest,
      fds: rest.fds - 6,
      tcp: { http: 0, postgres: 4, other: 0 },
      postgres: 5
    }
    assert.deepStrictEqual(
      checksOf({ errors: 0, start: fewer, end: rest, warmup: [underLoad(11)], soak: [underLoad(11)] })
        .filter((c) => !c.pass)
        .map((c) => c.name),
      []
    )
  })
})
