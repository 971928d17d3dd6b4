/**
 * The Redis the shared-limiter tests use (CI runs one), and whether it answers;
 * and a throwaway redis-server of a test's own, which the test may freeze,
 * thaw, kill and start again without disturbing the shared one.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createConnection, createServer } from "node:net"

export const RedisUrl = "redis://127.0.0.1:6379"

export const redisReachable = () =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: 6379 })
    const done = (up: boolean) => {
      socket.destroy()
      resolve(up)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

/** Whether `redis-server` can be run here (CI has it; a machine with embedded Postgres only may not). */
export const redisServerInstalled = (): boolean => {
  const probe = spawnSync("redis-server", ["--version"], { stdio: "ignore" })
  return probe.error === undefined && probe.status === 0
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Resolves once something answers a Redis PING on the port, within `timeoutMs`. */
const answersPing = (port: number, timeoutMs: number) =>
  new Promise<boolean>((resolve) => {
    const deadline = Date.now() + timeoutMs
    const attempt = () => {
      const socket = createConnection({ host: "127.0.0.1", port })
      const retry = () => {
        socket.destroy()
        if (Date.now() > deadline) resolve(false)
        else setTimeout(attempt, 25)
      }
      socket.once("error", retry)
      socket.once("connect", () => socket.write("PING\r\n"))
      socket.once("data", (data) => {
        socket.destroy()
        if (data.toString().startsWith("+PONG")) resolve(true)
        else retry()
      })
    }
    attempt()
  })

/** A redis-server of the test's own on a free port, without persistence. */
export interface ThrowawayRedis {
  readonly url: string
  /** SIGSTOP: its connections stay open and nothing answers (the nastiest outage). */
  readonly freeze: () => void
  /** SIGCONT after `freeze`. */
  readonly thaw: () => void
  /** SIGKILL: connections are refused; its data is gone. */
  readonly kill: () => Promise<void>
  /** A new redis-server on the same port after `kill` (empty). */
  readonly restart: () => Promise<void>
  /** Thaws and kills whatever runs; safe to call twice. */
  readonly stop: () => Promise<void>
}

/**
 * A redis-server under a shell that kills it as soon as its standard input
 * closes: when the test ends it, or when the test process dies in any way
 * (a frozen Redis is never left behind by a test that timed out).
 */
const spawnGuarded = (port: number) =>
  new Promise<{ readonly pid: number; readonly shell: ChildProcess }>((resolve, reject) => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    const shell = spawn(
      "sh",
      [
        "-c",
        'redis-server "$@" >/dev/null 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null',
        "sh",
        ...args
      ],
      { stdio: ["pipe", "pipe", "ignore"] }
    )
    shell.once("error", reject)
    shell.stdout!.once("data", (data: Buffer) => resolve({ pid: Number(data.toString().trim()), shell }))
  })

export const startThrowawayRedis = async (): Promise<ThrowawayRedis> => {
  const port = await freePort()
  let running: { readonly pid: number; readonly shell: ChildProcess } | undefined
  const signal = (name: NodeJS.Signals) => {
    if (running !== undefined) process.kill(running.pid, name)
  }
  const kill = async () => {
    const current = running
    running = undefined
    if (current === undefined) return
    process.kill(current.pid, "SIGCONT")
    process.kill(current.pid, "SIGKILL")
    const exited = new Promise<void>((resolve) => current.shell.once("exit", () => resolve()))
    current.shell.stdin!.end()
    await exited
  }
  const start = async () => {
    running = await spawnGuarded(port)
    if (!(await answersPing(port, 5_000))) {
      await kill()
      throw new Error(`the throwaway redis-server on port ${port} did not answer within 5 seconds`)
    }
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => signal("SIGSTOP"),
    thaw: () => signal("SIGCONT"),
    kill,
    restart: start,
    stop: kill
  }
}
