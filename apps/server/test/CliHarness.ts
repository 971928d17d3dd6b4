/**
 * Runs the `ratings` command line for the tests, and collects its output.
 *
 * `runCli` runs it in this process (`runRatings` of InProcessCli.ts: the very
 * commands and layers of the real program, reading the environment a child
 * process would get, its output captured, its exit code returned), which
 * spares a Node start and a load of the module graph per call. `spawnCli`
 * and `startCli` run the real `ratings` process (apps/server/src/main.ts),
 * for what needs one: a server, signals, a kill, standard input, a crash's
 * exit code, the data folder's lock between processes, and the process entry
 * itself (each CLI test file runs some commands both ways and compares).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { assert } from "@effect/vitest"
import { onTestFailed } from "vitest"

export const MainScript = join(import.meta.dirname, "..", "src", "main.ts")

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment of a `ratings` process started by a test: the test's, without its DATABASE_URL, plus `env` (undefined unsets). */
export const cliEnv = (env: Record<string, string | undefined>): NodeJS.ProcessEnv => {
  const merged: NodeJS.ProcessEnv = { ...process.env }
  delete merged.DATABASE_URL
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k]
    else merged[k] = v
  }
  return merged
}

/** `ratings <args>` run in this process, with the environment `cliEnv(env)`. */
export const runCli = async (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): Promise<CliResult> => {
  // Loaded on first use: a test file that only starts processes does not load the command line here.
  const { runRatings } = await import("./InProcessCli.ts")
  let stdout = ""
  let stderr = ""
  const code = await runRatings(args, {
    env: cliEnv(env),
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    }
  })
  return { code, stdout, stderr }
}

/** `ratings <args>` in a child process (the real binary), once it has exited. */
export const spawnCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MainScript, ...args], { env: cliEnv(env) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** What may differ between two runs of one command: the clock and the fiber number of a logged line. */
const comparable = (r: CliResult) => {
  const mask = (text: string) =>
    text.replace(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] ([A-Z]+) \(#\d+\)/gm, "[time] $1 (#fiber)")
  return { code: r.code, stdout: mask(r.stdout), stderr: mask(r.stderr) }
}

/**
 * `ratings <args>` run by the real binary, then in this process: asserts
 * that both exit with the same code and print the same text (a logged line's
 * time and fiber number aside), and gives the binary's result. For commands
 * whose second run prints what the first did (reads, refusals, re-imports).
 */
export const runCliBothWays = async (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): Promise<CliResult> => {
  const spawned = await spawnCli(args, env)
  const inProcess = await runCli(args, env)
  assert.deepStrictEqual(
    comparable(inProcess),
    comparable(spawned),
    `ratings ${args.join(" ")}: in this process as in its own`
  )
  return spawned
}

/**
 * A `ratings` process running beside the test. Its output is kept, not
 * printed; when the test that started it fails, the output is printed after
 * the failure (a process started by a suite's set-up shows its output in the
 * failure of a wait on it).
 */
export const startCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): ChildProcess => {
  const child = spawn(process.execPath, [MainScript, ...args], {
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  printedIfTheTestFails(child, args)
  return child
}

/** The most of a child's output printed when its test fails: its end, where the failure usually is. */
const MaxPrinted = 20_000

const printedIfTheTestFails = (child: ChildProcess, args: ReadonlyArray<string>) => {
  const transcript = transcriptOf(child)
  try {
    onTestFailed(() => {
      const text = transcript.text
      const shown = text.length > MaxPrinted ? `...${text.slice(-MaxPrinted)}` : text
      console.error(`output of \`ratings ${args.join(" ")}\` (pid ${child.pid}):\n${shown}`)
    })
  } catch {
    // Not inside a test (a suite's beforeAll): there is no test to attach it to.
  }
}

/** Resolves when the child prints a line matching `pattern` (fails if it exits first or after `timeoutMs`). */
/**
 * What a child has printed, kept from the first wait on it, and how far earlier
 * waits have read. Successive waits find successive lines, including lines that
 * arrived in the same chunk as an earlier wait's (which a fresh listener per
 * wait would miss, and then wait out its time-out).
 */
interface Transcript {
  text: string
  consumed: number
  readonly listeners: Set<() => void>
}
const transcripts = new WeakMap<ChildProcess, Transcript>()

const transcriptOf = (child: ChildProcess): Transcript => {
  const known = transcripts.get(child)
  if (known !== undefined) return known
  const transcript: Transcript = { text: "", consumed: 0, listeners: new Set() }
  const onData = (d: Buffer) => {
    transcript.text += d.toString()
    for (const listener of transcript.listeners) listener()
  }
  child.stdout?.on("data", onData)
  child.stderr?.on("data", onData)
  transcripts.set(child, transcript)
  return transcript
}

export const waitForOutput = (child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const transcript = transcriptOf(child)
    const unread = () => transcript.text.slice(transcript.consumed)
    const timer = setTimeout(
      () => finish(new Error(`no output matching ${pattern} within ${timeoutMs} ms:\n${unread()}`)),
      timeoutMs
    )
    const check = () => {
      const m = pattern.exec(unread())
      if (m === null) return
      transcript.consumed += m.index + m[0].length
      finish(undefined, m[0])
    }
    const onExit = (code: number | null) => {
      check()
      finish(new Error(`exited with ${code} before ${pattern}:\n${unread()}`))
    }
    let done = false
    const finish = (error: Error | undefined, value?: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      transcript.listeners.delete(check)
      child.off("exit", onExit)
      if (error !== undefined) reject(error)
      else resolve(value!)
    }
    transcript.listeners.add(check)
    child.on("exit", onExit)
    check()
  })

export const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.on("exit", (code) => resolve(code))
  })

/** A fresh, empty database on the test server (DATABASE_URL, or the embedded one of the run); `drop` removes it. */
export const scratchDatabase = async (): Promise<{
  readonly url: string
  readonly drop: () => Promise<void>
}> => {
  const pg = (await import("pg")).default
  const server = process.env.DATABASE_URL ?? process.env.RATINGS_TEST_PG_URL
  if (server === undefined)
    throw new Error("no test Postgres (DATABASE_URL or the global setup's embedded server)")
  const at = (db: string) => {
    const u = new URL(server)
    u.pathname = `/${db}`
    return u.toString()
  }
  const name = `ratings_cli_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`
  const admin = new pg.Client({ connectionString: at("postgres") })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return {
    url: at(name),
    drop: async () => {
      const c = new pg.Client({ connectionString: at("postgres") })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}
