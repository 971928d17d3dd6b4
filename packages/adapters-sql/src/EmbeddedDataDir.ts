/**
 * The embedded Postgres of a data folder: its cluster in `<dataDir>/pg`, its
 * superuser's password in `<dataDir>/pg-password` (generated on first use,
 * mode 0600), and one owner (DataDirLock.ts): the process that starts it. The
 * owner takes the folder, stops a Postgres left running by a former owner
 * that is gone (`kill -9`), and starts its own, which it stops when its scope
 * closes. Anyone else may connect to the Postgres running for the folder.
 */
import { join, resolve } from "node:path"
import { Effect, Option, type Scope } from "effect"
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

/** Takes the folder, stops a Postgres its former owner left running, and starts ours; returns its URL. */
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
