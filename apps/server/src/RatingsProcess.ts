/**
 * The `ratings` process (main.ts loads it): the commands of cli/Ratings.ts run
 * under the Node runtime, with the process's signals, exit code and teardown.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { BeforeCommand } from "./cli/Lazy.ts"
import { ratingsMain } from "./cli/Ratings.ts"
import { teardown } from "./Shutdown.ts"

// The runtime handles SIGINT and SIGTERM (a graceful stop), not the embedded Postgres package:
// its handlers are released before a command runs (help and argument errors load neither).
const releaseShutdownSignals = async () => {
  const signals = await import("@ratings/adapters-sql/EmbeddedPostgresSignals")
  signals.releaseShutdownSignals()
}

// Failures are reported by ratingsMain itself (cli/Ratings.ts), to the Console of the run.
NodeRuntime.runMain(ratingsMain.pipe(Effect.provideService(BeforeCommand, releaseShutdownSignals)), {
  teardown,
  disableErrorReporting: true
})
