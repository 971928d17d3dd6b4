/**
 * What an import reports when its input is refused: one issue per problem,
 * each naming the source file, the JSON path of the offending value
 * (`$.entities[3].record.slug`) and a reason an operator can act on. Schema
 * failures are flattened into the same shape, so a file with ten mistakes
 * yields ten issues, not one nested message.
 */
import { Schema, SchemaIssue } from "effect"

export const ImportIssue = Schema.Struct({
  source: Schema.String,
  path: Schema.String,
  message: Schema.String,
  /** Set on JSON syntax errors only: where in the text the parser stopped (1-based). */
  line: Schema.optionalKey(Schema.Int),
  column: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "ImportIssue" })
export type ImportIssue = typeof ImportIssue.Type

/** The import was refused: nothing was written. Carries every issue found. */
export class ImportInvalid extends Schema.TaggedError<ImportInvalid>()("ImportInvalid", {
  issues: Schema.Array(ImportIssue),
  message: Schema.String
}) {}

export const importInvalid = (issues: ReadonlyArray<ImportIssue>): ImportInvalid =>
  new ImportInvalid({
    issues,
    message: `the import was refused with ${issues.length} error${issues.length === 1 ? "" : "s"}; nothing was written`
  })

/** One line per issue, as a terminal shows it; a syntax error's message already says where. */
export const formatImportIssue = (issue: ImportIssue): string =>
  issue.line === undefined
    ? `${issue.source}: ${issue.path}: ${issue.message}`
    : `${issue.source}: ${issue.message}`

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/u

/** A JSON path in the common `$.a[0].b` notation; keys that are not identifiers are quoted: `$.urls["home page"]`. */
export const jsonPath = (segments: ReadonlyArray<PropertyKey>, root = "$"): string => {
  const parts = [root]
  for (const s of segments) {
    if (typeof s === "number") parts.push(`[${s}]`)
    else if (typeof s === "string" && IDENTIFIER.test(s)) parts.push(`.${s}`)
    else parts.push(`[${JSON.stringify(String(s))}]`)
  }
  // Joined, not added up: one flat text, where `+=` leaves a tree of pieces,
  // and an import keeps the path of each of its items.
  return parts.join("")
}

const MISSING = "\u0000missing"
const UNEXPECTED = "\u0000unexpected"
const MAX_MESSAGE = 300

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "MissingKey"
      ? MISSING
      : issue._tag === "UnexpectedKey"
        ? UNEXPECTED
        : SchemaIssue.defaultLeafHook(issue)
})

const keyName = (path: ReadonlyArray<PropertyKey>): string => String(path[path.length - 1] ?? "")

// Reported inputs make messages concrete ("got \"Aave V3\""), but a whole
// record echoed back would bury the reason.
const shorten = (message: string): string =>
  message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…`

/** Flattens a schema issue into import issues; `base` is the path of the decoded value inside the file. */
export const schemaIssues = (
  source: string,
  issue: SchemaIssue.Issue,
  base: ReadonlyArray<PropertyKey> = []
): Array<ImportIssue> =>
  formatter(issue).issues.map((i) => {
    const path = [...base, ...(i.path ?? []).map((p) => (typeof p === "object" ? p.key : p))]
    const message =
      i.message === MISSING
        ? `missing required key "${keyName(path)}"`
        : i.message === UNEXPECTED
          ? `unknown key "${keyName(path)}": the import format has no such field here`
          : shorten(i.message)
    return { source, path: jsonPath(path), message }
  })
