/**
 * `ratings`: the command tree, and the program that runs it. Importing this
 * module starts nothing and touches no process state. `ratingsMain` is what
 * main.ts runs under NodeRuntime.runMain; `ratings(platform)` is the same
 * program over other platform services, and `exitCodeOf` the exit-code rule,
 * so the tests run the command line inside their own process
 * (apps/server/test/InProcessCli.ts). Every layer a command builds (pools,
 * the embedded Postgres, the data folder's lock) is released when the run
 * ends; nothing is left on the process (no signal handler, no exit code).
 * The commands' work is loaded only when one runs (Lazy.ts).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { Command } from "effect/cli"
import { teardown } from "../Shutdown.ts"
import { ContactsCommand } from "./ContactsCommand.ts"
import { DeliveriesCommand } from "./DeliveriesCommand.ts"
import { DemoCommand } from "./DemoCommand.ts"
import { DevCommand } from "./DevCommand.ts"
import { ExportsCommand } from "./ExportsCommand.ts"
import { ImportCommand } from "./ImportCommand.ts"
import { IncidentsCommand } from "./IncidentsCommand.ts"
import { KeysCommand } from "./KeysCommand.ts"
import { McpCommand } from "./McpCommand.ts"
import { PublishCommand, StatusCommand } from "./PublishCommand.ts"
import { QuantumCommand } from "./QuantumCommand.ts"
import { QuestionsCommand } from "./QuestionsCommand.ts"
import { ServeCommand } from "./ServeCommand.ts"
import { withUsagePresenter } from "./Usage.ts"

export const Version = "0.1.0"

export const Ratings = Command.make("ratings").pipe(
  Command.withDescription("DeFi risk-ratings service"),
  Command.withSubcommands([
    ServeCommand,
    ImportCommand,
    QuestionsCommand,
    PublishCommand,
    StatusCommand,
    IncidentsCommand,
    QuantumCommand,
    KeysCommand,
    DeliveriesCommand,
    ExportsCommand,
    ContactsCommand,
    McpCommand,
    DemoCommand,
    DevCommand
  ])
)

/**
 * A failure the command has not already told the operator about is logged,
 * as NodeRuntime.runMain logs it (main.ts turns the runtime's own reporting
 * off, so that this one, inside the run, writes to the run's Console).
 */
const reportFailure = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapCause(program, (cause) =>
    Cause.hasInterruptsOnly(cause) || !Runtime.getErrorReported(Cause.squash(cause))
      ? Effect.void
      : Effect.logError(cause)
  )

/**
 * `ratings` with the arguments of the Stdio service, over the given platform
 * services; an invalid command line is answered by its error and usage line
 * (Usage.ts).
 */
export const ratings = (platform: Layer.Layer<NodeServices.NodeServices>) =>
  Ratings.pipe(Command.run({ version: Version }), withUsagePresenter, Effect.provide(platform), reportFailure)

/** The program of the `ratings` process: its arguments, environment and standard streams. */
export const ratingsMain = ratings(NodeServices.layer)

/** How the process's exit code follows from the end of the program (the teardown main.ts gives runMain). */
export const exitCodeOf = (exit: Parameters<Runtime.Teardown>[0]): number => {
  let code = 1
  teardown(exit, (c) => {
    code = c
  })
  return code
}
