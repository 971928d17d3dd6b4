/**
 * Runs the real `ratings` command line (apps/server/src/main.ts) in a child
 * process, as an operator would, and collects its output.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

export const MainScript = join(import.meta.dirname, "..", "src", "main.ts")

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const childEnv = (env: Record<string, string | undefined>): NodeJS.ProcessEnv => {
  const merged: NodeJS.ProcessEnv = { ...process.env }
  delete merged.DATABASE_URL
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k]
    else merged[k] = v
  }
  return merged
}

export const runCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MainScript, ...args], { env: childEnv(env) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

export const startCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): ChildProcess =>
  spawn(process.execPath, [MainScript, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })

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
