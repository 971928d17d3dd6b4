/**
 * Keeps the soak benchmark (bench/soak.bench.ts) from rotting: its whole run
 * (fresh database, demo import, keys, the real server and autocannon as child
 * processes, the probe of every planned status, the measurements) for ten
 * seconds at low concurrency, and its verdict against figures that must fail.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { checksOf, type Snapshot, soak } from "../soak.bench.ts"

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
            reference: 0,
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
