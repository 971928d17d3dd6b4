/**
 * How many requests each kind of caller may make (spec part 8 "request
 * rate"; api-facts for anonymous callers and for coverage requests), as
 * plain data: the rate limiter of the HTTP adapter counts against these
 * windows, and its configuration may replace them per deployment.
 *
 * A keyed caller's kind is its key's tier, an admin's is admin, anyone else
 * is anonymous (`callerKind`); whose counter a request draws on (the key,
 * the admin, the client address) is the limiter's to say.
 */
import type { Duration } from "effect"
import type { CallerKind } from "../model/Caller.ts"

/** One counting window: at most `limit` requests per `window`. */
export interface RateWindow {
  readonly limit: number
  readonly window: Duration.Input
}

/** The windows that apply to each kind of caller (an empty list: not limited). */
export type RateLimitTable = { readonly [K in CallerKind]: ReadonlyArray<RateWindow> }

const perMinute = (limit: number): ReadonlyArray<RateWindow> => [{ limit, window: "1 minute" }]

/**
 * Per minute Free 300, Pro 1,000, Enterprise 10,000 (spec part 8);
 * anonymous 120 per minute and 20,000 per day, per client address (the live
 * service's published limit). Admins get the Enterprise rate: high enough
 * never to be in the way, finite so that a leaked token cannot flood the service.
 */
export const RequestRateLimits: RateLimitTable = {
  anonymous: [
    { limit: 120, window: "1 minute" },
    { limit: 20_000, window: "1 day" }
  ],
  free: perMinute(300),
  pro: perMinute(1_000),
  enterprise: perMinute(10_000),
  admin: perMinute(10_000)
}

/**
 * Coverage requests (POST /contacts, "please rate X"): 5 an hour per client
 * address, whoever sends them (a key is not needed, nor does it raise the
 * allowance), counted apart from the request rate: a form anyone may post
 * that writes a row for the operators' queue.
 */
export const CoverageRequestAllowance: RateWindow = { limit: 5, window: "1 hour" }
