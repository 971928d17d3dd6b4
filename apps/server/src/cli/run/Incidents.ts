/**
 * What `ratings incidents ingest <file|->` does (the command and what it
 * promises: IncidentsCommand.ts): the whole input checked first, then the
 * reports ingested one by one, each in its own transaction. Output never
 * holds a nonce or a victim address.
 */
import { type LocatedReport, readIncidentReports } from "@ratings/domain/import/IncidentReportFile"
import type { IngestOutcome } from "@ratings/domain/incidents/IncidentLifecycle"
import { IncidentService, type IngestResult } from "@ratings/domain/services/IncidentService"
import { Console, Effect, FileSystem, type PlatformError, Result, Stdio, Stream } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

const StdinName = "<stdin>"

const whyUnreadable = (error: PlatformError.PlatformError): string => {
  switch (error.reason._tag) {
    case "NotFound":
      return "no such file"
    case "BadResource":
      return "not a file (give one file, or - for standard input)"
    case "PermissionDenied":
      return "permission denied"
    default:
      return error.message
  }
}

const readInput = (path: string): Effect.Effect<string, string, FileSystem.FileSystem | Stdio.Stdio> =>
  path === "-"
    ? Effect.gen(function* () {
        const stdio = yield* Stdio.Stdio
        return yield* stdio.stdin.pipe(Stream.decodeText, Stream.mkString)
      }).pipe(Effect.mapError((e) => `cannot read standard input: ${e.message}`))
    : Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        return yield* fs.readFileString(path)
      }).pipe(Effect.mapError((e) => `cannot read ${path}: ${whyUnreadable(e)}`))

const servedText = (result: IngestResult): string =>
  result.served === undefined
    ? "not served (needs two independent sources)"
    : `served as ${result.served.status}`

const reportLine = (located: LocatedReport, result: IngestResult): string =>
  `report ${located.number} (${located.where}): ${result.outcome}, incident ${result.incident_id}, ${servedText(result)}`

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const summaryLine = (results: ReadonlyArray<IngestResult>): string => {
  const counts: Record<IngestOutcome, number> = { created: 0, escalated: 0, absorbed: 0, duplicate: 0 }
  // The last result of an incident is its state after the whole file.
  const incidents = new Map<string, boolean>()
  for (const r of results) {
    counts[r.outcome]++
    incidents.set(r.incident_id, r.served !== undefined)
  }
  const served = [...incidents.values()].filter(Boolean).length
  const outcomes = (Object.keys(counts) as Array<IngestOutcome>).map((o) => `${counts[o]} ${o}`).join(", ")
  return `ingested ${plural(results.length, "report")} (${outcomes}); ${plural(incidents.size, "incident")}, ${served} served`
}

/**
 * A store failure's text with every nonce and victim address of the input
 * masked: a database error may quote the row or key it refused.
 */
const redact = (text: string, reports: ReadonlyArray<LocatedReport>): string => {
  const secrets = reports
    .flatMap(({ report }) => [report.nonce, ...report.victim_addresses])
    .filter((s) => s.trim() !== "")
    .sort((a, b) => b.length - a.length)
  return secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text)
}

/** Ingests validated reports in file order, printing one line per report as it lands. */
const ingestAll = Effect.fnUntraced(function* (reports: ReadonlyArray<LocatedReport>) {
  const incidents = yield* IncidentService
  const results: Array<IngestResult> = []
  for (const located of reports) {
    const ingested = yield* incidents.ingest(located.report).pipe(Effect.result)
    if (Result.isFailure(ingested)) {
      yield* Console.error(
        [
          `report ${located.number} (${located.where}) failed: ${redact(ingested.failure.message, reports)}`,
          results.length === 0
            ? "nothing was ingested."
            : `reports 1 to ${results.length} were ingested; report ${located.number} and the rest were not.`,
          "Running the same input again is safe: a report already ingested is recognised by its nonce and changes nothing."
        ].join("\n")
      )
      return yield* new CommandFailed({ message: "failed" })
    }
    results.push(ingested.success)
    yield* Console.log(reportLine(located, ingested.success))
  }
  yield* Console.log(summaryLine(results))
})

export const ingest = Effect.fnUntraced(function* (file: string) {
  const name = file === "-" ? StdinName : file
  const text = yield* readInput(file).pipe(
    Effect.catch((message) =>
      Console.error(message).pipe(Effect.andThen(new CommandFailed({ message: "failed" })))
    )
  )
  const read = readIncidentReports(name, text)
  if (Result.isFailure(read)) {
    const issues = read.failure
    yield* Console.error(
      [`ingest refused: ${plural(issues.length, "error")}, nothing was ingested`, ...issues].join("\n")
    )
    return yield* new CommandFailed({ message: "failed" })
  }
  // The database is opened only for an input that passed: a refused file touches nothing.
  yield* ingestAll(read.success).pipe(Effect.provide(AppLayer))
})
