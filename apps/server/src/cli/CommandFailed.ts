/**
 * A command that has already told the operator what went wrong and must end
 * with a non-zero exit code, without the runtime printing the error again.
 * (Setting process.exitCode is not enough: a dependency's exit hook exits with 0.)
 */
import { Runtime, Schema } from "effect"

export class CommandFailed extends Schema.TaggedError<CommandFailed>()("CommandFailed", {
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  // false: already reported to the operator, so the runtime does not log it again
  override readonly [Runtime.errorReported] = false
}
