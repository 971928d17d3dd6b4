/**
 * Reading the input of `ratings incidents ingest`: a JSON array of incident
 * reports, one report object, or JSON Lines (one report per line). Every
 * report is decoded before anything is ingested, and every problem is
 * reported with where it is (a JSON path such as `$[3].first_seen_at`, or a
 * line of a JSON Lines file), so the operator fixes the file in one pass and a
 * refused file writes nothing.
 *
 * Messages never carry a value from the input: schema messages are made
 * without the rejected input, and a JSON syntax error shows one character, so
 * a nonce or a victim address cannot reach the terminal through an error.
 */
import { Result, Schema, SchemaIssue } from "effect"
import { IncidentReport } from "../model/Incident.ts"
import { mayHoldNonFiniteNumber, NonFiniteJsonMessage, nonFinitePaths } from "../model/JsonNumbers.ts"
import { jsonPath } from "./ImportIssue.ts"
import { findJsonSyntaxError, lineAndColumn } from "./ImportJsonText.ts"

/** One decoded report and where it was in the input. */
export interface LocatedReport {
  /** 1-based position in file order. */
  readonly number: number
  /** `$[2]` in an array, `$` for a single object, `line 3` in JSON Lines. */
  readonly where: string
  readonly report: IncidentReport
}

interface RawItem {
  readonly number: number
  readonly where: string
  /** Prefix of the JSON paths of the item's issues: `$[2]` in an array, `$` otherwise. */
  readonly root: string
  readonly value: unknown
  /** Whether the text it was parsed from may hold a number beyond a double (1e400), so it is walked for one. */
  readonly mayHoldNonFinite: boolean
}

const BOM = "\uFEFF"

// Refusing unknown keys catches a misspelt optional field (`resolved` for
// `resolved_at`), which would otherwise be dropped without a word; the import
// format decodes incident reports the same way.
const decode = Schema.decodeUnknownResult(IncidentReport)
const DecodeOptions = { errors: "all", onExcessProperty: "error" } as const

const MISSING = "\u0000missing"
const UNEXPECTED = "\u0000unexpected"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "MissingKey"
      ? MISSING
      : issue._tag === "UnexpectedKey"
        ? UNEXPECTED
        : SchemaIssue.defaultLeafHook(issue)
})

const describe = (item: RawItem, path: string): string =>
  item.where === item.root
    ? `report ${item.number} (${path})`
    : `report ${item.number} (${item.where}, ${path})`

/** Schema issues at `skip` (paths already reported, as numbers beyond a double) are left out. */
const reportIssues = (
  name: string,
  item: RawItem,
  issue: SchemaIssue.Issue,
  skip: ReadonlySet<string>
): Array<string> =>
  formatter(issue).issues.flatMap((i) => {
    const segments = (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p))
    if (skip.has(jsonPath(segments, item.root))) return []
    const key = String(segments[segments.length - 1] ?? "")
    const message =
      i.message === MISSING
        ? `missing required key "${key}"`
        : i.message === UNEXPECTED
          ? `unknown key "${key}": an incident report has no such field`
          : i.message
    return [`${name}: ${describe(item, jsonPath(segments, item.root))}: ${message}`]
  })

/** `lineOffset` places one line of a JSON Lines text in its file, whose "end" is the end of that line. */
const syntaxIssue = (name: string, text: string, lineOffset?: number): string => {
  const found = findJsonSyntaxError(text) ?? { offset: 0, reason: "not valid JSON" }
  const { line, column } = lineAndColumn(text, found.offset)
  const reason =
    lineOffset === undefined
      ? found.reason
      : found.reason.replace("the end of the file", "the end of the line")
  return `${name}: invalid JSON at line ${line + (lineOffset ?? 0)}, column ${column}: ${reason}`
}

const tryParse = (text: string): Result.Result<unknown, undefined> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch {
    return Result.fail(undefined)
  }
}

const isObject = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The items of a JSON Lines text, or undefined when the text is not meant as
 * JSON Lines: it is when it has two or more non-blank lines and the first is
 * a JSON object on its own (a pretty-printed document's first line never is).
 */
const jsonLines = (name: string, body: string): Result.Result<Array<RawItem>, Array<string>> | undefined => {
  const lines = body.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
  const filled = lines.flatMap((text, i) => (text.trim() === "" ? [] : [{ text, line: i + 1 }]))
  const first = filled[0]
  if (filled.length < 2 || first === undefined) return undefined
  const head = tryParse(first.text)
  if (Result.isFailure(head) || !isObject(head.success)) return undefined
  const items: Array<RawItem> = []
  const issues: Array<string> = []
  for (const { text, line } of filled) {
    const parsed = tryParse(text)
    if (Result.isFailure(parsed)) issues.push(syntaxIssue(name, text, line - 1))
    else
      items.push({
        number: items.length + 1,
        where: `line ${line}`,
        root: "$",
        value: parsed.success,
        mayHoldNonFinite: mayHoldNonFiniteNumber(text)
      })
  }
  return issues.length > 0 ? Result.fail(issues) : Result.succeed(items)
}

const itemsOf = (name: string, text: string): Result.Result<Array<RawItem>, Array<string>> => {
  const body = text.startsWith(BOM) ? text.slice(1) : text
  if (body.trim() === "") return Result.fail([`${name}: the input is empty: expected incident reports`])
  const whole = tryParse(body)
  if (Result.isSuccess(whole)) {
    const value = whole.success
    const mayHoldNonFinite = mayHoldNonFiniteNumber(body)
    if (Array.isArray(value))
      return Result.succeed(
        value.map((v, i) => ({
          number: i + 1,
          where: `$[${i}]`,
          root: `$[${i}]`,
          value: v,
          mayHoldNonFinite
        }))
      )
    if (isObject(value))
      return Result.succeed([{ number: 1, where: "$", root: "$", value, mayHoldNonFinite }])
    return Result.fail([
      `${name}: expected a JSON array of incident reports, one report object, or JSON Lines (one report per line)`
    ])
  }
  return jsonLines(name, body) ?? Result.fail([syntaxIssue(name, body)])
}

/**
 * Every report of an input, decoded, in file order; or every problem of the
 * input (syntax errors first, as a file that does not parse has no reports to
 * check), each as one line naming the input.
 */
export const readIncidentReports = (
  name: string,
  text: string
): Result.Result<ReadonlyArray<LocatedReport>, ReadonlyArray<string>> => {
  const items = itemsOf(name, text)
  if (Result.isFailure(items)) return Result.fail(items.failure)
  const reports: Array<LocatedReport> = []
  const issues: Array<string> = []
  for (const item of items.success) {
    // A number beyond a double (1e400) reads as Infinity: said as such, not as a wrong type.
    const paths = item.mayHoldNonFinite ? nonFinitePaths(item.value) : []
    const nonFinite = new Set(paths.map((p) => jsonPath(p, item.root)))
    for (const path of nonFinite) issues.push(`${name}: ${describe(item, path)}: ${NonFiniteJsonMessage}`)
    const decoded = decode(item.value, DecodeOptions)
    if (Result.isSuccess(decoded) && nonFinite.size === 0)
      reports.push({ number: item.number, where: item.where, report: decoded.success })
    else if (Result.isFailure(decoded))
      issues.push(...reportIssues(name, item, decoded.failure.issue, nonFinite))
  }
  return issues.length > 0 ? Result.fail(issues) : Result.succeed(reports)
}
