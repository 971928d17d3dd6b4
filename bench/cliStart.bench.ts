/**
 * CLI start benchmark: how long `ratings` takes to answer, beside `node -e 0`
 * (the floor: starting Node itself) in the same run. Times, as separate
 * processes of the Node running the bench, `ratings --help`, an argument
 * error (`ratings publish protocols ...`) and `ratings keys create` against a
 * fresh database (DATABASE_URL's server, or an embedded one); each figure is
 * the median of RUNS runs after one untimed run (which migrates the database
 * and fills Node's compile cache). Targets: help and errors 0.3 s, keys
 * create 1 s. A FAIL is a finding (exit 0); a wrong exit code or output is a
 * broken run (exit 1). Beside each wall time, the CPU time the process used
 * (a preloaded one-line module records it as the process exits): on a busy
 * machine the wall time is mostly waiting for a core, the CPU time is not.
 *
 *   npm run bench:cli                (RUNS=11 to change)
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { machineLine, postgresVersion, reportMain, wholeOption, withScratchDatabase } from "./harness.ts"

const MainScript = join(import.meta.dirname, "..", "apps", "server", "src", "main.ts")

export interface CliStartOptions {
  readonly runs: number
  readonly keep: boolean
}

export const parseCliStartOptions = (env: NodeJS.ProcessEnv): CliStartOptions => ({
  runs: wholeOption(env, "RUNS", 11, 1),
  keep: env.KEEP === "1"
})

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /** The target in seconds; none for the floor. */
  readonly target?: number
  /** What the run must exit with and print, or it is broken. */
  readonly expect: { readonly code: number; readonly output: RegExp }
}

export const cases = (script: string): ReadonlyArray<Case> => [
  { name: "node -e 0", args: ["-e", "0"], expect: { code: 0, output: /^$/ } },
  {
    name: "ratings --help",
    args: [script, "--help"],
    target: 0.3,
    expect: { code: 0, output: /^DESCRIPTION\n/ }
  },
  {
    name: "ratings publish protocols (error)",
    args: [script, "publish", "protocols", "aave-v4", "--reasoning", "bench"],
    target: 0.3,
    expect: { code: 1, output: /^error: Invalid value for argument <entity-type>/ }
  },
  {
    name: "ratings keys create",
    args: [script, "keys", "create", "--tier", "free", "--name", "cli start bench"],
    target: 1,
    expect: { code: 0, output: /^rk_\S+\n/ }
  }
]

/** Preloaded into every timed process: writes its CPU time (µs) to the file CLI_START_CPU_FILE names. */
const CpuRecorder =
  "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>{" +
  "const u=process.cpuUsage();writeFileSync(process.env.CLI_START_CPU_FILE,String(u.user+u.system))})"

/** One process: its wall and CPU time in seconds, exit code and output (stdout, then stderr). */
const timeProcess = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, cpuFile: string) =>
  new Promise<{ seconds: number; cpu: number; code: number | null; output: string }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ["--import", CpuRecorder, ...args], {
      env: { ...env, CLI_START_CPU_FILE: cpuFile }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      const cpu = Number(readFileSync(cpuFile, "utf8")) / 1e6
      rmSync(cpuFile, { force: true })
      resolve({ seconds, cpu, code, output: stdout + stderr })
    })
  })

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export interface CliStartRow {
  readonly name: string
  readonly runs: ReadonlyArray<number>
  readonly median: number
  /** The median CPU time (user and system) of the runs. */
  readonly cpu: number
  readonly target: number | undefined
  readonly pass: boolean | undefined
}

const seconds = (s: number) => `${s.toFixed(3)} s`

/** The table: one row a case, its median and fastest run, its target and verdict. */
export const formatReport = (rows: ReadonlyArray<CliStartRow>, runs: number): ReadonlyArray<string> => [
  `| command (median of ${runs}) | median | fastest | CPU | target | verdict |`,
  "| --- | ---: | ---: | ---: | ---: | --- |",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${seconds(r.median)} | ${seconds(Math.min(...r.runs))} | ${seconds(r.cpu)} | ` +
      `${r.target === undefined ? "-" : seconds(r.target)} | ${r.pass === undefined ? "floor" : r.pass ? "PASS" : "FAIL"} |`
  )
]

export const cliStartBench = async (serverUrl: string, options: CliStartOptions) =>
  withScratchDatabase(serverUrl, "bench_cli_start", options.keep, async (db) => {
    // The workspace's packages from source, as `npm run` gives every process (.npmrc node-options).
    const conditions = "--conditions=@ratings/source"
    const nodeOptions = process.env.NODE_OPTIONS ?? ""
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.url,
      NODE_OPTIONS: nodeOptions.includes(conditions) ? nodeOptions : `${nodeOptions} ${conditions}`.trim()
    }
    const rows: Array<CliStartRow> = []
    const broken: Array<string> = []
    const cpuFile = join(mkdtempSync(join(tmpdir(), "cli-start-")), "cpu")
    for (const c of cases(MainScript)) {
      const runs: Array<number> = []
      const cpu: Array<number> = []
      for (let i = 0; i <= options.runs; i++) {
        const r = await timeProcess(c.args, env, cpuFile)
        if (r.code !== c.expect.code || !c.expect.output.test(r.output))
          broken.push(`${c.name}: exit ${r.code}, output ${JSON.stringify(r.output.slice(0, 300))}`)
        if (i > 0) {
          runs.push(r.seconds)
          cpu.push(r.cpu)
        }
      }
      const m = median(runs)
      const pass = c.target === undefined ? undefined : m <= c.target
      rows.push({ name: c.name, runs, median: m, cpu: median(cpu), target: c.target, pass })
    }
    rmSync(dirname(cpuFile), { recursive: true, force: true })
    const report = [
      `cli start benchmark: ${process.execPath}`,
      machineLine(await postgresVersion(serverUrl)),
      ...formatReport(rows, options.runs),
      ...broken.map((b) => `BROKEN ${b}`)
    ]
    return { rows, report, broken }
  })

if (import.meta.main) reportMain(parseCliStartOptions, cliStartBench)
