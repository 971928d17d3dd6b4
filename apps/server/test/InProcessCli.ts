/**
 * The `ratings` command line run inside the test's own process: the very
 * program a `ratings` process runs (`ratings` of src/cli/Ratings.ts: the same
 * commands, layers, error reporting and exit-code rule), with three things of
 * the caller's choosing: its configuration comes from a given environment
 * record instead of process.env, its output (Console, the logger, Stdio,
 * progress) goes to the given writers, and its exit code is returned instead
 * of exiting. CliInProcess.test.ts holds it to the real binary.
 */
import { Console as NodeConsole } from "node:console"
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Console, Effect, Layer, Sink, Stdio, Stream } from "effect"
import { TerminalCapabilities } from "effect/cli"
import { exitCodeOf, ratings } from "../src/cli/Ratings.ts"
import { ProgressOutput } from "../src/Progress.ts"

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
