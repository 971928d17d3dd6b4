/**
 * Error bodies, FastAPI-style (api-facts): clients branch on the status code
 * and read `detail`. 404 carries a plain string; auth, tier and rate-limit
 * failures an object with an `error` code; 422 the list of validation errors.
 */
import { Schema } from "effect"
import { Tier } from "./Caller.ts"
import { NonNegativeInt } from "./Primitives.ts"

export const NotFoundBody = Schema.Struct({ detail: Schema.Literal("not found") }).annotate({
  identifier: "NotFoundBody",
  description: "404: no such record, or one the caller may not see",
  examples: [{ detail: "not found" }]
})
export type NotFoundBody = typeof NotFoundBody.Type

export const MissingKeyBody = Schema.Struct({
  detail: Schema.Struct({ error: Schema.Literal("missing_key") })
}).annotate({
  identifier: "MissingKeyBody",
  description: "401: the route needs an API key and none was sent",
  examples: [{ detail: { error: "missing_key" } }]
})
export type MissingKeyBody = typeof MissingKeyBody.Type

export const InvalidKeyBody = Schema.Struct({
  detail: Schema.Struct({ error: Schema.Literal("invalid_key") })
}).annotate({
  identifier: "InvalidKeyBody",
  description: "401: the API key sent is unknown or revoked",
  examples: [{ detail: { error: "invalid_key" } }]
})
export type InvalidKeyBody = typeof InvalidKeyBody.Type

export const InvalidTokenBody = Schema.Struct({
  detail: Schema.Struct({ error: Schema.Literal("invalid_token") })
}).annotate({
  identifier: "InvalidTokenBody",
  description:
    "401: the bearer credential is not a working API key or a valid identity-provider JWT (bad signature, " +
    "expired, wrong issuer or audience, algorithm not allowed, or no identity provider configured)",
  examples: [{ detail: { error: "invalid_token" } }]
})
export type InvalidTokenBody = typeof InvalidTokenBody.Type

export const UnauthorizedBody = Schema.Union([MissingKeyBody, InvalidKeyBody, InvalidTokenBody]).annotate({
  description: "401: missing or invalid API key"
})
export type UnauthorizedBody = typeof UnauthorizedBody.Type

export const InsufficientTierBody = Schema.Struct({
  detail: Schema.Struct({
    error: Schema.Literal("insufficient_tier"),
    required_tier: Tier.annotate({ description: "Lowest tier the route needs" }),
    tier: Tier.annotate({ description: "The caller's tier" })
  })
}).annotate({
  identifier: "InsufficientTierBody",
  description: "403: the caller's tier is below the route's",
  examples: [{ detail: { error: "insufficient_tier", required_tier: "enterprise", tier: "pro" } }]
})
export type InsufficientTierBody = typeof InsufficientTierBody.Type

export const AdminRequiredBody = Schema.Struct({
  detail: Schema.Struct({ error: Schema.Literal("admin_required") })
}).annotate({
  identifier: "AdminRequiredBody",
  description:
    "401 without credentials, 403 with an API key: the route is for operators and needs a bearer JWT of " +
    "the identity provider for a user whose role is admin or super_admin",
  examples: [{ detail: { error: "admin_required" } }]
})
export type AdminRequiredBody = typeof AdminRequiredBody.Type

export const RateLimitedBody = Schema.Struct({
  detail: Schema.Struct({
    error: Schema.Literal("rate_limited"),
    retry_after: NonNegativeInt.annotate({ description: "Seconds to wait before retrying" })
  })
}).annotate({
  identifier: "RateLimitedBody",
  description: "429: request rate limit exceeded",
  examples: [{ detail: { error: "rate_limited", retry_after: 12 } }]
})
export type RateLimitedBody = typeof RateLimitedBody.Type

export const ValidationIssue = Schema.Struct({
  type: Schema.String.annotate({ description: "Error type (for example less_than_equal, missing)" }),
  loc: Schema.Array(Schema.Union([Schema.String, Schema.Int])).annotate({
    description: 'Where the bad value is, for example ["query", "limit"]'
  }),
  msg: Schema.String,
  input: Schema.Unknown.annotate({ description: "The rejected value (null when it was missing)" }),
  ctx: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "ValidationIssue", description: "One validation failure" })
export type ValidationIssue = typeof ValidationIssue.Type

export const ValidationErrorBody = Schema.Struct({ detail: Schema.Array(ValidationIssue) }).annotate({
  identifier: "ValidationErrorBody",
  description: "422: a parameter, path segment or body failed validation",
  examples: [
    {
      detail: [
        {
          type: "less_than_equal",
          loc: ["query", "limit"],
          msg: "Input should be less than or equal to 200",
          input: "500",
          ctx: { le: 200 }
        }
      ]
    }
  ]
})
export type ValidationErrorBody = typeof ValidationErrorBody.Type
