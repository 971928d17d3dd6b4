/**
 * Soak benchmark load generator, a child process of bench/soak.bench.ts so
 * that the orchestrator's own work (sampling /proc, querying Postgres) never
 * slows the load. It drives autocannon's programmatic API, the only one that
 * takes a list of requests: every connection loops over the plan in order,
 * so the mix of routes is exactly the plan's. Each request carries the
 * status it must answer (a 404 or 422 can be the right answer); a response
 * with any other status is counted as unexpected, per request, beside
 * autocannon's socket errors and timeouts.
 *
 * Reads the plan (LoadPlan, JSON) on stdin, not as an argument, so that the
 * API keys of its requests never show in the process list; prints one JSON
 * line (LoadReport). Given a ClassesPlan instead, loads each class of
 * requests alone in turn and prints their reports with the server's CPU time
 * over each.
 *
 *   echo '{"url":"http://127.0.0.1:8080","connections":32,"seconds":10,"requests":[...]}' | node bench/soakLoad.ts
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

/** One request of the mix: its path (with query), headers, and the status it must answer. */
export interface PlannedRequest {
  readonly name: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly expect: number
}

export interface LoadPlan {
  readonly url: string
  readonly connections: number
  readonly seconds: number
  readonly requests: ReadonlyArray<PlannedRequest>
}

export interface LoadReport {
  readonly connections: number
  /** Wall-clock seconds autocannon measured. */
  readonly seconds: number
  /** Responses received. */
  readonly requests: number
  readonly rps: number
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  /** Socket errors, timeouts included (autocannon counts a timeout as an error too). */
  readonly errors: number
  readonly timeouts: number
  /** Responses whose status was not the one their request expects. */
  readonly unexpected: number
  /** Per status code, how many responses. */
  readonly statuses: Readonly<Record<string, number>>
  /** Responses in each second of the run, from its start: throughput that drifts shows here. */
  readonly perSecond: ReadonlyArray<number>
  /** Per request name: responses, the unexpected statuses seen with their counts, and latency. */
  readonly byRequest: Readonly<Record<string, RequestTally>>
}

/** One request name's share of a run. */
export interface RequestTally {
  readonly responses: number
  readonly unexpected: Readonly<Record<string, number>>
  /**
   * Latency in ms, from the request being built, just before it is written,
   * to its response (a connection's very first request, built with the
   * connection, includes the connect). `totalMs` is what a connection spent waiting
   * on this request over the run: with every connection looping over the plan,
   * a name's share of the total is its share of the mix's time.
   */
  readonly latency: {
    readonly timed: number
    readonly totalMs: number
    readonly p50: number
    readonly p99: number
    readonly max: number
  }
}

/** Per connection, autocannon's context object: where a request's sending time waits for its response. */
interface Context {
  sentAt?: number | undefined
}

interface AutocannonRequest {
  readonly method: "GET"
  readonly path: string
  readonly headers: Record<string, string>
  readonly setupRequest: <R>(request: R, context: Context) => R
  readonly onResponse: (status: number, body: unknown, context: Context) => void
}

interface AutocannonResult {
  readonly start: string
  readonly finish: string
  readonly duration: number
  readonly errors: number
  readonly timeouts: number
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly requests: { readonly total: number }
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>
}

type Autocannon = (options: {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly requests: ReadonlyArray<AutocannonRequest>
}) => Promise<AutocannonResult>

// autocannon ships no types; its programmatic API is typed by the interfaces above.
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

interface Tally {
  responses: number
  readonly unexpected: Record<string, number>
  readonly latencies: Array<number>
}

/** The nearest-rank percentile of sorted values. */
const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const round = (ms: number) => Math.round(ms * 100) / 100

const reportOf = (t: Tally): RequestTally => {
  const sorted = [...t.latencies].sort((a, b) => a - b)
  return {
    responses: t.responses,
    unexpected: t.unexpected,
    latency: {
      timed: sorted.length,
      totalMs: round(sorted.reduce((n, l) => n + l, 0)),
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0)
    }
  }
}

export const runLoad = async (plan: LoadPlan): Promise<LoadReport> => {
  const tallies: Record<string, Tally> = {}
  let unexpected = 0
  const perSecond: Array<number> = []
  const began = Date.now()
  const requests = plan.requests.map((r): AutocannonRequest => {
    const tally = tallies[r.name] ?? { responses: 0, unexpected: {}, latencies: [] }
    tallies[r.name] = tally
    return {
      method: "GET",
      path: r.path,
      headers: { accept: "application/json", ...r.headers },
      // Called as the connection moves to this request, right before writing it (one request in flight per connection).
      setupRequest: (request, context) => {
        context.sentAt = performance.now()
        return request
      },
      onResponse: (status, _body, context) => {
        const second = Math.floor((Date.now() - began) / 1000)
        perSecond[second] = (perSecond[second] ?? 0) + 1
        tally.responses++
        if (context.sentAt !== undefined) tally.latencies.push(performance.now() - context.sentAt)
        context.sentAt = undefined
        if (status !== r.expect) {
          unexpected++
          tally.unexpected[status] = (tally.unexpected[status] ?? 0) + 1
        }
      }
    }
  })
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.seconds,
    requests
  })
  const seconds = (Date.parse(result.finish) - Date.parse(result.start)) / 1000 || result.duration
  const statuses: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count
  const responses = Object.values(statuses).reduce((n, c) => n + c, 0)
  return {
    connections: plan.connections,
    seconds,
    requests: responses,
    rps: responses / seconds,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max
    },
    errors: result.errors,
    timeouts: result.timeouts,
    unexpected,
    statuses,
    perSecond: Array.from(perSecond, (n) => n ?? 0),
    byRequest: Object.fromEntries(Object.entries(tallies).map(([name, t]) => [name, reportOf(t)]))
  }
}

/** User + system CPU time of a process: fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second on Linux). */
export const cpuOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Each class of requests loaded alone in turn, with the server's CPU time over each (one process for all: no start-up per class). */
export interface ClassesPlan {
  readonly url: string
  readonly connections: number
  readonly seconds: number
  readonly serverPid: number
  readonly classes: ReadonlyArray<{ readonly name: string; readonly requests: ReadonlyArray<PlannedRequest> }>
}

export interface ClassReport {
  readonly name: string
  readonly report: LoadReport
  readonly cpuSeconds: number
}

export const runClasses = async (plan: ClassesPlan): Promise<ReadonlyArray<ClassReport>> => {
  const reports: Array<ClassReport> = []
  for (const c of plan.classes) {
    const before = cpuOf(plan.serverPid)
    const report = await runLoad({
      url: plan.url,
      connections: plan.connections,
      seconds: plan.seconds,
      requests: c.requests
    })
    reports.push({ name: c.name, report, cpuSeconds: cpuOf(plan.serverPid) - before })
  }
  return reports
}

const readStdin = async (): Promise<string> => {
  let text = ""
  for await (const chunk of process.stdin) text += chunk
  return text
}

if (import.meta.main) {
  readStdin()
    .then((text): Promise<LoadReport | ReadonlyArray<ClassReport>> => {
      const plan = JSON.parse(text) as LoadPlan | ClassesPlan
      return "classes" in plan ? runClasses(plan) : runLoad(plan)
    })
    .then(
      (report) => process.stdout.write(`${JSON.stringify(report)}\n`),
      (e) => {
        console.error(e)
        process.exitCode = 1
      }
    )
}
