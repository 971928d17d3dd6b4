/**
 * What `ratings import <file|dir>` does (the command: ImportCommand.ts):
 * validate the whole input, report every error with its JSON path, and write
 * all or nothing in one transaction.
 */
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { formatImportReport } from "@ratings/domain/import/ImportPlan"
import { Console, Effect } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { progressReporter } from "../../Progress.ts"
import { CommandFailed } from "../CommandFailed.ts"

export const importFiles = Effect.fnUntraced(function* (path: string) {
  const outcome = yield* importPath(path, yield* progressReporter("import"))
  if (outcome._tag === "Rejected") {
    yield* Console.error(formatIssues(outcome.issues))
    return yield* new CommandFailed({ message: "failed" })
  }
  yield* Console.log(formatImportReport(outcome.report))
}, Effect.provide(AppLayer))
