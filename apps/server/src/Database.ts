/**
 * Which Postgres the process uses: DATABASE_URL when set, else the embedded
 * Postgres under the data folder. A second process (a CLI command while the
 * server runs) finds the embedded server already running through its
 * postmaster.pid and connects to it instead of starting another.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { EmbeddedPostgresError, embeddedUrl, start } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect, Option, Redacted, type Scope } from "effect"
import type { ServerConfig } from "./Config.ts"

export interface DatabaseTarget {
  readonly url: string
  /** True when this process runs the embedded default (started here or found running). */
  readonly embedded: boolean
}

const EMBEDDED_DB = "ratings"

/** The port of a live embedded postmaster for this data folder, if one runs. */
const runningEmbeddedPort = (pgDir: string): number | undefined => {
  const pidFile = join(pgDir, "postmaster.pid")
  if (!existsSync(pidFile)) return undefined
  const [pidLine, , , portLine] = readFileSync(pidFile, "utf8").split("\n")
  const pid = Number(pidLine)
  const port = Number(portLine)
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined
  try {
    process.kill(pid, 0)
    return port
  } catch {
    return undefined
  }
}

export const resolveDatabase = (
  config: Pick<ServerConfig, "databaseUrl" | "dataDir">,
  onLog?: (line: string) => void
): Effect.Effect<DatabaseTarget, EmbeddedPostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    if (Option.isSome(config.databaseUrl)) {
      return { url: Redacted.value(config.databaseUrl.value), embedded: false }
    }
    const pgDir = join(config.dataDir, "pg")
    const running = runningEmbeddedPort(pgDir)
    if (running !== undefined) {
      return { url: embeddedUrl(running, EMBEDDED_DB), embedded: true }
    }
    const server = yield* start({ dir: pgDir, persistent: true, database: EMBEDDED_DB, onLog })
    return { url: server.url, embedded: true }
  })

export { EmbeddedPostgresError }
