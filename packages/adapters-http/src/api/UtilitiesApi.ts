/**
 * The Pro and Enterprise utilities of spec part 4 that read ratings: bulk
 * export (CSV and JSON, Pro) and comparison (Enterprise). Alert rules live in
 * AlertRulesApi.ts.
 *
 * Parameters are checked here so that every rejection is a 422 naming the
 * parameter: `entity` (singular or plural type name), `fields` (a
 * comma-separated list drawn from the spec's seven names), `limit` (1 to
 * 5000), and compare's `ids` (1 to 25 ids or slugs separated by commas; ids and
 * slugs never contain a comma).
 */
import { EntityTypes, entityTypeFromName, PluralOf } from "@ratings/domain/model/EntityType"
import { RateLimitedBody } from "@ratings/domain/model/ErrorBodies"
import {
  CompareBody,
  ExportedRecord,
  ExportFieldNames,
  ExportLimit,
  ExportQuota,
  parseFields
} from "@ratings/domain/model/ExportFields"
import { CompareIds, CompareIdsSeparator } from "@ratings/domain/services/CompareService"
import { ErrorReporter, Result, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InsufficientTierError, MissingKeyError, ServiceUnavailableError } from "./Errors.ts"
import {
  documentParameters,
  IntegerParam,
  invalidParameter,
  type ParameterDocs,
  TextParam
} from "./Parameters.ts"
import { both, documentExamples } from "./Examples.ts"
import { ServiceExamples } from "./examples/ServiceExamples.ts"

const typeNames = EntityTypes.map((t) => `${t} (${PluralOf[t]})`).join(", ")

/** An entity type by its singular or plural name, any case. */
export const EntityParam = Schema.String.check(
  Schema.makeFilter((text: string) =>
    entityTypeFromName(text) === undefined
      ? invalidParameter("enum", `Input should be an entity type, singular or plural: ${typeNames}`, text)
      : undefined
  )
)

/** A comma-separated list of the export fields; unknown names are listed in the message. */
export const FieldsParam = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = parseFields(text)
    return Result.isFailure(parsed) ? invalidParameter("value_error", parsed.failure, text) : undefined
  })
)

/** The identifiers of `ids`, trimmed, empty entries dropped, duplicates kept once in first order. */
export const splitIds = (text: string): ReadonlyArray<string> => [
  ...new Set(
    text
      .split(CompareIdsSeparator)
      .map((s) => s.trim())
      .filter((s) => s !== "")
  )
]

export const IdsParam = TextParam.check(
  Schema.makeFilter((text: string) => {
    const ids = splitIds(text)
    if (ids.length < CompareIds.min)
      return invalidParameter("value_error", "ids must name at least one id or slug", text)
    if (ids.length > CompareIds.max)
      return invalidParameter(
        "value_error",
        `ids names ${ids.length} entities; at most ${CompareIds.max} can be compared at once`,
        text
      )
    const long = ids.find((id) => id.length > 200)
    return long === undefined
      ? undefined
      : invalidParameter("value_error", "each id or slug is at most 200 characters", text)
  })
)

const ExportLimitParam = IntegerParam({ minimum: ExportLimit.min, maximum: ExportLimit.max })

const exportDocs: ParameterDocs = {
  entity: {
    schema: Schema.Literals([...EntityTypes, ...EntityTypes.map((t) => PluralOf[t])]),
    description: "Entity type, singular or plural (protocol or protocols, ...). Required."
  },
  fields: {
    schema: Schema.String,
    description: `Comma-separated list drawn from ${ExportFieldNames.join(", ")}. Required.`
  },
  limit: {
    schema: ExportLimitParam,
    description: `Most entities exported, ${ExportLimit.min} to ${ExportLimit.max}`,
    default: ExportLimit.default
  }
}

const compareDocs: ParameterDocs = {
  entity: exportDocs.entity!,
  fields: exportDocs.fields!,
  ids: {
    schema: Schema.String,
    description:
      `Ids (UUID) or slugs of ${CompareIds.min} to ${CompareIds.max} entities of that type, separated by ` +
      `commas (${CompareIdsSeparator}), for example ids=aave-v3,compound-v3. Required.`
  }
}

export const ExportQueryFields = {
  entity: EntityParam,
  fields: FieldsParam,
  limit: Schema.optionalKey(ExportLimitParam)
}

export const CompareQueryFields = { entity: EntityParam, ids: IdsParam, fields: FieldsParam }

export const ExportQuotaBody = Schema.Struct({
  detail: Schema.Struct({
    error: Schema.Literal("export_quota_exceeded"),
    retry_after: RateLimitedBody.fields.detail.fields.retry_after,
    quota: Schema.Int.annotate({ description: "Exports allowed per rolling 24 hours" })
  })
}).annotate({
  identifier: "ExportQuotaBody",
  description: `429: the account has made ${ExportQuota.exports} exports in the last 24 hours`,
  examples: [{ detail: { error: "export_quota_exceeded", retry_after: 3600, quota: ExportQuota.exports } }]
})

/** 429: the bulk export quota (spec part 8: 5 per rolling 24 hours, every tier). `Retry-After` is set. */
export class ExportQuotaError extends Schema.Error<ExportQuotaError>("ExportQuotaError")(ExportQuotaBody, {
  httpApiStatus: 429,
  description:
    `Too many exports: ${ExportQuota.exports} per account per rolling 24 hours, every tier. ` +
    "`Retry-After` gives the seconds until the oldest export leaves the window."
}) {
  override readonly [ErrorReporter.ignore] = true
}

export const CompareNotFoundBody = Schema.Struct({
  detail: Schema.Literal("not found"),
  identifiers: Schema.Array(Schema.String).annotate({
    description: "The identifiers sent that name no entity the caller may compare"
  })
}).annotate({
  identifier: "CompareNotFoundBody",
  description:
    "404: some identifiers name no published entity of the type. Unknown, private, inactive and unpublished " +
    "entities are answered alike, so nothing reveals that a draft exists.",
  examples: [{ detail: "not found", identifiers: ["aave-v9"] }]
})

export class CompareNotFoundError extends Schema.Error<CompareNotFoundError>("CompareNotFoundError")(
  CompareNotFoundBody,
  { httpApiStatus: 404, description: "Not found: an identifier names no published entity of the type" }
) {
  override readonly [ErrorReporter.ignore] = true
}

const ExportErrors = [
  MissingKeyError,
  InsufficientTierError,
  ServiceUnavailableError,
  ExportQuotaError
] as const

const exportDescription = (format: string) =>
  `Published entities of one type (public and active), at most limit, in slug order, with the requested ` +
  `fields from each one's latest published scorecard (null while unrated), as ${format}. Every export ` +
  `carries its own __export_id watermark (also in the X-Export-Id header) and is recorded with who ` +
  `exported what and when (account and API key), so a leaked file can be traced. Quota: ` +
  `${ExportQuota.exports} exports per account per rolling 24 hours, every tier; the next one is a 429 ` +
  "with Retry-After. Tier: Pro and above."

const exportExamples = (body: unknown) => ({
  parameters: { entity: "protocols", fields: "grade,composite_score", limit: 1 },
  responses: { 200: body }
})

export class UtilitiesApi extends HttpApiGroup.make("utilities").add(
  HttpApiEndpoint.get("exportCsv", "/export.csv", {
    query: ExportQueryFields,
    success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/csv; charset=utf-8" })),
    error: ExportErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Bulk export as CSV",
      description:
        exportDescription("RFC 4180 CSV (header row, CRLF line ends, quoted where needed)") +
        " domain_scores is a JSON object in its cell.",
      override: { "x-required-tier": "pro" },
      transform: both(
        documentParameters(exportDocs),
        documentExamples(exportExamples(ServiceExamples.exportCsv))
      )
    })
  ),
  HttpApiEndpoint.get("exportJson", "/export.json", {
    query: ExportQueryFields,
    success: Schema.Array(ExportedRecord),
    error: ExportErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Bulk export as JSON",
      description: exportDescription("a JSON array of records"),
      override: { "x-required-tier": "pro" },
      transform: both(
        documentParameters(exportDocs),
        documentExamples(exportExamples(ServiceExamples.exportJson))
      )
    })
  ),
  HttpApiEndpoint.get("compare", "/compare", {
    query: CompareQueryFields,
    success: CompareBody,
    error: [MissingKeyError, InsufficientTierError, ServiceUnavailableError, CompareNotFoundError]
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Compare entities",
      description:
        "Each entity's requested fields (grade, composite_score, domain_scores, last_rated_at, ...) from its " +
        "latest published scorecard, in the order of ids. Any identifier that names no published entity " +
        "makes the whole request a 404 that lists the identifiers, answering unknown and unpublished " +
        "entities alike. Tier: Enterprise.",
      override: { "x-required-tier": "enterprise" },
      transform: both(
        documentParameters(compareDocs),
        documentExamples({
          parameters: { entity: "protocols", ids: "aave-v4,aave-v3", fields: "grade,composite_score" },
          responses: { 200: ServiceExamples.compare }
        })
      )
    })
  )
) {}
