/**
 * `ratings import <file|dir>`: validate the whole input, report every error
 * with its JSON path, and write all or nothing in one transaction.
 */
import { formatImportReport } from "@ratings/domain/import/ImportPlan"
import { Console, Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { AppLayer } from "../AppLayer.ts"
import { CommandFailed } from "./CommandFailed.ts"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { progressReporter } from "../Progress.ts"

export const ImportCommand = Command.make(
  "import",
  {
    path: Argument.String("path").pipe(
      Argument.withDescription("An import file, or a folder of them (read in name order)")
    )
  },
  Effect.fnUntraced(function* ({ path }) {
    const outcome = yield* importPath(path, yield* progressReporter("import"))
    if (outcome._tag === "Rejected") {
      yield* Console.error(formatIssues(outcome.issues))
      return yield* new CommandFailed({ message: "failed" })
    }
    yield* Console.log(formatImportReport(outcome.report))
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Import entities, catalogues, drafts, history, incidents and quantum data"))
