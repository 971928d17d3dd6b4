/**
 * The fields an export or a comparison may ask for (spec part 4 "Export
 * parameters"), and the parser of the comma-separated `fields` parameter.
 */
import { Result, Schema } from "effect"
import { IsoDateTime, Percent } from "./Primitives.ts"
import { DomainScores, LetterGrade } from "./Scorecard.ts"

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

/**
 * One record of `/export.json` and one item of `/compare`: the requested
 * fields (each from the entity's latest published scorecard; null while it has
 * none), and on exports the `__export_id` watermark.
 */
const exportFieldSchemas = {
  slug: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String),
  grade: Schema.optionalKey(Schema.NullOr(LetterGrade)),
  letter_grade: Schema.optionalKey(Schema.NullOr(LetterGrade)),
  composite_score: Schema.optionalKey(Schema.NullOr(Percent)),
  domain_scores: Schema.optionalKey(Schema.NullOr(DomainScores)),
  last_rated_at: Schema.optionalKey(Schema.NullOr(IsoDateTime))
}

export const ExportedRecord = Schema.Struct({
  ...exportFieldSchemas,
  __export_id: Schema.String.annotate({
    description:
      "Watermark of this export: the same on every record, recorded with who exported what and when"
  })
}).annotate({ identifier: "ExportRecord", description: "One exported entity: the requested fields" })
export type ExportedRecord = typeof ExportedRecord.Type

export const ComparedItem = Schema.Struct({
  id: Schema.String.annotate({ description: "The entity's stable id" }),
  ...exportFieldSchemas
}).annotate({
  identifier: "CompareItem",
  description: "One compared entity: its id and the requested fields"
})

export const CompareBody = Schema.Struct({ items: Schema.Array(ComparedItem) }).annotate({
  identifier: "CompareBody",
  description: "The compared entities, in the order of the ids parameter"
})
export type CompareBody = typeof CompareBody.Type
