/**
 * Verification of identity-provider JWTs with jose (a maintained JOSE library;
 * nothing here parses or checks a signature by hand). A token is an admin's
 * when its signature verifies against the configured key source with an
 * allowed algorithm, its issuer and audience match, it has not expired (a small
 * clock skew allowed), and its role claim holds admin or super_admin.
 *
 * The verdict separates a bad token (the caller's problem: 401) from a key set
 * that cannot be fetched (ours: 503), so a legitimate admin is never told that
 * a valid token is invalid because the provider is down.
 */
import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto"
import { type AdminRole, AdminRoles } from "@ratings/domain/model/Caller"
import { Clock, Duration, Effect, Option } from "effect"
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify
} from "jose"
import { AuthConfigError, isSymmetric, type ResolvedJwtConfig } from "./AuthConfig.ts"

export type JwtVerdict =
  | { readonly _tag: "Admin"; readonly subject: string; readonly role: AdminRole }
  /** Valid, but not an admin: spec part 5 rule 4 ignores the bypass for "anyone else". */
  | { readonly _tag: "NotAdmin" }
  | { readonly _tag: "Invalid"; readonly reason: string }
  | { readonly _tag: "Unavailable"; readonly reason: string }

export interface JwtVerifier {
  readonly verify: (token: string) => Effect.Effect<JwtVerdict>
}

/** Longer tokens are refused before any parsing. */
export const MaxTokenLength = 8192

const invalid = (reason: string): JwtVerdict => ({ _tag: "Invalid", reason })

/** Without an identity provider no JWT can be checked, so none is accepted. */
export const NoIdentityProvider: JwtVerifier = {
  verify: () => Effect.succeed(invalid("no identity provider configured"))
}

/** The role the token grants, the higher one when it names both. */
export const adminRoleOf = (payload: JWTPayload, roleClaim: string): AdminRole | undefined => {
  const roles = new Set<string>()
  const collect = (value: unknown) => {
    if (typeof value === "string") roles.add(value)
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") roles.add(v)
  }
  collect(payload[roleClaim])
  collect(payload.roles)
  return [...AdminRoles].reverse().find((role) => roles.has(role))
}

/** Raised inside the key lookup when the key set itself cannot be had. */
class KeySetUnavailable extends Error {
  readonly reason: string
  constructor(reason: string) {
    super("key set unavailable")
    this.reason = reason
  }
}

/** Fetch failures (timeout, refused connection, non-200, unparseable set), not token faults. */
const isFetchFailure = (e: unknown): boolean =>
  !(e instanceof errors.JOSEError) ||
  e.code === "ERR_JWKS_TIMEOUT" ||
  e.code === "ERR_JOSE_GENERIC" ||
  e.code === "ERR_JWKS_INVALID"

type VerifyKey = KeyObject | JWTVerifyGetKey

const configError = (message: string) => new AuthConfigError({ message })

/** The key of a `publicKey` text: PEM, JWK or JWK Set. Fails on anything else, at start-up. */
const localKey = (
  text: string,
  algorithms: ReadonlyArray<string>
): Effect.Effect<VerifyKey, AuthConfigError> =>
  Effect.suspend((): Effect.Effect<VerifyKey, AuthConfigError> => {
    const symmetric = algorithms.some(isSymmetric)
    if (text.startsWith("-----BEGIN")) {
      if (symmetric)
        return Effect.fail(configError("jwt: HS* algorithms need a shared-secret JWK, not a PEM"))
      return Effect.try({
        try: () => createPublicKey(text),
        catch: () => configError("jwt.publicKey is not a valid PEM key")
      })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return Effect.fail(configError("jwt.publicKey is neither a PEM nor a JWK or JWK Set"))
    }
    if (typeof json !== "object" || json === null)
      return Effect.fail(configError("jwt.publicKey is neither a PEM nor a JWK or JWK Set"))
    const jwk = json as { readonly kty?: unknown; readonly k?: unknown; readonly keys?: unknown }
    if (Array.isArray(jwk.keys)) {
      if (symmetric) return Effect.fail(configError("jwt: HS* algorithms cannot use a JWK Set"))
      return Effect.try({
        try: () => createLocalJWKSet(json as Parameters<typeof createLocalJWKSet>[0]) as JWTVerifyGetKey,
        catch: () => configError("jwt.publicKey is not a valid JWK Set")
      })
    }
    if (jwk.kty === "oct") {
      if (!symmetric || typeof jwk.k !== "string")
        return Effect.fail(configError("jwt: a shared-secret JWK needs an explicit HS* algorithm allow-list"))
      const secret = Buffer.from(jwk.k, "base64url")
      if (secret.length < 32)
        return Effect.fail(configError("jwt: a shared secret must be at least 32 bytes"))
      return Effect.succeed(createSecretKey(secret))
    }
    if (symmetric) return Effect.fail(configError("jwt: HS* algorithms need a shared-secret (oct) JWK"))
    return Effect.try({
      try: () => createPublicKey({ key: json as never, format: "jwk" }),
      catch: () => configError("jwt.publicKey is not a valid JWK")
    })
  })

const remoteKey = (config: ResolvedJwtConfig, url: URL): VerifyKey => {
  const remote = createRemoteJWKSet(url, {
    timeoutDuration: config.jwksTimeoutMs,
    cooldownDuration: config.jwksCooldownMs,
    cacheMaxAge: config.jwksCacheMaxAgeMs
  })
  return async (header, token) => {
    try {
      return await remote(header, token)
    } catch (e) {
      if (isFetchFailure(e))
        throw new KeySetUnavailable(e instanceof errors.JOSEError ? e.code : "fetch failed")
      throw e
    }
  }
}

/** A short reason for the log: the library's error code and claim, never the token or a message quoting it. */
const reasonOf = (e: unknown): string => {
  if (e instanceof errors.JWTClaimValidationFailed || e instanceof errors.JWTExpired)
    return `${e.code} (${e.claim} ${e.reason})`
  if (e instanceof errors.JOSEError) return e.code
  return "unverifiable token"
}

const verdictOfError = (e: unknown): JwtVerdict =>
  e instanceof KeySetUnavailable ? { _tag: "Unavailable", reason: e.reason } : invalid(reasonOf(e))

const verdictOfPayload = (payload: JWTPayload, roleClaim: string): JwtVerdict => {
  const role = adminRoleOf(payload, roleClaim)
  if (role === undefined) return { _tag: "NotAdmin" }
  if (typeof payload.sub !== "string" || payload.sub === "") return invalid("admin token without sub")
  return { _tag: "Admin", subject: payload.sub, role }
}

/**
 * The verifier of a checked configuration. The key (or the remote key set,
 * fetched lazily, cached, refetched for an unknown `kid` at most once per
 * cooldown) is made once. Time comes from the Clock, so tests control it.
 */
export const makeJwtVerifier = (config: ResolvedJwtConfig): Effect.Effect<JwtVerifier, AuthConfigError> =>
  Effect.gen(function* () {
    const key =
      config.keySource._tag === "Remote"
        ? remoteKey(config, config.keySource.url)
        : yield* localKey(config.keySource.text, config.algorithms)
    const options = {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: [...config.algorithms],
      clockTolerance: config.clockToleranceSeconds,
      requiredClaims: ["exp"]
    }
    // jose bounds each key-set fetch itself; this bounds the whole check should anything else stall.
    const deadline = Duration.millis(config.jwksTimeoutMs + 1000)
    const verify = (token: string): Effect.Effect<JwtVerdict> => {
      if (token.length > MaxTokenLength) return Effect.succeed(invalid("token too long"))
      return Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) =>
          Effect.tryPromise({
            try: () =>
              jwtVerify(token, key, {
                ...options,
                currentDate: new Date(now)
              }),
            catch: (e) => e
          })
        ),
        Effect.map((result) => verdictOfPayload(result.payload, config.roleClaim)),
        Effect.catch((e) => Effect.succeed(verdictOfError(e))),
        Effect.timeoutOption(deadline),
        Effect.map(
          Option.getOrElse((): JwtVerdict => ({ _tag: "Unavailable", reason: "verification timed out" }))
        )
      )
    }
    return { verify }
  })
