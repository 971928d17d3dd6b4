/**
 * One data folder, one owner: the process that runs its embedded Postgres
 * holds `<dataDir>/server.lock` (its pid, command line and start time,
 * created atomically) for as long as that Postgres runs, and removes it when
 * it stops. A second process that would start or adopt that Postgres is
 * refused with the owner's pid. A lock whose pid is gone (a `kill -9`, a
 * crash, a container restart) is stale and taken over.
 */
import { linkSync, mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { isAlive } from "./EmbeddedPostgres.ts"
import { Effect, Schema, type Scope } from "effect"

export class DataDirInUseError extends Schema.TaggedError<DataDirInUseError>()("DataDirInUseError", {
  message: Schema.String
}) {}

/** What the lock file holds. */
export interface LockOwner {
  readonly pid: number
  readonly command: string
  readonly started: string
  /** The owner's executable: a live pid running another program is a recycled pid, so the lock is stale. */
  readonly exec: string
}

export const lockFile = (dataDir: string): string => join(dataDir, "server.lock")

const readOwner = (file: string): LockOwner | undefined => {
  try {
    const owner = JSON.parse(readFileSync(file, "utf8")) as LockOwner
    return Number.isInteger(owner.pid) ? owner : undefined
  } catch {
    return undefined
  }
}

/** Whether the recorded owner still runs: its pid is alive, not ours, and (on Linux) runs the same executable. */
const ownerRuns = (owner: LockOwner): boolean => {
  if (owner.pid === process.pid || !isAlive(owner.pid)) return false
  try {
    return realpathSync(`/proc/${owner.pid}/exe`) === owner.exec
  } catch {
    return true
  }
}

/** The live owner of the data folder, if any (the lock of a dead process does not count). */
export const currentOwner = (dataDir: string): LockOwner | undefined => {
  const owner = readOwner(lockFile(dataDir))
  return owner !== undefined && ownerRuns(owner) ? owner : undefined
}

/** Writes the lock only if no file is there (link is atomic: a reader never sees half a lock). */
const tryCreate = (file: string, owner: LockOwner): boolean => {
  const temp = `${file}.${process.pid}`
  writeFileSync(temp, `${JSON.stringify(owner)}\n`, { mode: 0o600 })
  try {
    linkSync(temp, file)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  } finally {
    unlinkSync(temp)
  }
}

const describe = (dataDir: string, owner: LockOwner): string =>
  `the data folder ${resolve(dataDir)} is in use by pid ${owner.pid} (\`${owner.command}\`, since ${owner.started}), ` +
  `which runs its embedded Postgres. One data folder has one server: stop that process first, or give this ` +
  `one its own RATINGS_DATA_DIR (or a DATABASE_URL)`

/**
 * Takes the data folder for this process until the scope closes; fails,
 * naming the folder and the owner's pid, when a live process holds it. A
 * stale lock is reported through `onNotice` and replaced.
 */
export const acquire = (
  dataDir: string,
  onNotice: (line: string) => Effect.Effect<void>
): Effect.Effect<void, DataDirInUseError, Scope.Scope> => {
  const file = lockFile(dataDir)
  const me: LockOwner = {
    pid: process.pid,
    command: ["ratings", ...process.argv.slice(2)].join(" "),
    started: new Date().toISOString(),
    exec: realpathSync(process.execPath)
  }
  const take = Effect.gen(function* () {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    for (let attempt = 0; attempt < 2; attempt++) {
      if (tryCreate(file, me)) return
      const owner = readOwner(file)
      if (owner !== undefined && ownerRuns(owner))
        return yield* new DataDirInUseError({ message: describe(dataDir, owner) })
      yield* onNotice(
        `taking over ${resolve(dataDir)}: its lock was left by pid ${owner?.pid ?? "?"}, which is no longer running`
      )
      unlinkSync(file)
    }
    return yield* new DataDirInUseError({
      message: `could not take the lock ${resolve(file)}: another process raced for it`
    })
  })
  return Effect.acquireRelease(
    take.pipe(
      Effect.catchDefect((e) =>
        Effect.fail(
          new DataDirInUseError({ message: `could not take the lock ${resolve(file)}: ${String(e)}` })
        )
      )
    ),
    () =>
      Effect.sync(() => {
        try {
          if (readOwner(file)?.pid === process.pid) unlinkSync(file)
        } catch {
          // already gone: nothing to release
        }
      })
  )
}
