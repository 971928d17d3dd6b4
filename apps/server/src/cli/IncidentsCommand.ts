/**
 * `ratings incidents ingest <file|->`: feed incident reports to the domain's
 * incident lifecycle, as the admin route does. The whole input is checked
 * first, and a file with any invalid report ingests nothing. Then reports are
 * ingested one by one in file order, each in its own transaction: a long
 * transaction would hold a lock per hack for the whole file, and none is
 * needed, because a report already ingested is recognised by its nonce and
 * changes nothing, so running a file again after a failure is safe.
 *
 * Output names the outcome, the incident and whether it is served; never a
 * nonce or a victim address (spec part 2: stored, never served).
 */
import { Argument, Command } from "effect/cli"
import { lazily } from "./Lazy.ts"

const ingest = Command.make(
  "ingest",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription(
        "A JSON array of incident reports, one report object, or JSON Lines (one report per line); - reads standard input"
      )
    )
  },
  ({ file }) =>
    lazily(
      () => import("./run/Incidents.ts"),
      (run) => run.ingest(file)
    )
).pipe(
  Command.withDescription(
    "Ingest incident reports (validated first: one invalid report and nothing is ingested)"
  )
)

export const IncidentsCommand = Command.make("incidents").pipe(
  Command.withDescription("Hack incidents"),
  Command.withSubcommands([ingest])
)
