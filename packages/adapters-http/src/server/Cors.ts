/**
 * Cross-origin access (spec part 1 rule 1): public read endpoints are
 * callable from browsers on any origin, `Access-Control-Allow-Origin: *`.
 * Applied at the router, outside every route, so that it covers every
 * response (errors, 401s of authentication, 429s, unknown paths) and answers
 * preflights before routing: a preflight carries no credentials and is not
 * counted against any rate limit. No credentials mode: the wildcard origin
 * forbids it, and the API does not use cookies; a bearer key sent by script
 * is an ordinary header.
 */
import { HttpRouter } from "effect/http"

/** The methods of the API: GET, and POST and DELETE for the alert-rule routes. */
export const CorsAllowedMethods = ["GET", "HEAD", "POST", "DELETE", "OPTIONS"] as const

/** What the API reads: Authorization (a fetch with a key preflights), JSON bodies, revalidation by script. */
export const CorsAllowedHeaders = ["authorization", "content-type", "accept", "if-none-match"] as const

/**
 * Exposed to scripts: the rate-limit headers, Retry-After, the validators,
 * the attribution, and an export's watermark id and file name, so a dashboard
 * can keep them with the file it saves (Cache-Control and Content-Type are
 * exposed anyway).
 */
export const CorsExposedHeaders = [
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "retry-after",
  "etag",
  "link",
  "x-attribution",
  "x-export-id",
  "content-disposition"
] as const

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours). */
export const CorsMaxAgeSeconds = 7200

export const CorsOptions = {
  allowedOrigins: [],
  allowedMethods: CorsAllowedMethods,
  allowedHeaders: CorsAllowedHeaders,
  exposedHeaders: CorsExposedHeaders,
  maxAge: CorsMaxAgeSeconds,
  credentials: false
}

/** The router-wide CORS middleware (Effect's HttpMiddleware.cors with the options above). */
export const Cors = HttpRouter.cors(CorsOptions)
