/**
 * The service's configuration, from environment variables with safe defaults.
 * Secrets are `Redacted`, so they never print in logs or errors. Each setting
 * is declared once, in its `Config`; the types are read off them
 * (`Config.Success`).
 */
import type { JwtConfig } from "@ratings/adapters-http/server/AuthConfig"
import { DefaultConnectionLimits } from "@ratings/adapters-http/server/NodeServer"
import {
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  type StoreFailurePolicy
} from "@ratings/adapters-http/server/limits/RateLimit"
import { CoverageRequestAllowance } from "@ratings/domain/access/RequestLimits"
import {
  DefaultConcurrency,
  DefaultPollInterval,
  TransportGraceMs
} from "@ratings/domain/services/WebhookDispatcher"
import { ReceiverTimeoutMs } from "@ratings/domain/webhooks/RetrySchedule"
import type { TargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { type Branding, brandingOf } from "@ratings/domain/model/ServiceInfo"
import { Config, ConfigProvider, Duration, Effect, Option, Schema } from "effect"

/** The values NODE_ENV may take, exactly as written here; any other value stops the start. */
export const Environments = ["production", "development", "test"] as const
export type Environment = (typeof Environments)[number]

const EnvironmentValue = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      (Environments as ReadonlyArray<string>).includes(value) ||
      "must be production, development or test (exactly, in lower case)"
  )
)

/** NODE_ENV, checked; None when it is unset. */
export const EnvironmentConfig: Config.Config<Option.Option<Environment>> = Config.option(
  Config.schema(EnvironmentValue, "NODE_ENV")
) as Config.Config<Option.Option<Environment>>

/**
 * A boolean setting: `true` or `false` (also `1` or `0`), in any case. Any
 * other value stops the start naming the variable, instead of silently
 * meaning false.
 */
const BooleanText = Schema.String.check(
  Schema.makeFilter(
    (value: string) => /^(true|false|1|0)$/i.test(value) || "must be true or false (or 1 or 0)"
  )
)

export const booleanSetting = (name: string, fallback: boolean): Config.Config<boolean> =>
  Config.schema(BooleanText, name).pipe(
    Config.map((value) => /^(true|1)$/i.test(value)),
    Config.withDefault(fallback)
  )

/**
 * TRUST_PROXY: `true` or `false` (any case), or the number of proxy hops to
 * skip from the right of X-Forwarded-For (`0` is false, `1` is true). Any
 * other value (`yes`, `on`, `2 hops`) stops the start.
 */
const TrustProxyText = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      /^(true|false|[0-9]{1,3})$/i.test(value) || "must be true, false or a number of proxy hops such as 2"
  )
)

export const trustProxyOf = (value: string): boolean | number => {
  if (/^true$/i.test(value)) return true
  if (/^false$/i.test(value)) return false
  const hops = Number(value)
  return hops > 0 ? hops : false
}

/** The Postgres and Redis URLs: checked for their scheme; the value itself is never printed. */
const urlWithScheme = (schemes: ReadonlyArray<string>, example: string) =>
  Schema.Redacted(
    Schema.String.check(
      Schema.makeFilter((value: string) => {
        try {
          if (schemes.includes(new URL(value).protocol)) return true
        } catch {}
        return `must be a URL such as ${example} (the value is not shown: it may hold a password)`
      })
    )
  )

const NonEmpty = Schema.String.check(
  Schema.makeFilter((value: string) => value.trim() !== "" || "must not be empty")
)

const optionalString = (name: string) => Config.option(Config.String(name))

/** An http or https URL (the quantum source, the OTLP collector). */
export const HttpUrl = Schema.URL.check(
  Schema.makeFilter(
    (url: URL) => url.protocol === "http:" || url.protocol === "https:" || "must be an http or https URL"
  )
)

/** A duration such as "1 hour" or "300 millis"; zero, negative and infinite ones are refused. */
const PositiveDuration = Schema.DurationFromString.check(
  Schema.makeFilter((d: Duration.Duration) => {
    const millis = Duration.toMillis(d)
    return (millis > 0 && Number.isFinite(millis)) || 'must be a positive, finite duration such as "1 hour"'
  })
)

const positiveDuration = (name: string, fallback: Duration.Duration) =>
  Config.schema(PositiveDuration, name).pipe(Config.withDefault(fallback))

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

/** A cap of connections: a whole number, 0 for none. */
const ConnectionCap = Schema.Int.check(
  Schema.makeFilter(
    (n: number) => (n >= 0 && n <= 1_000_000) || "must be a whole number from 0 (no cap) to 1000000"
  )
)

/** A time a client has to send something: at least a second, or every ordinary client would be cut. */
const ClientTimeout = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) =>
      Duration.toMillis(d) >= 1_000 || 'must be at least 1 second, such as "30 seconds"'
  )
)

const clientTimeout = (name: string, fallbackMs: number) =>
  Config.schema(ClientTimeout, name).pipe(Config.withDefault(Duration.millis(fallbackMs)))

/** The setting of the time to send a request's headers; error messages name it. */
export const HeadersTimeoutSetting = "RATINGS_HEADERS_TIMEOUT"
/** The setting of the time to send a whole request; error messages name it. */
export const RequestTimeoutSetting = "RATINGS_REQUEST_TIMEOUT"

/**
 * What a client may hold of the server (NodeServer.ConnectionLimits): the
 * time to send a request's headers (RATINGS_HEADERS_TIMEOUT, 20 s) and the
 * whole request (RATINGS_REQUEST_TIMEOUT, 30 s; a response streams for as
 * long as it takes), the connections open at once per socket address
 * (RATINGS_MAX_CONNECTIONS_PER_ADDRESS, 256) and in all
 * (RATINGS_MAX_CONNECTIONS, none); a cap of 0 is none. A headers timeout
 * longer than the request timeout is refused: the request's would cut first.
 */
export const ConnectionLimitsConfig = Config.all({
  headersTimeout: clientTimeout(HeadersTimeoutSetting, DefaultConnectionLimits.headersTimeoutMs),
  requestTimeout: clientTimeout(RequestTimeoutSetting, DefaultConnectionLimits.requestTimeoutMs),
  maxPerAddress: Config.schema(ConnectionCap, "RATINGS_MAX_CONNECTIONS_PER_ADDRESS").pipe(
    Config.withDefault<number>(DefaultConnectionLimits.maxConnectionsPerAddress)
  ),
  maxTotal: Config.schema(ConnectionCap, "RATINGS_MAX_CONNECTIONS").pipe(
    Config.withDefault<number>(DefaultConnectionLimits.maxConnections)
  )
}).pipe(
  Config.mapEffect((limits) =>
    Duration.toMillis(limits.headersTimeout) > Duration.toMillis(limits.requestTimeout)
      ? Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message:
                `${HeadersTimeoutSetting} (${Duration.format(limits.headersTimeout)}) must not be longer than ` +
                `${RequestTimeoutSetting} (${Duration.format(limits.requestTimeout)}): the headers are part of the request`
            })
          )
        )
      : Effect.succeed(limits)
  )
)

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

/**
 * Operator branding: the names, site, terms and attribution text
 * the service publishes itself under. The service name and the attribution
 * are sent in HTTP headers (the Link header's title, X-Attribution), so they
 * are printable ASCII; the framework name only goes into JSON and HTML, so any
 * text without control characters. Every value is bounded, and surrounding
 * spaces are dropped. The URLs are absolute http or https URLs written with
 * URL characters only (so they stand as they are inside the Link header's
 * `<...>` and in an HTML attribute), without a user name or password.
 */
export const BrandingSettings = {
  serviceName: "RATINGS_SERVICE_NAME",
  frameworkName: "RATINGS_FRAMEWORK_NAME",
  siteUrl: "RATINGS_SITE_URL",
  termsUrl: "RATINGS_TERMS_URL",
  attribution: "RATINGS_ATTRIBUTION"
} as const

const brandingText = (maxLength: number, asciiOnly: boolean) =>
  Schema.String.check(
    Schema.makeFilter((value: string) => {
      const text = value.trim()
      if (text === "") return "must not be empty"
      if (text.length > maxLength) return `must be at most ${maxLength} characters`
      if (asciiOnly && !/^[\x20-\x7e]*$/.test(text))
        return "must be printable ASCII text (it is sent in HTTP headers): no control characters, line breaks or non-ASCII letters"
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text))
        return "must not hold control characters or line breaks"
      return true
    })
  )

/** Characters a URL may be written with (RFC 3986: unreserved, reserved and %). */
const UrlCharacters = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/

const MaxBrandingUrlLength = 2_000

const brandingUrl = (allowQueryAndFragment: boolean) =>
  Schema.String.check(
    Schema.makeFilter((value: string) => {
      const text = value.trim()
      if (text.length > MaxBrandingUrlLength) return `must be at most ${MaxBrandingUrlLength} characters`
      if (!UrlCharacters.test(text))
        return "must be an absolute http or https URL written with URL characters only (no spaces, quotes, angle brackets or control characters)"
      let url: URL
      try {
        url = new URL(text)
      } catch {
        return "must be an absolute http or https URL such as https://ratings.example"
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL"
      if (url.username !== "" || url.password !== "") return "must not hold a user name or password"
      if (!allowQueryAndFragment && (url.search !== "" || url.hash !== ""))
        return "must have no query or fragment (the methodology and terms URLs are made by adding to it)"
      return true
    })
  )

const brandingSetting = (name: string, schema: Schema.Codec<string, string>) =>
  Config.option(Config.schema(schema, name).pipe(Config.map((value) => value.trim())))

/** The branding, from RATINGS_SERVICE_NAME and the rest; unset, each value is the default or follows from the others (brandingOf). */
export const BrandingConfig: Config.Config<Branding> = Config.all({
  serviceName: brandingSetting(BrandingSettings.serviceName, brandingText(100, true)),
  frameworkName: brandingSetting(BrandingSettings.frameworkName, brandingText(200, false)),
  siteUrl: brandingSetting(BrandingSettings.siteUrl, brandingUrl(false)),
  termsUrl: brandingSetting(BrandingSettings.termsUrl, brandingUrl(true)),
  attribution: brandingSetting(BrandingSettings.attribution, brandingText(1_000, true))
}).pipe(
  Config.map((settings) =>
    brandingOf({
      serviceName: Option.getOrUndefined(settings.serviceName),
      frameworkName: Option.getOrUndefined(settings.frameworkName),
      siteUrl: Option.getOrUndefined(settings.siteUrl),
      termsUrl: Option.getOrUndefined(settings.termsUrl),
      attribution: Option.getOrUndefined(settings.attribution)
    })
  )
)

/** The setting that names the quantum-readiness upstream; error messages point the operator at it. */
export const QuantumSourceUrlSetting = "RATINGS_QUANTUM_SOURCE_URL"

export const QuantumConfig = Config.all({
  /** The LayerQu dataset (http or https). Absent: no refreshes; the stored snapshot is served as is. */
  sourceUrl: Config.option(Config.schema(HttpUrl, QuantumSourceUrlSetting)),
  /** Time between scheduled refreshes. */
  refreshInterval: positiveDuration("RATINGS_QUANTUM_REFRESH_INTERVAL", Duration.hours(1)),
  /** Budget for one fetch of the dataset, start to end. */
  timeout: positiveDuration("RATINGS_QUANTUM_TIMEOUT", Duration.seconds(15))
})

/** The test-only setting that shrinks the retry schedule; error messages name it. */
export const WebhookRetryScaleSetting = "RATINGS_WEBHOOK_RETRY_SCALE"

const RetryScale = Schema.Finite.check(
  Schema.makeFilter((scale: number) => scale > 0 || "must be a number greater than 0, such as 0.001")
)

/** The test-only setting that shortens the dispatcher's claim lease; error messages name it. */
export const WebhookLeaseSetting = "RATINGS_WEBHOOK_LEASE"

/**
 * The shortest lease the dispatcher accepts: a send may run to the receiver
 * timeout plus the transport grace, and the lease must outlast twice that
 * (WebhookDispatcher checks the same rule when it is built).
 */
export const MinimumWebhookLeaseMs = 2 * (ReceiverTimeoutMs + TransportGraceMs)

const Lease = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) =>
      Duration.toMillis(d) > MinimumWebhookLeaseMs ||
      `must be longer than ${MinimumWebhookLeaseMs / 1_000} seconds (twice the receiver timeout plus the transport grace), such as "35 seconds"`
  )
)

const Concurrency = Schema.Int.check(
  Schema.makeFilter((n: number) => (n >= 1 && n <= 1_000) || "must be a whole number from 1 to 1000")
)

/**
 * Webhook delivery settings. A retry scale or a lease outside NODE_ENV=test
 * is refused rather than ignored: a production process quietly retrying in
 * milliseconds (or silently not, when the operator meant it) is worse than
 * not starting.
 */
export const WebhookDeliveryConfig = Config.all({
  /**
   * Factor applied to the retry offsets (30 s ... 12 h), so a test can run the
   * whole schedule in seconds. Only tests use it: honoured when NODE_ENV=test,
   * and any other process refuses to start when it is set.
   */
  retryScale: Config.option(Config.schema(RetryScale, WebhookRetryScaleSetting)),
  /** Most webhook sends in flight at once in one server process. */
  concurrency: Config.schema(Concurrency, "RATINGS_WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(DefaultConcurrency)
  ),
  /** The longest the dispatcher waits between claims when nothing is due. */
  pollInterval: positiveDuration(
    "RATINGS_WEBHOOK_POLL_INTERVAL",
    Duration.fromInputUnsafe(DefaultPollInterval)
  ),
  /**
   * The lease of the dispatcher's claims (default 60 s). Only tests set it,
   * to shorten the wait for the claims of a killed process: honoured when
   * NODE_ENV=test, and any other process refuses to start when it is set.
   */
  lease: Config.option(Config.schema(Lease, WebhookLeaseSetting)),
  environment: EnvironmentConfig
}).pipe(
  Config.mapEffect(({ environment, ...settings }) => {
    const testOnly = [
      ...(Option.isSome(settings.retryScale) ? [WebhookRetryScaleSetting] : []),
      ...(Option.isSome(settings.lease) ? [WebhookLeaseSetting] : [])
    ]
    return testOnly.length > 0 && Option.getOrUndefined(environment) !== "test"
      ? Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message:
                `${testOnly[0]} is a setting only tests use: it is honoured only when NODE_ENV=test ` +
                `(NODE_ENV is ${Option.match(environment, { onNone: () => "unset", onSome: (e) => JSON.stringify(e) })}); unset it to start`
            })
          )
        )
      : Effect.succeed(settings)
  })
)

/** The setting that lets webhooks reach private, loopback and link-local targets. */
export const WebhookAllowPrivateTargetsSetting = "RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS"

/**
 * Which webhook targets may be called (webhook URLs are
 * validated), for both the create-time check and every send: https unless
 * NODE_ENV is exactly development (unset is not: `npm start` sets it), and no private, loopback or link-local targets unless
 * RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true. The default is the safe one: a
 * caller-chosen URL must not reach the service's own network.
 */
export const WebhookTargetsConfig: Config.Config<TargetPolicy> = Config.all({
  allowPrivateTargets: booleanSetting(WebhookAllowPrivateTargetsSetting, false),
  // Plain http only where development is explicit: an unset NODE_ENV is not development.
  requireHttps: EnvironmentConfig.pipe(
    Config.map((environment) => Option.getOrUndefined(environment) !== "development")
  )
})

/**
 * The identity provider of admin JWTs (RATINGS_JWT_*), in the HTTP adapter's
 * terms; undefined unless a JWKS URL or a public key is set. `ratings serve`
 * checks it before anything else starts (HttpOptions.checkIdentityProvider).
 */
const JwtProviderConfig: Config.Config<JwtConfig | undefined> = Config.all({
  /** JWKS endpoint of the identity provider (https, or http on loopback). */
  jwksUrl: optionalString("RATINGS_JWT_JWKS_URL"),
  /** Or a public key (PEM, JWK or JWK Set text). */
  publicKey: optionalString("RATINGS_JWT_PUBLIC_KEY"),
  issuer: optionalString("RATINGS_JWT_ISSUER"),
  audience: optionalString("RATINGS_JWT_AUDIENCE"),
  algorithms: optionalString("RATINGS_JWT_ALGORITHMS"),
  roleClaim: optionalString("RATINGS_JWT_ROLE_CLAIM")
}).pipe(
  Config.map((j) =>
    Option.isNone(j.jwksUrl) && Option.isNone(j.publicKey)
      ? undefined
      : {
          jwksUrl: Option.getOrUndefined(j.jwksUrl),
          publicKey: Option.getOrUndefined(j.publicKey),
          issuer: Option.getOrElse(j.issuer, () => ""),
          audience: Option.getOrElse(j.audience, () => ""),
          algorithms: Option.getOrUndefined(
            Option.map(j.algorithms, (a) => a.split(",").map((x) => x.trim()))
          ),
          roleClaim: Option.getOrUndefined(j.roleClaim)
        }
  )
)

/** Where `ratings mcp` sends the API calls of its tools, by default a server on this machine. */
export const DefaultApiUrl = "http://localhost:8080/api/v1"

/**
 * RATINGS_API_URL: the API's base, ending in /api/v1 as the live service's
 * clients write it (an origin alone, such as http://localhost:8080, is taken
 * too). Read as the origin (and any path before /api/v1) the typed client
 * adds /api/v1 and the route to.
 */
export const ApiBaseUrl = HttpUrl.check(
  Schema.makeFilter(
    (url: URL) =>
      ((/^(\/.*)?\/api\/v1\/?$/.test(url.pathname) || url.pathname === "/") &&
        url.search === "" &&
        url.hash === "" &&
        url.username === "" &&
        url.password === "") ||
      "must be the API's base URL ending in /api/v1, such as http://localhost:8080/api/v1 (no query, fragment or credentials)"
  )
)

/** The base the typed client is given: the URL without its trailing /api/v1. */
export const clientBaseOf = (url: URL): string =>
  `${url.origin}${url.pathname.replace(/\/?(api\/v1\/?)?$/, "")}`

/** An API key (or token) as sent in `Authorization: Bearer <key>`: printable, no spaces. */
const ApiKeyText = Schema.Redacted(
  Schema.String.check(
    Schema.makeFilter(
      (value: string) =>
        /^[\x21-\x7e]+$/.test(value) ||
        "must be an API key such as rk_... (printable characters, no spaces; the value is not shown)"
    )
  )
)

/** `ratings mcp`: the API its tools call, and the key they call it with (none: anonymous). */
export const McpConfig = Config.all({
  apiUrl: Config.schema(ApiBaseUrl, "RATINGS_API_URL").pipe(Config.withDefault(new URL(DefaultApiUrl))),
  apiKey: Config.option(Config.schema(ApiKeyText, "RATINGS_API_KEY"))
})

export type McpConfig = Config.Success<typeof McpConfig>

export const ServerConfig = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.schema(NonEmpty, "HOST").pipe(Config.withDefault("0.0.0.0")),
  /** Postgres to use; when absent, an embedded Postgres under `dataDir`. */
  databaseUrl: Config.option(
    Config.schema(urlWithScheme(["postgres:", "postgresql:"], "postgres://user@host:5432/db"), "DATABASE_URL")
  ),
  /** Where the embedded Postgres, the generated server key and the dev identity provider live. */
  dataDir: Config.schema(NonEmpty, "RATINGS_DATA_DIR").pipe(Config.withDefault(".data")),
  /** 32-byte base64 key that encrypts webhook signing keys at rest. */
  secretKey: Config.option(Config.Redacted("RATINGS_SECRET_KEY")),
  /** Load the demo dataset on the first start of the embedded default. */
  loadDemo: booleanSetting("RATINGS_LOAD_DEMO", true),
  /** Shares rate-limit counters between server processes. */
  redisUrl: Config.option(
    Config.schema(urlWithScheme(["redis:", "rediss:"], "redis://host:6379"), "REDIS_URL")
  ),
  /** Trust X-Forwarded-For: false, true (one proxy hop) or a hop count. */
  trustProxy: Config.schema(TrustProxyText, "TRUST_PROXY").pipe(
    Config.map(trustProxyOf),
    Config.withDefault<boolean | number>(false)
  ),
  jwt: JwtProviderConfig,
  /**
   * NODE_ENV, when set (only these three values are accepted). The development
   * identity provider of `ratings dev token` is on only under an explicit
   * `development` or `test`.
   */
  environment: EnvironmentConfig,
  /** How long a stopping server lets requests in flight finish before it closes their connections. */
  shutdownGrace: positiveDuration("RATINGS_SHUTDOWN_GRACE", Duration.seconds(20)),
  quantum: QuantumConfig,
  webhooks: WebhookDeliveryConfig,
  contacts: ContactsLimitConfig,
  mcpSessions: McpSessionsLimitConfig,
  /** Request timeouts and connection caps (RATINGS_HEADERS_TIMEOUT, ...). */
  connections: ConnectionLimitsConfig,
  rateLimitStore: RateLimitStoreConfig,
  /** What the service publishes itself as (RATINGS_SERVICE_NAME, ...). */
  branding: BrandingConfig
})

export type ServerConfig = Config.Success<typeof ServerConfig>
