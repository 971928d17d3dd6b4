/**
 * The fields an export or a comparison may ask for (spec part 4 "Export
 * parameters"), and the parser of the comma-separated `fields` parameter.
 */
import { Result } from "effect"

export const ExportFieldNames = [
  "slug",
  "name",
  "grade",
  "letter_grade",
  "composite_score",
  "domain_scores",
  "last_rated_at"
] as const
export type ExportField = (typeof ExportFieldNames)[number]

/** The watermark column every export row carries (spec: a hidden __export_id column). */
export const WatermarkField = "__export_id"

export const ExportLimit = { min: 1, max: 5000, default: 1000 } as const
export const ExportQuota = { exports: 5, windowMs: 24 * 60 * 60 * 1000 } as const

/**
 * Parses `fields`: comma-separated names from the list, surrounding spaces
 * ignored, duplicates kept once in first-seen order. Fails with a reason that
 * names every unknown field and the allowed ones.
 */
export const parseFields = (raw: string): Result.Result<ReadonlyArray<ExportField>, string> => {
  const parts = raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
  if (parts.length === 0)
    return Result.fail(`fields must name at least one of: ${ExportFieldNames.join(", ")}`)
  const unknown = parts.filter((p) => !(ExportFieldNames as ReadonlyArray<string>).includes(p))
  if (unknown.length > 0) {
    return Result.fail(`unknown field(s) ${unknown.join(", ")}; allowed: ${ExportFieldNames.join(", ")}`)
  }
  return Result.succeed([...new Set(parts)] as ReadonlyArray<ExportField>)
}
