/**
 * `ratings import <file|dir>`: validate the whole input, report every error
 * with its JSON path, and write all or nothing in one transaction (run/Import.ts).
 * `--dry-run` does all of it but the commit; an import that would remove stored
 * questions, quantum rows or published scorecards is refused unless `--replace`
 * names those kinds (docs/import-format.md, "No silent loss").
 */
import { Argument, Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

export const ImportCommand = Command.make(
  "import",
  {
    path: Argument.String("path").pipe(
      Argument.withDescription("An import file, or a folder of them (read in name order)")
    ),
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription("Validate and report what the import would do, writing nothing"),
      Flag.withDefault(false)
    ),
    replace: Flag.String("replace").pipe(
      Flag.withDescription(
        "Kinds of stored data the import may remove, comma-separated: questions, quantum, scorecards"
      ),
      Flag.withDefault("")
    )
  },
  (input) =>
    lazily(
      () => import("./run/Import.ts"),
      (run) => run.importFiles(input)
    )
).pipe(Command.withDescription("Import entities, catalogues, drafts, history, incidents and quantum data"))
