/**
 * The configuration of caller authentication, and its check at start-up: a
 * mistake here (no key source, an algorithm that must never be accepted, a key
 * set fetched over plain HTTP from another host) stops the server instead of
 * weakening every request.
 */
import { Effect, Schema } from "effect"

export interface JwtConfig {
  /** The identity provider's JSON Web Key Set, fetched and cached (https, or http on loopback only). */
  readonly jwksUrl?: string | undefined
  /** Or one key: a PEM (SPKI, or a certificate's key), a JWK or a JWK Set, as text. */
  readonly publicKey?: string | undefined
  readonly issuer: string
  readonly audience: string
  /** Allowed `alg` values; default RS256, ES256, EdDSA. `none` is refused; HS* needs a shared-secret JWK. */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** The claim holding the role (a string or an array); default "role". A `roles` array is read too. */
  readonly roleClaim?: string | undefined
  /** Accepted clock skew for exp and nbf; default 30 seconds. */
  readonly clockToleranceSeconds?: number | undefined
  /** Bound on one key-set fetch; default 3000 ms. */
  readonly jwksTimeoutMs?: number | undefined
  /** Minimum time between two refetches for an unknown `kid`; default 30000 ms. */
  readonly jwksCooldownMs?: number | undefined
  /** How long a fetched key set is used before it is fetched again; default 600000 ms. */
  readonly jwksCacheMaxAgeMs?: number | undefined
}

export interface AuthConfig {
  /** Admin JWTs; when absent every JWT is refused (401 invalid_token) and only API keys work. */
  readonly jwt?: JwtConfig | undefined
  /**
   * Behind a reverse proxy: the client address is taken from X-Forwarded-For,
   * counting this many trusted proxies from the right (true is one). Otherwise
   * the socket's address is used and the header is ignored.
   */
  readonly trustProxy?: boolean | number | undefined
}

export class AuthConfigError extends Schema.TaggedError<AuthConfigError>()("AuthConfigError", {
  message: Schema.String
}) {}

export const DefaultAlgorithms = ["RS256", "ES256", "EdDSA"] as const
export const DefaultRoleClaim = "role"
export const DefaultClockToleranceSeconds = 30
export const DefaultJwksTimeoutMs = 3000
export const DefaultJwksCooldownMs = 30_000
export const DefaultJwksCacheMaxAgeMs = 600_000

/** Algorithms of keys an identity provider publishes. */
export const AsymmetricAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519"
] as const
/** Shared-secret algorithms: only with an explicit allow-list and an `oct` JWK. */
export const SymmetricAlgorithms = ["HS256", "HS384", "HS512"] as const

export const isSymmetric = (alg: string): boolean =>
  (SymmetricAlgorithms as ReadonlyArray<string>).includes(alg)
const isKnown = (alg: string): boolean =>
  isSymmetric(alg) || (AsymmetricAlgorithms as ReadonlyArray<string>).includes(alg)

const LoopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

/** A JWT configuration with every default applied, checked. */
export interface ResolvedJwtConfig {
  readonly keySource:
    | { readonly _tag: "Remote"; readonly url: URL }
    | { readonly _tag: "Local"; readonly text: string }
  readonly issuer: string
  readonly audience: string
  readonly algorithms: ReadonlyArray<string>
  readonly roleClaim: string
  readonly clockToleranceSeconds: number
  readonly jwksTimeoutMs: number
  readonly jwksCooldownMs: number
  readonly jwksCacheMaxAgeMs: number
}

const fail = (message: string) => new AuthConfigError({ message })

const nonNegativeInt = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v < 0) throw fail(`${name} must be a non-negative integer`)
  return v
}

/** Throws AuthConfigError; wrapped by resolveJwtConfig. */
const resolveUnsafe = (config: JwtConfig): ResolvedJwtConfig => {
  if (config.issuer.trim() === "") throw fail("jwt.issuer is required")
  if (config.audience.trim() === "") throw fail("jwt.audience is required")
  const hasUrl = config.jwksUrl !== undefined && config.jwksUrl !== ""
  const hasKey = config.publicKey !== undefined && config.publicKey.trim() !== ""
  if (hasUrl === hasKey) throw fail("jwt needs exactly one of jwksUrl and publicKey")
  let keySource: ResolvedJwtConfig["keySource"]
  if (hasUrl) {
    let url: URL
    try {
      url = new URL(config.jwksUrl!)
    } catch {
      throw fail("jwt.jwksUrl is not a URL")
    }
    const loopback = LoopbackHosts.has(url.hostname)
    if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
      throw fail("jwt.jwksUrl must use https (plain http only on loopback)")
    keySource = { _tag: "Remote", url }
  } else {
    keySource = { _tag: "Local", text: config.publicKey!.trim() }
  }
  const algorithms = [...(config.algorithms ?? DefaultAlgorithms)]
  if (algorithms.length === 0) throw fail("jwt.algorithms must not be empty")
  for (const alg of algorithms) {
    if (alg.toLowerCase() === "none") throw fail('jwt.algorithms must never contain "none"')
    if (!isKnown(alg)) throw fail(`jwt.algorithms: unsupported algorithm ${alg}`)
  }
  const symmetric = algorithms.filter(isSymmetric)
  if (symmetric.length > 0 && symmetric.length !== algorithms.length)
    throw fail("jwt.algorithms must not mix shared-secret (HS*) and public-key algorithms")
  if (symmetric.length > 0 && keySource._tag === "Remote")
    throw fail("jwt.algorithms: HS* cannot be verified with a JWKS URL (key sets publish public keys)")
  const roleClaim = config.roleClaim ?? DefaultRoleClaim
  if (roleClaim === "") throw fail("jwt.roleClaim must not be empty")
  return {
    keySource,
    issuer: config.issuer,
    audience: config.audience,
    algorithms,
    roleClaim,
    clockToleranceSeconds: nonNegativeInt(
      "jwt.clockToleranceSeconds",
      config.clockToleranceSeconds,
      DefaultClockToleranceSeconds
    ),
    jwksTimeoutMs: nonNegativeInt("jwt.jwksTimeoutMs", config.jwksTimeoutMs, DefaultJwksTimeoutMs),
    jwksCooldownMs: nonNegativeInt("jwt.jwksCooldownMs", config.jwksCooldownMs, DefaultJwksCooldownMs),
    jwksCacheMaxAgeMs: nonNegativeInt(
      "jwt.jwksCacheMaxAgeMs",
      config.jwksCacheMaxAgeMs,
      DefaultJwksCacheMaxAgeMs
    )
  }
}

export const resolveJwtConfig = (config: JwtConfig): Effect.Effect<ResolvedJwtConfig, AuthConfigError> =>
  Effect.try({
    try: () => resolveUnsafe(config),
    catch: (e) => (e instanceof AuthConfigError ? e : fail("jwt configuration is invalid"))
  })

/** How many proxies' entries to skip from the right of X-Forwarded-For; 0 when the header is not trusted. */
export const trustedHops = (trustProxy: AuthConfig["trustProxy"]): number =>
  trustProxy === true
    ? 1
    : typeof trustProxy === "number" && Number.isInteger(trustProxy) && trustProxy > 0
      ? trustProxy
      : 0
