/**
 * The import side of bench/import.bench.ts, run in its own process so that
 * its peak memory is the import's alone: `ratings import`'s pipeline
 * (importPath over the application's layers, as the CLI wires it) loads the
 * folder argv[2] into DATABASE_URL with progress on stderr, then prints one
 * JSON line: the pipeline's seconds and the process's peak RSS in bytes.
 */
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import { boundImportHeap, releaseImportHeap } from "@ratings/server/cli/run/ImportHeap"
import { terminalProgress } from "@ratings/server/Progress"
import { Effect, Layer, Redacted } from "effect"

const dir = process.argv[2]
const url = process.env.DATABASE_URL
if (dir === undefined || url === undefined)
  throw new Error("usage: DATABASE_URL=... node importChild.ts <dir>")
const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
// As `ratings import` does at its start (ImportHeap.ts).
boundImportHeap()
const t0 = performance.now()
const outcome = await Effect.runPromise(
  importPath(dir, terminalProgress("import"), { afterValidation: releaseImportHeap }).pipe(
    Effect.provide(application(key).pipe(Layer.provideMerge(database(url)))),
    Effect.scoped
  )
)
const seconds = (performance.now() - t0) / 1000
if (outcome._tag !== "Imported")
  throw new Error(outcome._tag === "Rejected" ? formatIssues(outcome.issues) : outcome.message)
console.log(JSON.stringify({ seconds, peakRss: process.resourceUsage().maxRSS * 1024 }))
process.exit(0)
