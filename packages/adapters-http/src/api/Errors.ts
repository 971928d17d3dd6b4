/**
 * The error responses of the read API with their statuses, FastAPI-style
 * (api-facts "Conventions"): clients branch on the status and read `detail`.
 * Each class encodes to exactly its body (no `_tag`), so the wire shape is the
 * domain's ErrorBodies schema and the OpenAPI document names it.
 *
 * Client-safe: the typed client decodes these from responses.
 */
import {
  InsufficientTierBody,
  MissingKeyBody,
  NotFoundBody,
  RateLimitedBody,
  ValidationErrorBody
} from "@ratings/domain/model/ErrorBodies"
import { ErrorReporter, Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"

/**
 * 429 `{"detail": {"error": "rate_limited", "retry_after": N}}`, with
 * `Retry-After: N` and the RateLimit headers (server/RateLimit.ts).
 */
export class RateLimitedError extends Schema.Error<RateLimitedError>("RateLimitedError")(RateLimitedBody, {
  httpApiStatus: 429,
  description:
    "Too many requests: the caller's request rate is exhausted (for a credential that fails, the client " +
    "address's anonymous allowance, /health included). `Retry-After` gives the seconds to wait; " +
    "every response carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`."
}) {
  override readonly [ErrorReporter.ignore] = true
}

/** 404 `{"detail": "not found"}`: unknown, hidden, or (for non-admins) not published, all alike. */
export class NotFoundError extends Schema.Error<NotFoundError>("NotFoundError")(NotFoundBody, {
  httpApiStatus: 404,
  description: "Not found: no such record, or one the caller may not see (answered exactly alike)"
}) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new NotFoundError({ detail: "not found" })
}

/** 401 `{"detail": {"error": "missing_key"}}`: a tier-gated route called without an API key. */
export class MissingKeyError extends Schema.Error<MissingKeyError>("MissingKeyError")(MissingKeyBody, {
  httpApiStatus: 401,
  description: "Unauthorized: the route needs an API key and none was sent"
}) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new MissingKeyError({ detail: { error: "missing_key" } })
}

/** 403 `{"detail": {"error": "insufficient_tier", "required_tier", "tier"}}`. */
export class InsufficientTierError extends Schema.Error<InsufficientTierError>("InsufficientTierError")(
  InsufficientTierBody,
  {
    httpApiStatus: 403,
    description: "Forbidden: the API key's tier is below the route's"
  }
) {
  override readonly [ErrorReporter.ignore] = true
}

export const ServiceUnavailableBody = Schema.Struct({
  detail: Schema.Literal("service unavailable")
}).annotate({
  identifier: "ServiceUnavailableBody",
  description: "503: the service cannot answer right now (its store is unreachable); retry later",
  examples: [{ detail: "service unavailable" }]
})
export type ServiceUnavailableBody = typeof ServiceUnavailableBody.Type

/** 503 `{"detail": "service unavailable"}`: the store failed. Nothing of the failure is shown. */
export class ServiceUnavailableError extends Schema.Error<ServiceUnavailableError>("ServiceUnavailableError")(
  ServiceUnavailableBody,
  {
    httpApiStatus: 503,
    description: "Service unavailable: the data store cannot be reached; retry later"
  }
) {
  static readonly instance = new ServiceUnavailableError({ detail: "service unavailable" })
}

/** 422 `{"detail": [{"type", "loc", "msg", "input"}]}`: a parameter or path segment failed validation. */
export class ValidationError extends Schema.Error<ValidationError>("ValidationError")(ValidationErrorBody, {
  httpApiStatus: 422,
  description: "Validation error: a parameter or path segment is invalid (what, where and why)"
}) {
  override readonly [ErrorReporter.ignore] = true
}

/**
 * The one place decode failures become 422s: applied to the whole API, it
 * declares the 422 on every route (and so in the document and the client); its
 * server side (server/ErrorMapping.ts) maps each failed parameter to a
 * FastAPI-style entry. Without it a bad parameter would be an empty 400.
 */
export class ValidationErrors extends HttpApiMiddleware.Service<ValidationErrors>()(
  "@ratings/adapters-http/ValidationErrors",
  { error: ValidationError }
) {}

/**
 * Refuses a JSON request body holding a number beyond the range of a double
 * (`1e400` parses to Infinity) with a 422 of type `finite_number` at each such
 * number, wherever it is, before the body is decoded: a schema would refuse
 * it only where it expects a number, and echo Infinity, which no JSON can
 * carry. Its server side is server/ErrorMapping.ts.
 */
export class FiniteNumbers extends HttpApiMiddleware.Service<FiniteNumbers>()(
  "@ratings/adapters-http/FiniteNumbers",
  { error: ValidationError }
) {}

/** Errors of a list route: only the store can fail it (bad parameters are the middleware's 422). */
export const ListErrors = [ServiceUnavailableError] as const

/** Errors of a route that looks one entity or scorecard up. */
export const ReadErrors = [NotFoundError, ServiceUnavailableError] as const

/** Errors of a tier-gated route (spec part 5 rule 3): 401 without a key, 403 below the tier. */
export const GatedReadErrors = [MissingKeyError, InsufficientTierError, ...ReadErrors] as const
