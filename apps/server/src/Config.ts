/**
 * The service's configuration, from environment variables with safe defaults.
 * Secrets are `Redacted`, so they never print in logs or errors.
 */
import {
  DefaultConcurrency,
  DefaultPollInterval,
  TransportGraceMs
} from "@ratings/domain/services/WebhookDispatcher"
import { ReceiverTimeoutMs, type RetryPolicy, retryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import type { TargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { Config, ConfigProvider, Duration, Effect, Option, type Redacted, Schema } from "effect"

export interface JwtSettings {
  /** JWKS endpoint of the identity provider (https, or http on loopback). */
  readonly jwksUrl: Option.Option<string>
  /** Or a public key (PEM, JWK or JWK Set text). */
  readonly publicKey: Option.Option<string>
  readonly issuer: Option.Option<string>
  readonly audience: Option.Option<string>
  readonly algorithms: Option.Option<string>
  readonly roleClaim: Option.Option<string>
}

export interface QuantumSettings {
  /** The LayerQu dataset (http or https). Absent: no refreshes; the stored snapshot is served as is. */
  readonly sourceUrl: Option.Option<URL>
  /** Time between scheduled refreshes. */
  readonly refreshInterval: Duration.Duration
  /** Budget for one fetch of the dataset, start to end. */
  readonly timeout: Duration.Duration
}

export interface WebhookDeliverySettings {
  /**
   * Factor applied to the retry offsets (30 s ... 12 h), so a test can run the
   * whole schedule in seconds. Only tests use it: honoured when NODE_ENV=test,
   * and any other process refuses to start when it is set.
   */
  readonly retryScale: Option.Option<number>
  /** Most webhook sends in flight at once in one server process. */
  readonly concurrency: number
  /** The longest the dispatcher waits between claims when nothing is due. */
  readonly pollInterval: Duration.Duration
  /**
   * The lease of the dispatcher's claims (default 60 s). Only tests set it,
   * to shorten the wait for the claims of a killed process: honoured when
   * NODE_ENV=test, and any other process refuses to start when it is set.
   */
  readonly lease: Option.Option<Duration.Duration>
}

export interface ServerConfig {
  readonly port: number
  readonly host: string
  /** Postgres to use; when absent, an embedded Postgres under `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** Where the embedded Postgres, the generated server key and the dev identity provider live. */
  readonly dataDir: string
  /** 32-byte base64 key that encrypts webhook signing keys at rest. */
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  /** Load the demo dataset on the first start of the embedded default. */
  readonly loadDemo: boolean
  /** Shares rate-limit counters between server processes. */
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>
  /** Trust X-Forwarded-For: "true" for one proxy hop, or a hop count. */
  readonly trustProxy: string
  readonly jwt: JwtSettings
  /** "production" disables the development identity provider of `ratings dev token`. */
  readonly environment: string
  readonly quantum: QuantumSettings
  readonly webhooks: WebhookDeliverySettings
}

const optionalString = (name: string) => Config.option(Config.String(name))

const HttpUrl = Schema.URL.check(
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

/** The setting that names the quantum-readiness upstream; error messages point the operator at it. */
export const QuantumSourceUrlSetting = "RATINGS_QUANTUM_SOURCE_URL"

export const QuantumConfig: Config.Config<QuantumSettings> = Config.all({
  sourceUrl: Config.option(Config.schema(HttpUrl, QuantumSourceUrlSetting)),
  refreshInterval: positiveDuration("RATINGS_QUANTUM_REFRESH_INTERVAL", Duration.hours(1)),
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
export const WebhookDeliveryConfig: Config.Config<WebhookDeliverySettings> = Config.all({
  retryScale: Config.option(Config.schema(RetryScale, WebhookRetryScaleSetting)),
  concurrency: Config.schema(Concurrency, "RATINGS_WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(DefaultConcurrency)
  ),
  pollInterval: positiveDuration(
    "RATINGS_WEBHOOK_POLL_INTERVAL",
    Duration.fromInputUnsafe(DefaultPollInterval)
  ),
  lease: Config.option(Config.schema(Lease, WebhookLeaseSetting)),
  environment: Config.String("NODE_ENV").pipe(Config.withDefault("development"))
}).pipe(
  Config.mapEffect(({ environment, ...settings }) => {
    const testOnly = [
      ...(Option.isSome(settings.retryScale) ? [WebhookRetryScaleSetting] : []),
      ...(Option.isSome(settings.lease) ? [WebhookLeaseSetting] : [])
    ]
    return testOnly.length > 0 && environment !== "test"
      ? Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message:
                `${testOnly[0]} is a setting only tests use: it is honoured only when ` +
                `NODE_ENV=test (NODE_ENV is ${JSON.stringify(environment)}); unset it to start`
            })
          )
        )
      : Effect.succeed(settings)
  })
)

/**
 * The retry policy of the settings. The outbox (which applies the offsets)
 * and the dispatcher (which wakes at them) must be given this same policy.
 */
export const webhookRetryPolicy = (settings: Pick<WebhookDeliverySettings, "retryScale">): RetryPolicy =>
  retryPolicy({ scale: Option.getOrUndefined(settings.retryScale) })

/** The setting that lets webhooks reach private, loopback and link-local targets. */
export const WebhookAllowPrivateTargetsSetting = "RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS"

/**
 * Which webhook targets may be called (issue 6, "Webhook URLs are
 * validated"), for both the create-time check and every send: https unless
 * NODE_ENV=development, and no private, loopback or link-local targets unless
 * RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true. The default is the safe one: a
 * caller-chosen URL must not reach the service's own network.
 */
export const WebhookTargetsConfig: Config.Config<TargetPolicy> = Config.all({
  allowPrivateTargets: Config.Boolean(WebhookAllowPrivateTargetsSetting).pipe(Config.withDefault(false)),
  requireHttps: Config.String("NODE_ENV").pipe(
    Config.withDefault("development"),
    Config.map((environment) => environment !== "development")
  )
})

export const ServerConfig: Config.Config<ServerConfig> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("RATINGS_DATA_DIR").pipe(Config.withDefault(".data")),
  secretKey: Config.option(Config.Redacted("RATINGS_SECRET_KEY")),
  loadDemo: Config.Boolean("RATINGS_LOAD_DEMO").pipe(Config.withDefault(true)),
  redisUrl: Config.option(Config.Redacted("REDIS_URL")),
  trustProxy: Config.String("TRUST_PROXY").pipe(Config.withDefault("false")),
  jwt: Config.all({
    jwksUrl: optionalString("RATINGS_JWT_JWKS_URL"),
    publicKey: optionalString("RATINGS_JWT_PUBLIC_KEY"),
    issuer: optionalString("RATINGS_JWT_ISSUER"),
    audience: optionalString("RATINGS_JWT_AUDIENCE"),
    algorithms: optionalString("RATINGS_JWT_ALGORITHMS"),
    roleClaim: optionalString("RATINGS_JWT_ROLE_CLAIM")
  }),
  environment: Config.String("NODE_ENV").pipe(Config.withDefault("development")),
  quantum: QuantumConfig,
  webhooks: WebhookDeliveryConfig
})
