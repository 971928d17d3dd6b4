/**
 * How the process ends. SIGINT and SIGTERM interrupt the command (the
 * runtime's handlers; the embedded Postgres package's own handlers, which
 * would exit at once, are released first). `ratings serve` interrupted so
 * has drained and closed everything in order: that is its normal end, and
 * the process exits 0. Any other command interrupted exits 130 as usual.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

let graceful = false

/** Marks the server's stop as the graceful end of the process (exit code 0). */
export const stoppedGracefully: Effect.Effect<void> = Effect.sync(() => {
  graceful = true
})

/** Runtime teardown: a server stopped by a signal exits 0; everything else as the runtime decides. */
export const teardown: Runtime.Teardown = (exit, onExit) =>
  graceful && Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
    ? onExit(0)
    : Runtime.defaultTeardown(exit, onExit)
