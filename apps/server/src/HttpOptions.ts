/**
 * What the HTTP server needs from the configuration: authentication (identity
 * provider, proxy trust) and the caller policies (Redis for shared rate limits).
 */
import type { AuthConfig, JwtConfig } from "@ratings/adapters-http/server/AuthConfig"
import type { PoliciesConfig } from "@ratings/adapters-http/server/HttpServerLive"
import { Option, Redacted } from "effect"
import type { ServerConfig } from "./Config.ts"
import { DevAudience, DevIssuer, devPublicKey } from "./DevIdentityProvider.ts"

const trustProxyOf = (value: string): boolean | number => {
  if (value === "true") return true
  const hops = Number(value)
  return Number.isInteger(hops) && hops > 0 ? hops : false
}

const jwtOf = (config: ServerConfig): JwtConfig | undefined => {
  const j = config.jwt
  if (Option.isSome(j.jwksUrl) || Option.isSome(j.publicKey)) {
    return {
      jwksUrl: Option.getOrUndefined(j.jwksUrl),
      publicKey: Option.getOrUndefined(j.publicKey),
      issuer: Option.getOrElse(j.issuer, () => ""),
      audience: Option.getOrElse(j.audience, () => ""),
      algorithms: Option.isSome(j.algorithms)
        ? j.algorithms.value.split(",").map((a) => a.trim())
        : undefined,
      roleClaim: Option.getOrUndefined(j.roleClaim)
    }
  }
  if (config.environment === "production") return undefined
  const dev = devPublicKey(config.dataDir)
  return dev === undefined ? undefined : { publicKey: dev, issuer: DevIssuer, audience: DevAudience }
}

export const httpOptions = (
  config: ServerConfig
): {
  readonly auth: AuthConfig
  readonly policies: PoliciesConfig
  readonly devIdentityProvider: boolean
} => {
  const jwt = jwtOf(config)
  return {
    auth: { jwt, trustProxy: trustProxyOf(config.trustProxy) },
    policies: Option.isSome(config.redisUrl) ? { redisUrl: Redacted.value(config.redisUrl.value) } : {},
    devIdentityProvider: jwt !== undefined && jwt.issuer === DevIssuer
  }
}
