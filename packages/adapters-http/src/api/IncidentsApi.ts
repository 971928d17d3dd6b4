/**
 * Hack incidents (spec part 4 "Incidents", part 2 "Incident", part 3
 * "Incident tier"; api-facts "Incidents"): the public feed, and the operators'
 * ingest route that takes one source's report.
 *
 * `since` is checked here with the domain's own parser, so a `+00:00` offset
 * that arrived unencoded (a raw `+` decodes to a space) is a 422 that says so,
 * never a silently wrong filter. `min_status` outside the three tiers is a 422
 * (spec part 7).
 */
import { IncidentTier, IncidentTiers } from "@ratings/domain/incidents/IncidentTier"
import { AdminRequiredBody } from "@ratings/domain/model/ErrorBodies"
import {
  FeedLimitDefault,
  FeedLimitMax,
  IncidentFeedPage,
  IncidentIngestResult,
  IncidentReport,
  parseZonedDateTime
} from "@ratings/domain/model/Incident"
import { ErrorReporter, Result, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ListErrors } from "./Errors.ts"
import { both, documentExamples } from "./Examples.ts"
import { IncidentIngestExample, IncidentReportExample } from "./examples/AccountExamples.ts"
import { ServiceExamples } from "./examples/ServiceExamples.ts"
import {
  documentParameters,
  IntegerParam,
  invalidParameter,
  type ParameterDoc,
  TextParam
} from "./Parameters.ts"

/** An ISO 8601 date-time with a zone; the message says what was wrong (a space where a `+` was, say). */
export const SinceParam = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = parseZonedDateTime(text)
    return Result.isSuccess(parsed)
      ? undefined
      : invalidParameter("datetime_parsing", `Input should be a valid datetime: ${parsed.failure}`, text)
  })
)

const tierList = IncidentTiers.map((t) => `'${t}'`).join(", ")

/** rumored, corroborated or confirmed; anything else is a 422 listing them. */
export const MinStatusParam = Schema.String.check(
  Schema.makeFilter((text: string) =>
    (IncidentTiers as ReadonlyArray<string>).includes(text)
      ? undefined
      : invalidParameter("literal_error", `Input should be ${tierList}`, text)
  )
)

export const IncidentFeedParameterDocs: { readonly [name: string]: ParameterDoc } = {
  slug: { schema: TextParam, description: "Exact match on the rated-protocol slug" },
  since: {
    schema: Schema.String.annotate({ format: "date-time" }),
    description:
      "ISO 8601 date-time with seconds and a zone: only incidents detected strictly after it. " +
      "Percent-encode a +00:00 offset as %2B00%3A00 (a raw + arrives as a space and is rejected with 422)."
  },
  min_status: {
    schema: IncidentTier,
    description: "Lowest tier listed: rumored, corroborated or confirmed. Any other value is a 422.",
    default: "confirmed"
  },
  limit: {
    schema: IntegerParam({ minimum: 1, maximum: FeedLimitMax }),
    description: "Page size, 1 to 200",
    default: FeedLimitDefault
  },
  offset: { schema: IntegerParam({ minimum: 0 }), description: "Number of incidents to skip", default: 0 }
}

export const IncidentFeedQueryFields = {
  slug: Schema.optionalKey(TextParam),
  since: Schema.optionalKey(SinceParam),
  min_status: Schema.optionalKey(MinStatusParam),
  limit: Schema.optionalKey(IntegerParam({ minimum: 1, maximum: FeedLimitMax })),
  offset: Schema.optionalKey(IntegerParam({ minimum: 0 }))
}

/** 401 `{"detail": {"error": "admin_required"}}`: an operators' route called without credentials. */
export class AdminTokenMissingError extends Schema.Error<AdminTokenMissingError>("AdminTokenMissingError")(
  AdminRequiredBody,
  {
    httpApiStatus: 401,
    description: "Unauthorized: the route needs an admin bearer JWT and none was sent"
  }
) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new AdminTokenMissingError({ detail: { error: "admin_required" } })
}

/** 403 `{"detail": {"error": "admin_required"}}`: an operators' route called with an API key. */
export class AdminRequiredError extends Schema.Error<AdminRequiredError>("AdminRequiredError")(
  AdminRequiredBody,
  {
    httpApiStatus: 403,
    description: "Forbidden: API keys of any tier cannot call operators' routes; an admin JWT is needed"
  }
) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new AdminRequiredError({ detail: { error: "admin_required" } })
}

export class IncidentsApi extends HttpApiGroup.make("incidents").add(
  HttpApiEndpoint.get("feed", "/incidents", {
    query: IncidentFeedQueryFields,
    success: IncidentFeedPage,
    error: ListErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Hack incidents",
      description:
        "Hack incidents at protocols, newest first by detected_at, as {items, total}. Every incident at or " +
        "above min_status is listed, including ones at protocols the service does not rate (slug null, " +
        "matched_protocol false). An incident is served only once two independent sources back it; its " +
        "incident_id stays the same as it escalates (rumored, corroborated, confirmed; never down), and " +
        "detected_at is refreshed on each escalation, so a consumer polling with since and keying on " +
        "incident_id sees each escalation once. An incident never changes a rating. Public.",
      transform: both(
        documentParameters(IncidentFeedParameterDocs),
        documentExamples({
          parameters: {
            slug: "venus",
            since: "2026-07-01T00:00:00+00:00",
            min_status: "confirmed",
            limit: 10,
            offset: 0
          },
          responses: { 200: ServiceExamples.incidents }
        })
      )
    })
  ),
  HttpApiEndpoint.post("ingest", "/admin/incidents", {
    payload: IncidentReport,
    success: IncidentIngestResult,
    error: [AdminTokenMissingError, AdminRequiredError, ...ListErrors]
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Ingest one incident report (operators)",
      description:
        "One source's report about a hack. Reports about one hack aggregate into one incident; the " +
        "incident lifecycle decides every transition. The same nonce twice changes nothing. The nonce and " +
        "victim addresses are stored and never served. Needs an admin bearer JWT.",
      transform: documentExamples({
        request: IncidentReportExample,
        responses: { 200: IncidentIngestExample }
      })
    })
  )
) {}
