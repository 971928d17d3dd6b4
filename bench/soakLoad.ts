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
 * line (LoadReport).
 *
 *   echo '{"url":"http://127.0.0.1:8080","connections":32,"seconds":10,"requests":[...]}' | node bench/soakLoad.ts
 */
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
  /** Per request name: responses, and the unexpected statuses seen with their counts. */
  readonly byRequest: Readonly<
    Record<string, { readonly responses: number; readonly unexpected: Readonly<Record<string, number>> }>
  >
}

interface AutocannonRequest {
  readonly method: "GET"
  readonly path: string
  readonly headers: Record<string, string>
  readonly onResponse: (status: number) => void
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

export const runLoad = async (plan: LoadPlan): Promise<LoadReport> => {
  const byRequest: Record<string, { responses: number; unexpected: Record<string, number> }> = {}
  let unexpected = 0
  const perSecond: Array<number> = []
  const began = Date.now()
  const requests = plan.requests.map((r): AutocannonRequest => {
    const tally = byRequest[r.name] ?? { responses: 0, unexpected: {} }
    byRequest[r.name] = tally
    return {
      method: "GET",
      path: r.path,
      headers: { accept: "application/json", ...r.headers },
      onResponse: (status) => {
        const second = Math.floor((Date.now() - began) / 1000)
        perSecond[second] = (perSecond[second] ?? 0) + 1
        tally.responses++
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
    byRequest
  }
}

const readStdin = async (): Promise<string> => {
  let text = ""
  for await (const chunk of process.stdin) text += chunk
  return text
}

if (import.meta.main) {
  readStdin()
    .then((text) => runLoad(JSON.parse(text) as LoadPlan))
    .then(
      (report) => process.stdout.write(`${JSON.stringify(report)}\n`),
      (e) => {
        console.error(e)
        process.exitCode = 1
      }
    )
}
