/**
 * `ratings exports show <export_id>`: trace a leaked file. Every export carries
 * its watermark (`__export_id`, a column of each CSV and JSON row, and the
 * `X-Export-Id` header), recorded when it was made (spec part 4). Given the
 * watermark found in a file, this prints who made the export (account, and the
 * API key with its name, tier and whether it has been revoked since), what it
 * held (entity type, format, fields, rows) and when. Never the key itself: only
 * its hash is stored. An unknown or malformed watermark exits 1 saying so
 * (run/Exports.ts).
 */
import { Argument, Command } from "effect/cli"
import { lazily } from "./Lazy.ts"

const show = Command.make(
  "show",
  {
    exportId: Argument.String("export_id").pipe(
      Argument.withDescription("The watermark: the __export_id column of the file, or its X-Export-Id header")
    )
  },
  ({ exportId }) =>
    lazily(
      () => import("./run/Exports.ts"),
      (run) => run.show(exportId)
    )
).pipe(Command.withDescription("Show who made an export and what it held, from its __export_id watermark"))

export const ExportsCommand = Command.make("exports").pipe(
  Command.withDescription("Trace exports by their watermark"),
  Command.withSubcommands([show])
)
