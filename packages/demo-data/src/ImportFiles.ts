/**
 * Importing a file or a folder of import files (read in name order): JSON is
 * parsed and decoded here one file at a time, so no two files' text is held
 * at once; everything else is the domain's Importer. Nothing is written
 * unless the whole input is valid, nor when it would remove stored data of a
 * kind `replace` does not name (ImportRemovals.ts), nor on a dry run; its
 * questions merge into the stored catalogues unless `replace` names
 * questions. The reading side of the files this package
 * writes (the demo dataset in data/, the scale generator's output), used by
 * `ratings import`, the demo load of `ratings serve` and the benchmarks.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs"
import { basename, join } from "node:path"
import { formatImportIssue, type ImportIssue } from "@ratings/domain/import/ImportIssue"
import { type Decoded, type SourceDecoder, sourceDecoder } from "@ratings/domain/import/ImportDecode"
import { parseJsonText, type ImportSource } from "@ratings/domain/import/ImportJsonText"
import type { ImportProgressOptions, ImportReport } from "@ratings/domain/import/ImportPlan"
import { type Removals, type ReplaceKind, refusalOf, removalsOf } from "@ratings/domain/import/ImportRemovals"
import { Importer, type ImportValidateOptions } from "@ratings/domain/services/Importer"
import { type ChunkSpill, ImportSpillFailed } from "@ratings/domain/import/ImportSpill"
import { type Cause, Effect, Result } from "effect"
import { type SpillFile, spillFile } from "./ImportSpillFile.ts"

export type ImportOutcome =
  | {
      readonly _tag: "Imported"
      readonly report: ImportReport
      /** Webhook deliveries queued (for a dry run: that would be queued). */
      readonly deliveries: number
      readonly removals: Removals
      readonly dryRun: boolean
    }
  | { readonly _tag: "Rejected"; readonly issues: ReadonlyArray<ImportIssue> }
  | {
      readonly _tag: "Refused"
      readonly removals: Removals
      /** The refusal as the CLI prints it: what would be removed, how many, and the --replace that allows it. */
      readonly message: string
      readonly dryRun: boolean
    }

export interface ImportPathOptions {
  /** Validate and rehearse in a rolled-back transaction: the report of a real run, nothing written. */
  readonly dryRun?: boolean
  /**
   * The kinds the import may remove stored data of (`--replace`); by default none.
   * With `questions`, the import's questions of a type are its whole catalogue;
   * without, they merge into the stored one.
   */
  readonly replace?: ReadonlySet<ReplaceKind>
  /**
   * Called once validation is done and the decoded input is garbage, before
   * anything is written: where a process may hand back the memory that
   * validation used (`ratings import`: ImportHeap.ts `releaseImportHeap`).
   */
  readonly afterValidation?: () => void
  /** Makes the file the import keeps its answers and records in until written; by default a new `spillFile()`. */
  readonly spill?: () => SpillFile
}

/** The JSON files of a path: the file itself, or a folder's `*.json` files in name order. */
export const importFilesOf = (path: string): ReadonlyArray<string> =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name))
    : [path]

/**
 * Decodes a file item by item as it is read, never holding its text or its
 * parsed JSON whole; false when it does not decode cleanly (or cannot be
 * read), for the caller to parse it whole and report its issues.
 */
const streamFile = (decoder: SourceDecoder, file: string): boolean => {
  let fd: number | undefined
  try {
    fd = openSync(file, "r")
    const from = fd
    return decoder.addStream(basename(file), (into, offset, length) =>
      readSync(from, into, offset, length, null)
    )
  } catch (e) {
    if (e instanceof ImportSpillFailed) throw e
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * A file's text parsed whole; a file that cannot be read (or is too large for
 * one string, which only a file that failed to stream is read as) is an issue.
 */
const parseWhole = (file: string): Result.Result<ImportSource, ImportIssue> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return Result.fail({ source: basename(file), path: "$", message: `cannot read: ${(e as Error).message}` })
  }
  return parseJsonText(basename(file), text)
}

/**
 * The files of a path read and decoded one at a time, each item by item as it
 * is read (`streamFile`), so that only the decoded items are held, never a
 * file's text or parsed JSON. A file that does not decode cleanly is parsed
 * whole for its issues; one that is not JSON is an issue, as in `readSources`.
 */
export const readDecoded = (
  path: string,
  spill?: ChunkSpill
): Effect.Effect<{
  readonly decoded: Decoded
  readonly names: ReadonlyArray<string>
  readonly issues: ReadonlyArray<ImportIssue>
}> =>
  Effect.sync(() => {
    const decoder = sourceDecoder(spill)
    const names: Array<string> = []
    const issues: Array<ImportIssue> = []
    let files: ReadonlyArray<string> = []
    try {
      files = importFilesOf(path)
    } catch (e) {
      issues.push({ source: path, path: "$", message: `cannot read: ${(e as Error).message}` })
    }
    if (files.length === 0 && issues.length === 0)
      issues.push({ source: path, path: "$", message: "no .json files to import" })
    for (const file of files) {
      if (issues.length === 0 && streamFile(decoder, file)) {
        names.push(basename(file))
        continue
      }
      const parsed = parseWhole(file)
      if (Result.isFailure(parsed)) issues.push(parsed.failure)
      else if (issues.length === 0) {
        names.push(parsed.success.name)
        decoder.add(parsed.success)
      }
    }
    return { decoded: decoder.result(), names, issues }
  })

export const readSources = (
  path: string
): Effect.Effect<{
  readonly sources: ReadonlyArray<ImportSource>
  readonly issues: ReadonlyArray<ImportIssue>
}> =>
  Effect.sync(() => {
    const sources: Array<ImportSource> = []
    const issues: Array<ImportIssue> = []
    let files: ReadonlyArray<string>
    try {
      files = importFilesOf(path)
    } catch (e) {
      return {
        sources,
        issues: [{ source: path, path: "$", message: `cannot read: ${(e as Error).message}` }]
      }
    }
    if (files.length === 0) issues.push({ source: path, path: "$", message: "no .json files to import" })
    for (const file of files) {
      const parsed = parseJsonText(basename(file), readFileSync(file, "utf8"))
      if (Result.isSuccess(parsed)) sources.push(parsed.success)
      else issues.push(parsed.failure)
    }
    return { sources, issues }
  })

/**
 * The plan of the files at `path`, or every issue found. The decoded input
 * lives only in here, so that it can be freed while the plan is written.
 */
const planOf = (path: string, options: ImportValidateOptions) =>
  Effect.gen(function* () {
    const { decoded, names, issues } = yield* readDecoded(path, options.spill)
    if (issues.length > 0) return { _tag: "Invalid" as const, issues }
    const importer = yield* Importer
    return yield* importer.validateDecoded(decoded, names, options).pipe(
      Effect.map((plan) => ({ _tag: "Valid" as const, plan })),
      Effect.catchTag("ImportInvalid", (e) => Effect.succeed({ _tag: "Invalid" as const, issues: e.issues }))
    )
  })

/**
 * Imports the files at `path`: validates them all, then (unless refused or a
 * dry run) writes them in one transaction. The answers and records it holds
 * meanwhile go to a spill file (ImportSpillFile.ts), so that its memory does
 * not grow with the input; a spill that fails rejects the import, nothing written.
 */
export const importPath = (
  path: string,
  progress?: ImportProgressOptions["onProgress"],
  options: ImportPathOptions = {}
) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      Result.try({ try: () => (options.spill ?? spillFile)(), catch: (e) => e as ImportSpillFailed })
    ),
    (spill) =>
      Result.isFailure(spill)
        ? Effect.succeed(spillRejected(spill.failure))
        : importWith(path, progress, options, spill.success).pipe(
            Effect.catchCauseIf(
              (cause) => spillFailureIn(cause) !== undefined,
              (cause) => Effect.succeed(spillRejected(spillFailureIn(cause)!))
            )
          ),
    (spill) => Effect.sync(() => Result.isSuccess(spill) && spill.success.close())
  )

/**
 * The spill's failure behind a cause, if that is what ended the import: a
 * defect where the domain read or wrote it, or the cause of a store's error
 * where a write was reading it (a COPY's rows).
 */
export const spillFailureIn = (cause: Cause.Cause<unknown>): ImportSpillFailed | undefined => {
  const find = (u: unknown, depth: number): ImportSpillFailed | undefined => {
    if (u instanceof ImportSpillFailed) return u
    if (depth === 0 || typeof u !== "object" || u === null) return undefined
    const o = u as { readonly cause?: unknown; readonly reason?: unknown }
    return find(o.cause, depth - 1) ?? find(o.reason, depth - 1)
  }
  for (const reason of cause.reasons) {
    const found =
      reason._tag === "Die"
        ? find(reason.defect, 4)
        : reason._tag === "Fail"
          ? find(reason.error, 4)
          : undefined
    if (found !== undefined) return found
  }
  return undefined
}

const spillRejected = (e: ImportSpillFailed): ImportOutcome => ({
  _tag: "Rejected",
  issues: [{ source: "import", path: "$", message: e.message }]
})

const importWith = (
  path: string,
  progress: ImportProgressOptions["onProgress"] | undefined,
  options: ImportPathOptions,
  spill: ChunkSpill
) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    let deliveries = 0
    const runOptions: ImportProgressOptions = {
      ...(progress === undefined ? {} : { onProgress: progress }),
      onDeliveries: (n) => {
        deliveries += n
      }
    }
    const catalogues = options.replace?.has("questions") === true ? "replace" : "merge"
    const plan = yield* planOf(path, { ...runOptions, catalogues, spill })
    if (plan._tag === "Invalid")
      return { _tag: "Rejected", issues: plan.issues } satisfies ImportOutcome as ImportOutcome
    options.afterValidation?.()
    const dryRun = options.dryRun === true
    const removals = removalsOf(plan.plan)
    const refusal = refusalOf(removals, options.replace ?? new Set())
    if (refusal !== undefined)
      return { _tag: "Refused", removals, message: refusal, dryRun } satisfies ImportOutcome as ImportOutcome
    const report = yield* (dryRun ? importer.rehearse : importer.apply)(plan.plan, runOptions)
    return { _tag: "Imported", report, deliveries, removals, dryRun } satisfies ImportOutcome as ImportOutcome
  })

export const formatIssues = (issues: ReadonlyArray<ImportIssue>): string =>
  [`import rejected: ${issues.length} error(s), nothing was written`, ...issues.map(formatImportIssue)].join(
    "\n"
  )
