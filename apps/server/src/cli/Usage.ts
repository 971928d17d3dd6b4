/**
 * How `ratings` answers a command line it cannot run (a typo, a missing flag,
 * an unknown flag, a value not among the choices): the error first, one line
 * each, then the one usage line of the command that was meant and where its
 * full help is, all on standard error, so that the error is what the operator
 * sees and a script's standard output stays empty. `--help` still prints the
 * whole help on standard output (effect/cli's own presenter).
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { type CliError, CliOutput } from "effect/cli"

/** An error of the parser as one line: "Did you mean" suggestions folded into it. */
export const errorLine = (error: CliError.CliError): string => {
  const [first = ""] = error.message.split("\n\n")
  const suggestions: ReadonlyArray<string> =
    "suggestions" in error && Array.isArray(error.suggestions) ? error.suggestions : []
  return suggestions.length === 0 ? first : `${first} (did you mean ${suggestions.join(" or ")}?)`
}

/** The lines printed for an invalid invocation: the errors, the usage line, the pointer to the help. */
export const invalidInvocationLines = (
  event: CliOutput.Presenter.InvalidInvocation
): ReadonlyArray<string> => [
  ...event.errors.map((error) => `error: ${errorLine(error)}`),
  `usage: ${event.helpDoc.usage}`,
  `(\`${event.commandPath.join(" ")} --help\` lists the flags and arguments)`
]

export const UsagePresenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Console.error(invalidInvocationLines(event).join("\n"))
      : CliOutput.defaultPresenter.present(event)
}

/** `program` with invalid invocations answered as above. */
export const withUsagePresenter = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(program, CliOutput.Presenter, UsagePresenter)
