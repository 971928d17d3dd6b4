/**
 * `ratings`: the command tree, and the program that runs it. Importing this
 * module starts nothing and touches no process state.
 *
 * - `ratingsMain` is what main.ts runs under NodeRuntime.runMain: the
 *   arguments, configuration and output of the process.
 * - `runRatings` runs the very same program (the same commands, layers,
 *   error reporting and exit-code rule) inside the calling process: its
 *   configuration comes from a given environment record instead of
 *   process.env, its output (Console, the logger, Stdio, progress) goes to
 *   the given writers, and its exit code is returned instead of exiting. Every
 *   layer a command builds (pools, the embedded Postgres, the data folder's
 *   lock) is built for the run and released when it ends; nothing is left on
 *   the process (no signal handler, no exit code).
 */
import { Console as NodeConsole } from "node:console"
import { NodeServices } from "@effect/platform-node"
import { Cause, ConfigProvider, Console, Effect, Layer, Runtime, Sink, Stdio, Stream } from "effect"
import { Command, TerminalCapabilities } from "effect/cli"
import { TracingLayer } from "../Observability.ts"
import { ProgressOutput } from "../Progress.ts"
import { teardown } from "../Shutdown.ts"
import { DeliveriesCommand } from "./DeliveriesCommand.ts"
import { DemoCommand } from "./DemoCommand.ts"
import { DevCommand } from "./DevCommand.ts"
import { ExportsCommand } from "./ExportsCommand.ts"
import { ImportCommand } from "./ImportCommand.ts"
import { IncidentsCommand } from "./IncidentsCommand.ts"
import { KeysCommand } from "./KeysCommand.ts"
import { PublishCommand, StatusCommand } from "./PublishCommand.ts"
import { QuantumCommand } from "./QuantumCommand.ts"
import { ServeCommand } from "./ServeCommand.ts"

export const Version = "0.1.0"

export const Ratings = Command.make("ratings").pipe(
  Command.withDescription("DeFi risk-ratings service"),
  Command.withSubcommands([
    ServeCommand,
    ImportCommand,
    PublishCommand,
    StatusCommand,
    IncidentsCommand,
    QuantumCommand,
    KeysCommand,
    DeliveriesCommand,
    ExportsCommand,
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
 * services; spans are exported when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * (Observability.ts) and flushed as the command ends.
 */
const ratings = (platform: Layer.Layer<NodeServices.NodeServices>) =>
  Ratings.pipe(
    Command.run({ version: Version }),
    Effect.provide(TracingLayer),
    Effect.provide(platform),
    reportFailure
  )

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

/** What an in-process run reads and writes in place of the process's. */
export interface CliIo {
  /** The environment its configuration is read from (the whole of it: process.env is not read). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Receives what the run writes to standard output. */
  readonly stdout: (text: string) => void
  /** Receives what the run writes to standard error (progress lines included). */
  readonly stderr: (text: string) => void
  /** Standard input (`incidents ingest -`); empty when absent. */
  readonly stdin?: string | undefined
}

/** A Stdio sink writing the text of its chunks (UTF-8 decoded across chunks) to `write`. */
const sinkOf = (write: (text: string) => void) => {
  const utf8 = new TextDecoder()
  const writeChunk = (chunk: string | Uint8Array) =>
    Effect.sync(() => write(typeof chunk === "string" ? chunk : utf8.decode(chunk, { stream: true })))
  return Sink.forEach(writeChunk)
}

/** A writer as the minimal stream a Node Console writes to (with ignoreErrors false it only calls write). */
const streamOf = (write: (text: string) => void) =>
  ({
    write: (chunk: string | Uint8Array) => {
      write(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
      return true
    }
  }) as unknown as NodeJS.WritableStream

/**
 * Runs `ratings <args>` in this process and resolves with the exit code a
 * `ratings` process would exit with (0, 1 for a failed command, a bad
 * argument or a configuration error, ...). Output is written through `io`
 * as a process with piped (not terminal) standard streams would write it.
 */
export const runRatings = async (args: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(io.env)) if (value !== undefined) env[name] = value
  const stdio = Layer.succeed(
    Stdio.Stdio,
    Stdio.make({
      args: Effect.succeed(args),
      stdout: () => sinkOf(io.stdout),
      stderr: () => sinkOf(io.stderr),
      stdin: io.stdin === undefined ? Stream.empty : Stream.make(new TextEncoder().encode(io.stdin))
    })
  )
  // Node's own Console (formatting, groups and all), writing to the run's writers, without colours (not a TTY).
  const console = new NodeConsole({
    stdout: streamOf(io.stdout),
    stderr: streamOf(io.stderr),
    ignoreErrors: false,
    colorMode: false
  })
  const exit = await Effect.runPromiseExit(
    ratings(Layer.merge(NodeServices.layer, stdio)).pipe(
      // Colours and prompts as for this run's environment and its non-terminal streams.
      Effect.provide(TerminalCapabilities.layer.pipe(Layer.provide(stdio))),
      Effect.provideService(ProgressOutput, { isTTY: false, write: io.stderr }),
      Effect.provideService(Console.Console, console),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
    )
  )
  return exitCodeOf(exit)
}
