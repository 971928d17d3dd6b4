/**
 * The service's configuration, from environment variables with safe defaults.
 * Secrets are `Redacted`, so they never print in logs or errors.
 */
import { Config, type Option, type Redacted } from "effect"

export interface ServerConfig {
  readonly port: number
  readonly host: string
  /** Postgres to use; when absent, an embedded Postgres under `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** Where the embedded Postgres and the generated server key live. */
  readonly dataDir: string
  /** 32-byte base64 key that encrypts webhook signing keys at rest. */
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  /** Load the demo dataset on the first start of the embedded default. */
  readonly loadDemo: boolean
}

export const ServerConfig: Config.Config<ServerConfig> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("RATINGS_DATA_DIR").pipe(Config.withDefault(".data")),
  secretKey: Config.option(Config.Redacted("RATINGS_SECRET_KEY")),
  loadDemo: Config.Boolean("RATINGS_LOAD_DEMO").pipe(Config.withDefault(true))
})
