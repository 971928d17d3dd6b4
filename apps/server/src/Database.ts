/**
 * Which Postgres the process uses: DATABASE_URL when set, else the embedded
 * Postgres under the data folder.
 *
 * One data folder has one owner (adapters-sql DataDirLock.ts and
 * EmbeddedDataDir.ts): the process that starts its embedded Postgres. A
 * server (`ratings serve`) always owns it: a second server on the same folder
 * is refused, naming the owner's pid, and a Postgres left running by an owner
 * that is gone (`kill -9`) is stopped and started again under the new owner,
 * which stops it on shutdown. A CLI command is not a server: it connects to
 * the Postgres running for the folder (with the folder's password file), and
 * only when none runs does it take the folder and start one for itself.
 */
import type { DataDirInUseError } from "@ratings/adapters-sql/DataDirLock"
import { runningUrl, startOwned } from "@ratings/adapters-sql/EmbeddedDataDir"
import { EmbeddedPostgresError } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Console, Effect, Option, Redacted, type Scope } from "effect"
import type { ServerConfig } from "./Config.ts"

export interface DatabaseTarget {
  readonly url: string
  /** True when this process runs the embedded default (started here or found running). */
  readonly embedded: boolean
}

/** A server owns the embedded Postgres it uses; a command may use the one running for the folder. */
export type DatabaseRole = "serve" | "command"

const notice = (line: string) => Console.error(line)

export const resolveDatabase = (
  config: Pick<ServerConfig, "databaseUrl" | "dataDir">,
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

export { EmbeddedPostgresError }
