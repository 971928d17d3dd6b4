/**
 * The service's configuration, from environment variables with safe defaults.
 * Secrets are `Redacted`, so they never print in logs or errors. Each setting
 * is declared once, in its `Config`; the types are read off them
 * (`Config.Success`). `ServerConfig` gathers the settings of `ratings serve`,
 * whose parts are in ConnectionConfig.ts, RateLimitConfig.ts,
 * BrandingConfig.ts and WebhookConfig.ts.
 */
import type { JwtConfig } from "@ratings/adapters-http/server/AuthConfig"
import { Config, Duration, Option, Schema } from "effect"
import { BrandingConfig } from "./BrandingConfig.ts"
import { booleanSetting, EnvironmentConfig, HttpUrl, positiveDuration } from "./ConfigValues.ts"
import { ConnectionLimitsConfig } from "./ConnectionConfig.ts"
import { ContactsLimitConfig, McpSessionsLimitConfig, RateLimitStoreConfig } from "./RateLimitConfig.ts"
import { WebhookDeliveryConfig } from "./WebhookConfig.ts"

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
