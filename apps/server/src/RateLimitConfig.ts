/**
 * The rate-limit settings apart from the request rate: the allowances per
 * client address (coverage requests, MCP sessions), and how the limits behave
 * when the shared rate-limit store (REDIS_URL) stops answering.
 */
import {
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  type StoreFailurePolicy
} from "@ratings/adapters-http/server/limits/StorePolicies"
import { CoverageRequestAllowance } from "@ratings/domain/access/RequestLimits"
import { Config, Duration, Schema } from "effect"
import { PositiveDuration } from "./ConfigValues.ts"

/** A count of requests an address may send per window of its own allowance. */
const AllowancePerWindow = Schema.Int.check(
  Schema.makeFilter((n: number) => (n >= 1 && n <= 10_000) || "must be a whole number from 1 to 10000")
)

/** A window of at least a second (the rate limiter counts in whole seconds). */
const AllowanceWindow = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) => Duration.toMillis(d) >= 1_000 || 'must be at least 1 second, such as "1 hour"'
  )
)

/** An allowance per client address, apart from the request rate: `<PREFIX>_LIMIT` per `<PREFIX>_WINDOW`. */
const allowanceConfig = (prefix: string, limit: number, window: Duration.Duration) =>
  Config.all({
    limit: Config.schema(AllowancePerWindow, `${prefix}_LIMIT`).pipe(Config.withDefault(limit)),
    window: Config.schema(AllowanceWindow, `${prefix}_WINDOW`).pipe(Config.withDefault(window))
  })

/**
 * The allowance of coverage requests (POST /api/v1/contacts) per client
 * address: RATINGS_CONTACTS_LIMIT requests per RATINGS_CONTACTS_WINDOW, by
 * default the domain's (CoverageRequestAllowance: 5 an hour), on a counter
 * apart from the request rate.
 */
export const ContactsLimitConfig = allowanceConfig(
  "RATINGS_CONTACTS",
  CoverageRequestAllowance.limit,
  Duration.fromInputUnsafe(CoverageRequestAllowance.window)
)

/**
 * The MCP sessions a client address may open at /mcp:
 * RATINGS_MCP_SESSIONS_LIMIT per RATINGS_MCP_SESSIONS_WINDOW, 60 an hour by
 * default (RateLimit.ts ProductionMcpSessionLimits).
 */
export const McpSessionsLimitConfig = allowanceConfig("RATINGS_MCP_SESSIONS", 60, Duration.hours(1))

/** The settings of the shared rate-limit store's outages; error messages name them. */
export const RateLimitStoreSettings = {
  timeout: "RATINGS_REDIS_TIMEOUT",
  requests: "RATINGS_REQUESTS_LIMIT_ON_STORE_FAILURE",
  failedCredentials: "RATINGS_FAILED_CREDENTIALS_LIMIT_ON_STORE_FAILURE",
  contacts: "RATINGS_CONTACTS_LIMIT_ON_STORE_FAILURE",
  mcpSessions: "RATINGS_MCP_SESSIONS_LIMIT_ON_STORE_FAILURE"
} as const

/** `open` or `closed`, in any case. */
const StoreFailurePolicyText = Schema.String.check(
  Schema.makeFilter((value: string) => /^(open|closed)$/i.test(value) || "must be open or closed")
)

const storeFailurePolicy = (kind: LimitKind) =>
  Config.schema(StoreFailurePolicyText, RateLimitStoreSettings[kind]).pipe(
    Config.map((value) => value.toLowerCase() as StoreFailurePolicy),
    Config.withDefault(DefaultStoreFailurePolicies[kind])
  )

/** At most 5 seconds: the first requests of an outage wait this long before the limits fail open or closed. */
const StoreTimeout = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) =>
      Duration.toMillis(d) <= 5_000 ||
      'must be at most 5 seconds, such as "100 millis" (the first requests of an outage wait this long)'
  )
)

/**
 * The shared rate-limit store (REDIS_URL) when it stops answering
 * (RateLimit.ts): how long a call may take before an outage begins
 * (RATINGS_REDIS_TIMEOUT, 250 ms by default), and per kind of limit whether
 * it fails open (served without limit) or closed (503) during one:
 * RATINGS_REQUESTS_, RATINGS_FAILED_CREDENTIALS_, RATINGS_CONTACTS_ and
 * RATINGS_MCP_SESSIONS_LIMIT_ON_STORE_FAILURE. Without REDIS_URL the counters
 * are in memory, which cannot fail, and none of these apply.
 */
export const RateLimitStoreConfig = Config.all({
  timeout: Config.schema(StoreTimeout, RateLimitStoreSettings.timeout).pipe(
    Config.withDefault(DefaultStoreTimeout)
  ),
  onFailure: Config.all({
    requests: storeFailurePolicy("requests"),
    failedCredentials: storeFailurePolicy("failedCredentials"),
    contacts: storeFailurePolicy("contacts"),
    mcpSessions: storeFailurePolicy("mcpSessions")
  })
})
