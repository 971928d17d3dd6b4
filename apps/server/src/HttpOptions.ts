/**
 * What the HTTP server needs from the configuration: authentication (identity
 * provider, proxy trust), the caller policies (Redis for shared rate limits
 * and what each limit does when it stops answering, the coverage-request and
 * MCP-session allowances per address), and the request timeouts and
 * connection caps.
 */
import {
  type AuthConfig,
  AuthConfigError,
  type JwtConfig,
  resolveJwtConfig
} from "@ratings/adapters-http/server/AuthConfig"
import {
  DevAudience,
  DevIssuer,
  devIdentityProviderStatus,
  devKeyPair
} from "@ratings/adapters-http/server/DevIdentityProvider"
import type { PoliciesConfig } from "@ratings/adapters-http/server/HttpServerLive"
import type { ConnectionLimits } from "@ratings/adapters-http/server/front/NodeServer"
import { makeJwtVerifier } from "@ratings/adapters-http/server/JwtVerifier"
import { Duration, Effect, Option, Redacted } from "effect"
import type { ServerConfig } from "./Config.ts"

/**
 * The HTTP options of a server. When the development identity provider is
 * on, its key pair is created now if missing (the one `ratings dev token`
 * then uses), so a dev token minted after the start is accepted.
 */
export const httpOptions = (
  config: ServerConfig
): {
  readonly auth: AuthConfig
  readonly policies: PoliciesConfig
  readonly connections: ConnectionLimits
  /** Whether the development identity provider is trusted, and why: the server prints it at start. */
  readonly devIdentityProvider: ReturnType<typeof devIdentityProviderStatus>
} => {
  const dev = devIdentityProviderStatus(config)
  const jwt: JwtConfig | undefined = dev.on
    ? { publicKey: devKeyPair(config.dataDir).publicKeyPem, issuer: DevIssuer, audience: DevAudience }
    : config.jwt
  return {
    auth: { jwt, trustProxy: config.trustProxy },
    policies: {
      ...(Option.isSome(config.redisUrl) ? { redisUrl: Redacted.value(config.redisUrl.value) } : {}),
      contacts: [{ limit: config.contacts.limit, window: config.contacts.window }],
      mcpSessions: [{ limit: config.mcpSessions.limit, window: config.mcpSessions.window }],
      storeTimeout: config.rateLimitStore.timeout,
      onStoreFailure: config.rateLimitStore.onFailure
    },
    connections: {
      headersTimeoutMs: Math.ceil(Duration.toMillis(config.connections.headersTimeout)),
      requestTimeoutMs: Math.ceil(Duration.toMillis(config.connections.requestTimeout)),
      maxConnectionsPerAddress: config.connections.maxPerAddress,
      maxConnections: config.connections.maxTotal
    },
    devIdentityProvider: dev
  }
}

/** The environment variable behind each field of the JWT configuration. */
const JwtSettings: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bjwt\.jwksUrl\b|\bjwksUrl\b/g, "RATINGS_JWT_JWKS_URL"],
  [/\bjwt\.publicKey\b|\bpublicKey\b/g, "RATINGS_JWT_PUBLIC_KEY"],
  [/\bjwt\.issuer\b/g, "RATINGS_JWT_ISSUER"],
  [/\bjwt\.audience\b/g, "RATINGS_JWT_AUDIENCE"],
  [/\bjwt\.algorithms\b/g, "RATINGS_JWT_ALGORITHMS"],
  [/\bjwt\.roleClaim\b/g, "RATINGS_JWT_ROLE_CLAIM"],
  [/^jwt\b/, "RATINGS_JWT_*"]
]

/**
 * Checks the identity provider's settings as the server will use them (key
 * parsed, algorithms allowed), failing with a message that names the
 * RATINGS_JWT_* variable at fault, before anything else starts.
 */
export const checkIdentityProvider = (auth: AuthConfig): Effect.Effect<void, AuthConfigError> =>
  auth.jwt === undefined
    ? Effect.void
    : Effect.flatMap(resolveJwtConfig(auth.jwt), makeJwtVerifier).pipe(
        Effect.asVoid,
        Effect.mapError(
          (e) =>
            new AuthConfigError({
              message: JwtSettings.reduce((message, [field, name]) => message.replace(field, name), e.message)
            })
        )
      )
