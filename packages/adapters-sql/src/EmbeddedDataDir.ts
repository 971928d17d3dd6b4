/**
 * The Postgres of a data folder: a DATABASE_URL when one is given, else the
 * embedded Postgres under the folder (its cluster in `<dataDir>/pg`, its
 * superuser's password in `<dataDir>/pg-password`, generated on first use,
 * mode 0600). One data folder has one owner (DataDirLock.ts): the process
 * that starts its embedded Postgres. A server always owns it; a command
 * connects to the Postgres running for the folder, and takes the folder only
 * when none runs.
 */
import { join, resolve } from "node:path"
import { Console, Effect, Option, Redacted, type Scope } from "effect"
import { acquire, type DataDirInUseError } from "./DataDirLock.ts"
import {
  type EmbeddedPostgresError,
  embeddedPassword,
  embeddedUrl,
  runningPostmaster,
  start,
  stopPostmaster
} from "./EmbeddedPostgres.ts"

const EMBEDDED_DB = "ratings"

const clusterDir = (dataDir: string): string => join(dataDir, "pg")

/** The superuser's password of the data folder (generated on first use, mode 0600). */
export const passwordFile = (dataDir: string): string => join(dataDir, "pg-password")

/**
 * Takes the folder, stops a Postgres its former owner left running (`kill
 * -9`), and starts ours, stopped when the scope closes; returns its URL. A
 * second server on the folder is refused, naming the owner's pid.
 */
export const startOwned = (
  dataDir: string,
  onNotice: (line: string) => Effect.Effect<void>,
  onLog?: (line: string) => void
): Effect.Effect<string, EmbeddedPostgresError | DataDirInUseError, Scope.Scope> =>
  Effect.gen(function* () {
    const pgDir = clusterDir(dataDir)
    yield* acquire(dataDir, onNotice)
    const orphan = runningPostmaster(pgDir)
    if (orphan !== undefined) {
      yield* onNotice(
        `stopping the embedded Postgres (pid ${orphan.pid}) of ${resolve(dataDir)}: the process that started it is gone`
      )
      yield* stopPostmaster(orphan)
    }
    const server = yield* start({
      dir: pgDir,
      persistent: true,
      database: EMBEDDED_DB,
      passwordFile: passwordFile(dataDir),
      onLog
    })
    return server.url
  })

/** The URL of the Postgres running for the folder (with the folder's password), if one runs. */
export const runningUrl = (dataDir: string): Effect.Effect<Option.Option<string>, EmbeddedPostgresError> =>
  Effect.gen(function* () {
    const running = runningPostmaster(clusterDir(dataDir))
    if (running === undefined) return Option.none()
    const password = yield* embeddedPassword(passwordFile(dataDir))
    return Option.some(embeddedUrl(running.port, EMBEDDED_DB, password))
  })

export interface DatabaseTarget {
  readonly url: string
  /** True when this process runs the embedded default (started here or found running). */
  readonly embedded: boolean
}

/** A server owns the embedded Postgres it uses; a command may use the one running for the folder. */
export type DatabaseRole = "serve" | "command"

const notice = (line: string) => Console.error(line)

export const resolveDatabase = (
  config: { readonly databaseUrl: Option.Option<Redacted.Redacted<string>>; readonly dataDir: string },
  role: DatabaseRole = "command",
  onLog?: (line: string) => void
): Effect.Effect<DatabaseTarget, EmbeddedPostgresError | DataDirInUseError, Scope.Scope> =>
  Effect.gen(function* () {
    if (Option.isSome(config.databaseUrl)) {
      return { url: Redacted.value(config.databaseUrl.value), embedded: false }
    }
    if (role === "command") {
      const running = yield* runningUrl(config.dataDir)
      if (Option.isSome(running)) return { url: running.value, embedded: true }
    }
    return { url: yield* startOwned(config.dataDir, notice, onLog), embedded: true }
  })
