/**
 * The service's configuration, from environment variables with safe defaults.
 * Secrets are `Redacted`, so they never print in logs or errors.
 */
import { Config, Duration, type Option, type Redacted, Schema } from "effect"

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
  quantum: QuantumConfig
})
