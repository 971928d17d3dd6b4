/**
 * Keeps the stack benchmark (bench/stack.bench.ts) from rotting: its whole
 * run (node:http, Fastify, Effect's HttpApi and our server without the cache
 * as child processes, the load generator, the CPU time per response) at one
 * second per run; its options and its arithmetic.
 */
import { assert, describe, it } from "@effect/vitest"
import { cpuTimeOf, median, parseStackOptions, StackNames, StackRoutes, stackBench } from "../stack.bench.ts"

const serverUrl = (): string => {
  const url = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (url === undefined) throw new Error("no DATABASE_URL and no embedded test server (vitest global setup)")
  return url
}

describe("stack benchmark", () => {
  it("stack bench: every stack answers its routes under load with 0 errors, each figure the median of its rounds with the server's CPU time per response, and the report sets Effect's HttpApi and ours against Fastify", async () => {
    const options = parseStackOptions({ DURATION: "1", WARMUP: "0", ROUNDS: "2", CONNECTIONS: "4" })
    const result = await stackBench(serverUrl(), options, () => {})
    assert.deepStrictEqual(result.broken, [])
    for (const route of StackRoutes)
      for (const stack of route.stacks) {
        const row = result.rows.find((r) => r.route === route.name && r.stack === stack)
        assert.isDefined(row, `${route.name} on ${stack}`)
        assert.strictEqual(row!.runs.length, 2, "one run a round")
        assert.isAbove(row!.rps, 0)
        if (process.platform === "linux")
          assert.isAbove(row!.cpuMicros ?? 0, 0, `${route.name} on ${stack}: CPU`)
      }
    assert.strictEqual(
      result.rows.length,
      StackRoutes.reduce((n, r) => n + r.stacks.length, 0)
    )
    const report = result.report.join("\n")
    assert.match(report, /^machine: /m)
    assert.match(report, /\| health \| effect httpapi \| [\d,]+ \| [\d,]+ µs \| \d+\.\d\dx \|/)
    assert.match(report, /\| list of 50 \| fastify \| [\d,]+ \| [\d,]+ µs \| 1\.00x \|/)
    assert.match(
      report,
      /the stack's own cost of a request \(\/health\): Effect's HttpApi [\d,]+ µs against Fastify's/
    )
    assert.notInclude(report, "BROKEN")
  }, 300_000)

  it("stack bench options: defaults, and an invalid value names its option", () => {
    const d = parseStackOptions({ LOADGEN: "autocannon" })
    assert.deepStrictEqual([d.duration, d.warmup, d.rounds, d.connections], [5, 2, 3, 32])
    for (const [env, says] of [
      [{ DURATION: "0" }, /DURATION must be a whole number >= 1, got 0/],
      [{ ROUNDS: "x" }, /ROUNDS must be a whole number >= 1, got x/],
      [{ CONNECTIONS: "1" }, /CONNECTIONS must be a whole number >= 2/],
      [{ LOADGEN: "ab" }, /LOADGEN must be wrk or autocannon/]
    ] as const)
      assert.throws(() => parseStackOptions({ LOADGEN: "autocannon", ...env }), says)
    assert.deepStrictEqual([...StackRoutes[0].stacks], [...StackNames])
  })

  it("stack bench arithmetic: the median of the rounds, and a process's CPU time that grows with its work", () => {
    assert.strictEqual(median([3, 1, 2]), 2)
    assert.strictEqual(median([4, 1, 3, 2]), 2.5)
    if (process.platform !== "linux") return
    // Work until the kernel's clock ticks (a busy machine may not run us for a while), for at most 5 s.
    const before = cpuTimeOf(process.pid)!
    const until = Date.now() + 5_000
    let spin = 0
    do for (let i = 0; i < 100_000; i++) spin++
    while (Date.now() < until && cpuTimeOf(process.pid)! <= before)
    assert.isAbove(spin, 0)
    assert.isAbove(cpuTimeOf(process.pid)!, before)
    assert.isUndefined(cpuTimeOf(2 ** 30), "no such process")
  })
})
