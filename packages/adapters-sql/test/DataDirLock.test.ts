/**
 * The data folder's owner lock (DataDirLock.ts): a live owner refuses a
 * second one, naming the folder and its pid; a lock whose pid is gone, is
 * this process's own (a container restarted under the same pid) or now runs
 * another program (a recycled pid) is stale and taken over; the lock goes
 * when its scope closes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { acquire, type LockOwner, lockFile } from "../src/DataDirLock.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-lock-"))

const writeLock = (dataDir: string, owner: Partial<LockOwner> & { pid: number }) =>
  writeFileSync(
    lockFile(dataDir),
    JSON.stringify({
      command: "ratings serve",
      started: "2026-01-01T00:00:00.000Z",
      exec: realpathSync(process.execPath),
      ...owner
    })
  )

const running = (command: string, args: ReadonlyArray<string>): ChildProcess =>
  spawn(command, args, { stdio: "ignore" })

const quiet = () => Effect.void

describe("data folder lock", () => {
  it.live(
    "a live owner refuses a second one, naming the folder and its pid; the lock goes with its scope",
    () =>
      Effect.gen(function* () {
        const dataDir = folder()
        const other = running(process.execPath, ["-e", "setTimeout(() => {}, 60000)"])
        yield* Effect.addFinalizer(() => Effect.sync(() => other.kill()))
        writeLock(dataDir, { pid: other.pid! })
        const refused = yield* Effect.exit(Effect.scoped(acquire(dataDir, quiet)))
        assert.isTrue(Exit.isFailure(refused))
        const message = String(Exit.isFailure(refused) ? JSON.stringify(refused.cause) : "")
        assert.include(message, resolve(dataDir))
        assert.include(message, `pid ${other.pid}`)
        assert.strictEqual(
          JSON.parse(readFileSync(lockFile(dataDir), "utf8")).pid,
          other.pid,
          "left as it was"
        )
      })
  )

  it.live(
    "a lock whose pid is gone, is our own, or runs another program is stale: taken over, then released",
    () =>
      Effect.gen(function* () {
        const sleeper = running("sleep", ["60"])
        yield* Effect.addFinalizer(() => Effect.sync(() => sleeper.kill()))
        const exited = running(process.execPath, ["-e", "0"])
        yield* Effect.promise(() => new Promise((r) => exited.on("exit", r)))
        for (const pid of [exited.pid!, process.pid, sleeper.pid!]) {
          const dataDir = folder()
          writeLock(dataDir, { pid })
          const notices: Array<string> = []
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* acquire(dataDir, (line) => Effect.sync(() => notices.push(line)))
              assert.strictEqual(
                JSON.parse(readFileSync(lockFile(dataDir), "utf8")).pid,
                process.pid,
                `over ${pid}`
              )
            })
          )
          assert.include(notices.join("\n"), `pid ${pid}`)
          assert.isFalse(existsSync(lockFile(dataDir)), "released with the scope")
        }
      })
  )
})
