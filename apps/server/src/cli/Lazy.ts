/**
 * The handler of a command, loaded when the command runs. The command tree
 * (its names, flags, arguments and help) is all `ratings --help` or a bad
 * argument needs; what a command does, with the database, the HTTP server
 * and the rest of the application behind it, is imported only once that
 * command is chosen, so help and argument errors answer at once. Spans of
 * the command are exported as Observability.ts configures (flushed as it ends).
 *
 * This module and the command modules import Effect's modules one by one
 * (`effect/Effect`), not the `effect` index, which would load all of them.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** What the process does once a command's modules are loaded and before it runs (main.ts sets it). */
export const BeforeCommand = Context.Reference<() => Promise<void>>("@ratings/server/cli/BeforeCommand", {
  defaultValue: () => () => Promise.resolve()
})

/** `run` over the module `load` imports, with the tracing layer of the process. */
export const lazily = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* BeforeCommand
    const [module, observability] = yield* Effect.promise(async () => {
      const loaded = await Promise.all([load(), import("../Observability.ts")])
      await before()
      return loaded
    })
    return yield* run(module).pipe(Effect.provide(observability.TracingLayer))
  })
