/**
 * Stack benchmark: what an HTTP stack alone costs per request, without a
 * database, measured as the server process's CPU time per response (user +
 * system, from /proc/<pid>/stat over the measured run) and as req/s, side
 * by side:
 *
 * - node:http, Fastify (the read bench's baseline stack) and Effect's
 *   HttpApi as the service builds it, each answering `GET /health` and a
 *   page of 50 list-shaped records held in memory (bench/stackServer.ts:
 *   no middleware, no database, the Effect bodies encoded by their
 *   contract's schemas without checks);
 * - ours: `GET /health` of the service as the read bench runs it without
 *   the response cache (bench/readServer.ts off, on a fresh database): the
 *   same Effect stack with the service's middleware (authentication, caller
 *   policies, CORS, access log, fallbacks).
 *
 * Each route is measured in ROUNDS rounds, every server once a round in a
 * rotating order, and each figure is the median of its rounds: the read
 * bench's "no cache / baseline" ratio is the two servers' CPU per request
 * with Postgres and the load generator on the same cores, so the stack's
 * own floor is the figure that says how close an uncached read can come.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:stack
 *   (without DATABASE_URL an embedded Postgres is started)
 *   DURATION=5 WARMUP=2 ROUNDS=3 CONNECTIONS=32 LOADGEN=wrk|autocannon
 */
import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { loadgenOption, machineLine, reportMain, wholeOption, withScratchDatabase } from "./harness.ts"
import { autocannonLoad, type Cell, type Server, startServer, stop, wrkLoad } from "./read.bench.ts"

const root = join(import.meta.dirname, "..")

export interface StackOptions {
  readonly duration: number
  readonly warmup: number
  readonly rounds: number
  readonly connections: number
  readonly loadgen: "wrk" | "autocannon"
}

/** The options from the environment; an invalid one throws, naming it. */
export const parseStackOptions = (env: NodeJS.ProcessEnv): StackOptions => {
  const loadgen = loadgenOption(env)
  return {
    duration: wholeOption(env, "DURATION", 5, 1),
    warmup: wholeOption(env, "WARMUP", 2, 0),
    rounds: wholeOption(env, "ROUNDS", 3, 1),
    connections: wholeOption(env, "CONNECTIONS", 32, 2),
    loadgen
  }
}

/** The stacks measured; `ours` answers /health only. */
export const StackNames = ["node:http", "fastify", "effect httpapi", "ours"] as const
export type StackName = (typeof StackNames)[number]

export const StackRoutes = [
  { name: "health", path: "/health", stacks: StackNames },
  { name: "list of 50", path: "/items", stacks: ["node:http", "fastify", "effect httpapi"] }
] as const satisfies ReadonlyArray<{
  readonly name: string
  readonly path: string
  readonly stacks: ReadonlyArray<StackName>
}>

/** A measured run: its rate and the server's CPU time per response (undefined where /proc is not). */
export interface StackCell extends Cell {
  readonly cpuMicros: number | undefined
}

export interface StackRow {
  readonly route: string
  readonly stack: StackName
  /** Each round's run. */
  readonly runs: ReadonlyArray<StackCell>
  /** Medians over the rounds. */
  readonly rps: number
  readonly cpuMicros: number | undefined
}

export interface StackResult {
  readonly rows: ReadonlyArray<StackRow>
  readonly broken: ReadonlyArray<string>
  readonly report: ReadonlyArray<string>
}

/** The process's CPU time (user + system) in microseconds, or undefined without /proc. */
export const cpuTimeOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces), closed by the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 here; in clock ticks of 100 Hz on Linux.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
  } catch {
    return undefined
  }
}

export const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

export const stackBench = async (
  serverUrl: string,
  options: StackOptions,
  log: (line: string) => void = (l) => console.error(l)
): Promise<StackResult> => {
  const began = Date.now()
  const work = join(root, ".tmp", `stack-bench-${process.pid}`)
  mkdirSync(work, { recursive: true, mode: 0o700 })
  try {
    return await withScratchDatabase(serverUrl, "bench_stack", false, async (db) => {
      const servers = new Map<StackName, Server>()
      try {
        servers.set("node:http", await startServer("node:http", "stackServer.ts", ["node"]))
        servers.set("fastify", await startServer("fastify", "stackServer.ts", ["fastify"]))
        servers.set("effect httpapi", await startServer("effect httpapi", "stackServer.ts", ["effect"]))
        servers.set("ours", await startServer("ours, uncached", "readServer.ts", [db.url, "off"]))
        const broken: Array<string> = []
        const rows: Array<StackRow> = []
        for (const route of StackRoutes) {
          const file = join(work, `${route.name.replaceAll(" ", "-")}.txt`)
          writeFileSync(file, `${route.path}\t\n`)
          const load = (server: Server, seconds: number) =>
            options.loadgen === "wrk"
              ? wrkLoad(server.baseUrl, file, options.connections, seconds)
              : autocannonLoad(
                  server.baseUrl,
                  [{ path: route.path, authorization: undefined }],
                  options.connections,
                  seconds
                )
          const runs = new Map<StackName, Array<StackCell>>(route.stacks.map((s) => [s, []]))
          for (const name of route.stacks) {
            const body = await fetch(`${servers.get(name)!.baseUrl}${route.path}`)
            const text = await body.text()
            if (body.status !== 200)
              throw new Error(`${name} answers ${body.status} to ${route.path}: ${text}`)
            if (options.warmup > 0) await load(servers.get(name)!, options.warmup)
          }
          for (let round = 0; round < options.rounds; round++) {
            // Every server once a round, the order rotated so that none is always first after another.
            const order = route.stacks.map((_, i) => route.stacks[(i + round) % route.stacks.length]!)
            for (const name of order) {
              const server = servers.get(name)!
              const pid = server.child.pid
              const before = pid === undefined ? undefined : cpuTimeOf(pid)
              const cell = await load(server, options.duration)
              const after = pid === undefined ? undefined : cpuTimeOf(pid)
              const responses = cell.rps * options.duration
              if (cell.errors + cell.non2xx > 0)
                broken.push(`${route.name} on ${name}: ${cell.errors} socket errors, ${cell.non2xx} non-2xx`)
              runs.get(name)!.push({
                ...cell,
                cpuMicros:
                  before === undefined || after === undefined || responses === 0
                    ? undefined
                    : (after - before) / responses
              })
            }
          }
          for (const name of route.stacks) {
            const cells = runs.get(name)!
            const cpus = cells.flatMap((c) => (c.cpuMicros === undefined ? [] : [c.cpuMicros]))
            rows.push({
              route: route.name,
              stack: name,
              runs: cells,
              rps: median(cells.map((c) => c.rps)),
              cpuMicros: cpus.length === cells.length ? median(cpus) : undefined
            })
          }
          log(
            `  ${route.name}: ${route.stacks.map((s) => `${s} ${fmt(rows.find((r) => r.route === route.name && r.stack === s)!.rps)}`).join(", ")} req/s`
          )
        }
        const of = (route: string, stack: StackName) =>
          rows.find((r) => r.route === route && r.stack === stack)
        const cpuText = (c: number | undefined) => (c === undefined ? "n/a" : `${fmt(c)} µs`)
        const report = [
          `stack benchmark: no database, ${options.duration} s per run after ${options.warmup} s warm-up, ` +
            `${options.rounds} rounds (medians), ${options.connections} connections, ` +
            (options.loadgen === "wrk" ? "wrk (1 thread)" : "autocannon fallback (2 workers)"),
          machineLine(),
          "",
          "| route | stack | req/s | CPU per response | CPU / Fastify's | each round: req/s (CPU µs) |",
          "| --- | --- | ---: | ---: | ---: | --- |",
          ...rows.map((r) => {
            const fastify = of(r.route, "fastify")?.cpuMicros
            const ratio =
              r.cpuMicros === undefined || fastify === undefined
                ? "n/a"
                : `${(r.cpuMicros / fastify).toFixed(2)}x`
            return `| ${r.route} | ${r.stack} | ${fmt(r.rps)} | ${cpuText(r.cpuMicros)} | ${ratio} | ${r.runs
              .map((c) => `${fmt(c.rps)} (${c.cpuMicros === undefined ? "n/a" : fmt(c.cpuMicros)})`)
              .join(", ")} |`
          }),
          "",
          ...(() => {
            const effect = of("health", "effect httpapi")?.cpuMicros
            const fastify = of("health", "fastify")?.cpuMicros
            const ours = of("health", "ours")?.cpuMicros
            if (effect === undefined || fastify === undefined || ours === undefined) return []
            return [
              `the stack's own cost of a request (/health): Effect's HttpApi ${cpuText(effect)} against Fastify's ` +
                `${cpuText(fastify)} (${fmt(effect - fastify)} µs more before any database or middleware); ours ` +
                `${cpuText(ours)}: the service's middleware adds ${fmt(ours - effect)} µs to the bare HttpApi`
            ]
          })(),
          `total time ${Math.round((Date.now() - began) / 1000)} s`,
          ...(broken.length === 0 ? [] : ["BROKEN RUN:", ...broken.map((b) => `  ${b}`)])
        ]
        return { rows, broken, report }
      } finally {
        await Promise.all([...servers.values()].map(stop))
      }
    })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) reportMain(parseStackOptions, stackBench)
