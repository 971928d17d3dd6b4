/**
 * `ratings import <file|dir>`: validate the whole input, report every error
 * with its JSON path, and write all or nothing in one transaction (run/Import.ts).
 */
import { Argument, Command } from "effect/cli"
import { lazily } from "./Lazy.ts"

export const ImportCommand = Command.make(
  "import",
  {
    path: Argument.String("path").pipe(
      Argument.withDescription("An import file, or a folder of them (read in name order)")
    )
  },
  ({ path }) =>
    lazily(
      () => import("./run/Import.ts"),
      (run) => run.importFiles(path)
    )
).pipe(Command.withDescription("Import entities, catalogues, drafts, history, incidents and quantum data"))
