/**
 * A local stand-in for the identity provider, for development and tests: an
 * ES256 key pair, and admin tokens signed with its private key. The server
 * trusts the public key through `AuthConfig.jwt.publicKey`, so the token goes
 * through exactly the verification a real provider's would.
 *
 * Never a production path: in production the server holds only the provider's
 * public key (or JWKS URL) and cannot mint anything.
 */
import { createPrivateKey, generateKeyPairSync } from "node:crypto"
import type { AdminRole } from "@ratings/domain/model/Caller"
import { Clock, Effect, Schema } from "effect"
import { SignJWT } from "jose"

export const DevAlgorithm = "ES256"

export interface DevKeyPair {
  /** PKCS#8 PEM: keep it private (the CLI writes it under .data/dev-idp/ with mode 0600). */
  readonly privateKeyPem: string
  /** SPKI PEM: what `AuthConfig.jwt.publicKey` takes. */
  readonly publicKeyPem: string
}

/** A fresh ES256 (P-256) key pair. */
export const generateDevKeyPair = (): DevKeyPair => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  return {
    privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKeyPem: publicKey.export({ format: "pem", type: "spki" }).toString()
  }
}

export interface DevTokenOptions {
  readonly privateKeyPem: string
  readonly issuer: string
  readonly audience: string
  readonly subject: string
  readonly role: AdminRole
  readonly ttlSeconds: number
  /** `kid` header, for a key published in a JWK Set. */
  readonly keyId?: string | undefined
}

export class DevTokenError extends Schema.TaggedError<DevTokenError>()("DevTokenError", {
  message: Schema.String
}) {}

/** An admin JWT signed with the dev key; issued now (by the Clock), valid for ttlSeconds. */
export const mintDevAdminToken = (options: DevTokenOptions): Effect.Effect<string, DevTokenError> =>
  Effect.flatMap(Clock.currentTimeMillis, (millis) => {
    if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds <= 0)
      return Effect.fail(new DevTokenError({ message: "ttlSeconds must be a positive integer" }))
    const now = Math.floor(millis / 1000)
    return Effect.tryPromise({
      try: () =>
        new SignJWT({ role: options.role })
          .setProtectedHeader(
            options.keyId === undefined
              ? { alg: DevAlgorithm, typ: "JWT" }
              : { alg: DevAlgorithm, typ: "JWT", kid: options.keyId }
          )
          .setIssuer(options.issuer)
          .setAudience(options.audience)
          .setSubject(options.subject)
          .setIssuedAt(now)
          .setExpirationTime(now + options.ttlSeconds)
          .sign(createPrivateKey(options.privateKeyPem)),
      catch: () => new DevTokenError({ message: "the private key is not a usable ES256 PEM key" })
    })
  })
