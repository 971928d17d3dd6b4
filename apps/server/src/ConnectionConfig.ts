/**
 * What a client may hold of the server: the request timeouts and the caps of
 * open connections (NodeServer.ConnectionLimits), read from RATINGS_*
 * settings with NodeServer's defaults.
 */
import { DefaultConnectionLimits } from "@ratings/adapters-http/server/front/ConnectionDefaults"
import { Config, ConfigProvider, Duration, Effect, Schema } from "effect"
import { PositiveDuration } from "./ConfigValues.ts"

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
