/**
 * `@ratings/domain/import-format`: the schemas of the files `ratings import`
 * reads (docs/import-format.md), so another tool can produce or check them,
 * and the same format as JSON Schema. Validation against a store stays inside
 * the service. The functions take any input: a value of the wrong shape is an
 * `InvalidInput` naming the field, never a throw.
 */
import { Result } from "effect"
import {
  formatImportIssue as formatIssue,
  type ImportIssue,
  jsonPath as pathOf
} from "../import/ImportIssue.ts"
import { checkNumber, invalid, isRecord } from "../scoring/InputGuard.ts"
import type { InvalidInput } from "../scoring/ScoringError.ts"

export {
  ImportDecodeOptions,
  ImportDependency,
  ImportEntity,
  ImportEntityRef,
  ImportEvidence,
  ImportFile,
  ImportFormatVersion,
  ImportHistory,
  ImportPublication,
  ImportQuantumSnapshot,
  ImportScorecard
} from "../import/ImportFile.ts"
export { ImportIssue } from "../import/ImportIssue.ts"
export { importJsonSchema, importJsonSchemaText } from "../import/ImportJsonSchema.ts"
export { InvalidInput } from "../scoring/ScoringError.ts"

/** One line per issue, as a terminal shows it: `source: $.path: message`. */
export const formatImportIssue = (issue: ImportIssue): Result.Result<string, InvalidInput> => {
  if (!isRecord(issue)) return Result.fail(invalid("issue", "an object with source, path and message", issue))
  for (const field of ["source", "path", "message"] as const) {
    if (typeof issue[field] !== "string")
      return Result.fail(invalid(`issue.${field}`, "a string", issue[field]))
  }
  for (const field of ["line", "column"] as const) {
    if (issue[field] === undefined) continue
    const n = checkNumber(`issue.${field}`, issue[field], 1)
    if (Result.isFailure(n)) return Result.fail(n.failure)
  }
  return Result.succeed(formatIssue(issue))
}

/** A JSON path in the common `$.a[0].b` notation; keys that are not identifiers are quoted: `$.urls["home page"]`. */
export const jsonPath = (
  segments: ReadonlyArray<string | number>,
  root = "$"
): Result.Result<string, InvalidInput> => {
  if (typeof root !== "string") return Result.fail(invalid("root", "a string", root))
  if (!Array.isArray(segments))
    return Result.fail(invalid("segments", "an array of keys and indexes", segments))
  for (let i = 0; i < segments.length; i++) {
    const s: unknown = segments[i]
    if (typeof s !== "string" && !(typeof s === "number" && Number.isInteger(s) && s >= 0))
      return Result.fail(invalid(`segments[${i}]`, "a string or an index (an integer >= 0)", s))
  }
  return Result.succeed(pathOf(segments, root))
}
