/**
 * What `ratings import <file|dir>` does (the command: ImportCommand.ts):
 * validate the whole input, report every error with its JSON path, refuse
 * what would remove stored data without `--replace`, and write all or nothing
 * in one transaction, or with `--dry-run` rehearse it and write nothing.
 */
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { formatImportReport } from "@ratings/domain/import/ImportPlan"
import { describeRemovals, parseReplaceKinds } from "@ratings/domain/import/ImportRemovals"
import { Console, Effect, Result } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { progressReporter } from "../../Progress.ts"
import { CommandFailed } from "../CommandFailed.ts"
import { boundImportHeap, releaseImportHeap } from "./ImportHeap.ts"

export interface ImportInput {
  readonly path: string
  readonly dryRun: boolean
  readonly replace: string
}

const dryRunNote = "dry run: nothing was written"

export const importFiles = (input: ImportInput) =>
  Effect.gen(function* () {
    const replace = parseReplaceKinds(input.replace)
    if (Result.isFailure(replace)) {
      yield* Console.error(replace.failure)
      return yield* new CommandFailed({ message: "failed" })
    }
    yield* Effect.sync(boundImportHeap)
    const run = Effect.gen(function* () {
      const progress = yield* progressReporter(input.dryRun ? "dry run" : "import")
      return yield* importPath(input.path, progress, {
        dryRun: input.dryRun,
        replace: replace.success,
        afterValidation: releaseImportHeap
      })
    }).pipe(Effect.provide(AppLayer))
    const outcome = yield* run
    if (outcome._tag === "Rejected") {
      yield* Console.error(formatIssues(outcome.issues))
      return yield* new CommandFailed({ message: "failed" })
    }
    if (outcome._tag === "Refused") {
      yield* Console.error(input.dryRun ? `${dryRunNote}\n${outcome.message}` : outcome.message)
      return yield* new CommandFailed({ message: "failed" })
    }
    const removed = describeRemovals(outcome.removals).map((l) => `removed (--replace) ${l}`)
    yield* Console.log(
      [
        ...(input.dryRun ? [`${dryRunNote}; the import would report:`] : []),
        formatImportReport(outcome.report),
        `${"events".padEnd(17)} ${outcome.deliveries} webhook deliveries queued`,
        ...removed
      ].join("\n")
    )
  })
