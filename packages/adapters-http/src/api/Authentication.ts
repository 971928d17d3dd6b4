/**
 * How callers authenticate (spec part 5), as the contract declares it: an
 * optional `Authorization: Bearer <token>` on every route, where the token is
 * an API key or an identity-provider JWT, and the 401s a credential that does
 * not work gets. Client-safe: the server side is server/Authentication.ts.
 *
 * The middleware provides CurrentCaller to every handler; without the header
 * the caller is anonymous, so public routes need nothing (rule 1). A header
 * that is present must work, on every route: a client that sent a broken key
 * learns it at once instead of being served silently as anonymous.
 */
import { InvalidKeyBody, InvalidTokenBody } from "@ratings/domain/model/ErrorBodies"
import { ErrorReporter, Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { CurrentCaller } from "./CurrentCaller.ts"
import { RateLimitedError, ServiceUnavailableError } from "./Errors.ts"

/** 401 `{"detail": {"error": "invalid_key"}}`: an API key that is unknown, revoked or malformed. */
export class InvalidKeyError extends Schema.Error<InvalidKeyError>("InvalidKeyError")(InvalidKeyBody, {
  httpApiStatus: 401,
  description: "Unauthorized: the API key sent is unknown or revoked"
}) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new InvalidKeyError({ detail: { error: "invalid_key" } })
}

/** 401 `{"detail": {"error": "invalid_token"}}`: a bearer credential that is neither a key nor a valid JWT. */
export class InvalidTokenError extends Schema.Error<InvalidTokenError>("InvalidTokenError")(
  InvalidTokenBody,
  {
    httpApiStatus: 401,
    description: "Unauthorized: the bearer token is not a valid identity-provider token"
  }
) {
  override readonly [ErrorReporter.ignore] = true
  static readonly instance = new InvalidTokenError({ detail: { error: "invalid_token" } })
}

/** The scheme's name in the OpenAPI document (`components.securitySchemes`). */
export const BearerSchemeName = "bearer"

/**
 * `HttpApiSecurity.bearer` with its scheme written `bearer`, as OpenAPI's
 * examples and the IANA registry write it: the docs viewer offers a token
 * field only for that spelling. The header is read the same either way (the
 * scheme is matched ignoring case).
 */
const Bearer = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "Optional on every route. An API key (`rk_...`) gives its tier (Free, Pro, Enterprise); a JWT from the " +
      "configured identity provider whose role is admin or super_admin enables the admin bypass. Without " +
      "the header the caller is anonymous. A header that is sent must work: otherwise 401."
  )
)

/**
 * Applied to the whole API. It fails only for a credential that does not work
 * (401), when a credential cannot be checked right now (503: the key store
 * or the identity provider's key set is unreachable), or when the client's
 * address has used its anonymous allowance on credentials that failed (429,
 * before the credential is checked: ADR 0006 "Failed credentials").
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentCaller }>()(
  "@ratings/adapters-http/Authentication",
  {
    security: { [BearerSchemeName]: Bearer },
    error: [InvalidKeyError, InvalidTokenError, ServiceUnavailableError, RateLimitedError]
  }
) {}

// biome-ignore lint/suspicious/noExplicitAny: the generated document is plain JSON, walked untyped
type Json = Record<string, any>

const AuthorizationHeaderDoc = {
  name: "authorization",
  in: "header",
  required: false,
  description:
    "Optional: `Bearer <API key>` or `Bearer <identity-provider JWT>`. Public routes accept anonymous " +
    "calls; a header that is sent must work, or the answer is 401.",
  schema: { type: "string" }
} as const

/**
 * The generator marks a security scheme as required (`security: [{bearer: []}]`).
 * Spec part 5 rule 2 makes it optional on every route, which OpenAPI says with
 * an empty alternative (`[{}, {bearer: []}]`); the header is also listed as an
 * optional parameter, as the spec words it.
 */
export const documentOptionalBearer = (spec: Json): Json => {
  for (const item of Object.values((spec.paths ?? {}) as Json)) {
    for (const op of Object.values(item as Json)) {
      if (typeof op !== "object" || op === null || !Array.isArray(op.security)) continue
      const requirements = op.security as Array<Json>
      if (!requirements.some((r) => BearerSchemeName in r)) continue
      if (!requirements.some((r) => Object.keys(r).length === 0)) op.security = [{}, ...requirements]
      if (!Array.isArray(op.parameters)) op.parameters = []
      const parameters: Array<Json> = op.parameters
      if (!parameters.some(isAuthorizationParameter)) parameters.push({ ...AuthorizationHeaderDoc })
    }
  }
  return spec
}

const isAuthorizationParameter = (p: Json): boolean =>
  p.in === "header" && String(p.name).toLowerCase() === "authorization"

/**
 * The document as the docs viewer shows it: without the header parameter
 * `documentOptionalBearer` lists, since the viewer writes the header from the
 * bearer scheme (the key pasted in "Try it") and would add the parameter as a
 * second, empty `authorization` header to every code sample.
 */
export const withoutAuthorizationParameter = (spec: Json): Json => {
  for (const item of Object.values((spec.paths ?? {}) as Json))
    for (const op of Object.values(item as Json))
      if (typeof op === "object" && op !== null && Array.isArray(op.parameters))
        op.parameters = op.parameters.filter((p: Json) => !isAuthorizationParameter(p))
  return spec
}
