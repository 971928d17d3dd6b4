/**
 * Which Postgres the process uses: DATABASE_URL when set, else the embedded
 * Postgres under the data folder.
 *
 * One data folder has one owner (DataDirLock.ts): the process that starts its
 * embedded Postgres. A server (`ratings serve`) always owns it: a second
 * server on the same folder is refused, naming the owner's pid, and a
 * Postgres left running by an owner that is gone (`kill -9`) is stopped and
 * started again under the new owner, which stops it on shutdown. A CLI
 * command is not a server: it connects to the Postgres running for the
 * folder (with the folder's password file), and only when none runs does it
 * take the folder and start one for itself.
 */
import { join, resolve } from "node:path"
import {
  EmbeddedPostgresError,
  embeddedPassword,
  embeddedUrl,
  runningPostmaster,
  start,
  stopPostmaster
} from "@ratings/adapters-sql/EmbeddedPostgres"
import { Console, Effect, Option, Redacted, type Scope } from "effect"
import type { ServerConfig } from "./Config.ts"
import * as DataDirLock from "./DataDirLock.ts"

export interface DatabaseTarget {
  readonly url: string
  /** True when this process runs the embedded default (started here or found running). */
  readonly embedded: boolean
}

/** A server owns the embedded Postgres it uses; a command may use the one running for the folder. */
export type DatabaseRole = "serve" | "command"

const EMBEDDED_DB = "ratings"

/** The superuser's password of the data folder (generated on first use, mode 0600). */
export const passwordFile = (dataDir: string): string => join(dataDir, "pg-password")

const notice = (line: string) => Console.error(line)

/** Takes the folder, stops a Postgres its former owner left running, and starts ours. */
const startOwned = (dataDir: string, onLog?: (line: string) => void) =>
  Effect.gen(function* () {
    const pgDir = join(dataDir, "pg")
    yield* DataDirLock.acquire(dataDir, notice)
    const orphan = runningPostmaster(pgDir)
    if (orphan !== undefined) {
      yield* notice(
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

export const resolveDatabase = (
  config: Pick<ServerConfig, "databaseUrl" | "dataDir">,
  role: DatabaseRole = "command",
  onLog?: (line: string) => void
): Effect.Effect<DatabaseTarget, EmbeddedPostgresError | DataDirLock.DataDirInUseError, Scope.Scope> =>
  Effect.gen(function* () {
    if (Option.isSome(config.databaseUrl)) {
      return { url: Redacted.value(config.databaseUrl.value), embedded: false }
    }
    const running = runningPostmaster(join(config.dataDir, "pg"))
    if (role === "command" && running !== undefined) {
      const password = yield* embeddedPassword(passwordFile(config.dataDir))
      return { url: embeddedUrl(running.port, EMBEDDED_DB, password), embedded: true }
    }
    return { url: yield* startOwned(config.dataDir, onLog), embedded: true }
  })

export { EmbeddedPostgresError }
