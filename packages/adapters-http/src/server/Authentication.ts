/**
 * The server side of the Authentication middleware: who the caller is, from
 * the `Authorization` header (spec part 5).
 *
 * - No header: anonymous, by client address.
 * - `Bearer rk_...`: an API key. Its SHA-256 digest is looked up (the store
 *   never sees the key); a known, unrevoked key gives its tier, anything else
 *   is 401 invalid_key.
 * - Any other bearer token: a JWT of the identity provider (JwtVerifier). An
 *   admin's gives the admin caller; a valid one without an admin role is
 *   anonymous (the bypass is "silently ignored" for anyone else); any other is
 *   401 invalid_token, and a key set that cannot be fetched is 503.
 *
 * A credential that fails counts against the client's address like an
 * anonymous request (RateLimit.ts), and once the address's failed credentials
 * have used the anonymous allowance, a credential from it is refused with 429
 * before the key is looked up or the token verified: a flood of made-up keys
 * costs a counter read each, not a query. A valid credential counts nothing
 * on the address (ADR 0006 "Failed credentials").
 *
 * Keys in memory (KeyMemo.ts): with a response cache that reads versions
 * from the database, a keyed request costs the shared version read instead
 * of a key lookup of its own, and a revoked key is still refused on the
 * first request that begins after the revocation committed, in every
 * process. The versions read are handed to the request (RequestVersions),
 * whose cached read uses them; versions the lane of cache hits already read
 * for the request (HitLane.ts) are used instead of reading them again.
 *
 * The tier gate stays in the domain: this only says who is calling. Nothing
 * here logs or returns a credential: refusals are logged with a reason code.
 */
import { isIP } from "node:net"
import { Caller } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Authentication, InvalidKeyError, InvalidTokenError } from "../api/Authentication.ts"
import { CurrentCaller } from "../api/CurrentCaller.ts"
import { ServiceUnavailableError } from "../api/Errors.ts"
import { type AuthConfig, type AuthConfigError, resolveJwtConfig, trustedHops } from "./AuthConfig.ts"
import { hashApiKey, KeyPrefix, looksLikeApiKey } from "./ApiKeyCrypto.ts"
import { type JwtVerifier, makeJwtVerifier, NoIdentityProvider } from "./JwtVerifier.ts"
import { RequestRateLimiter } from "./RateLimit.ts"
import { KeyMemo } from "./KeyMemo.ts"
import { handoffOf } from "./front/Handoff.ts"
import { type CacheVersions, RequestVersions, ResponseCache } from "./cache/ResponseCache.ts"

/**
 * The client's address as authentication established it (the socket's, or
 * behind trusted proxies the forwarded one: `clientAddressOf`), whoever the
 * caller is. Provided beside CurrentCaller, for what is limited per address
 * whatever the credential (coverage requests, RateLimit.ts `checkContact`).
 */
export class ClientAddress extends Context.Service<ClientAddress, string>()(
  "@ratings/adapters-http/ClientAddress"
) {}

/** What a request's credential established: the caller, and the versions read for it (if any). */
interface Established {
  readonly caller: Caller
  readonly versions?: CacheVersions | undefined
}

/** What the Authorization header holds. */
export type Credential =
  | { readonly _tag: "None" }
  | { readonly _tag: "ApiKey"; readonly key: string }
  | { readonly _tag: "Jwt"; readonly token: string }
  /** A header that is not `Bearer <one token>` (another scheme, or an empty token). */
  | { readonly _tag: "Malformed" }

const BearerPattern = /^Bearer +([^\s]+) *$/i

export const credentialOf = (authorization: string | undefined): Credential => {
  if (authorization === undefined || authorization.trim() === "") return { _tag: "None" }
  const token = BearerPattern.exec(authorization)?.[1]
  if (token === undefined) return { _tag: "Malformed" }
  return token.startsWith(KeyPrefix) ? { _tag: "ApiKey", key: token } : { _tag: "Jwt", token }
}

/**
 * The client's address: the socket's, or behind `hops` trusted proxies the
 * entry of X-Forwarded-For that the outermost trusted proxy saw (counted from
 * the right: entries further left are whatever the client chose to send).
 */
export const clientAddressOf = (
  remoteAddress: Option.Option<string>,
  forwardedFor: string | undefined,
  hops: number
): string => {
  const socket = Option.getOrElse(remoteAddress, () => "unknown")
  if (hops === 0 || forwardedFor === undefined) return socket
  const entries = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const candidate = entries[Math.max(0, entries.length - hops)]
  return candidate !== undefined && isIP(candidate) !== 0 ? candidate : socket
}

const challenge = (error: "invalid_token" | "invalid_key") =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(
      response.status === 401
        ? HttpServerResponse.setHeader(
            response,
            "www-authenticate",
            `Bearer error="invalid_token", error_description="${error}"`
          )
        : response
    )
  )

const refusal = (error: InvalidKeyError | InvalidTokenError, reason: string) =>
  Effect.logInfo("credential refused").pipe(
    Effect.annotateLogs({ reason, error: error.detail.error }),
    Effect.andThen(challenge(error.detail.error)),
    Effect.andThen(Effect.fail(error))
  )

const unavailable = (reason: string) =>
  Effect.logWarning("credential could not be checked: answered 503").pipe(
    Effect.annotateLogs({ reason }),
    Effect.andThen(Effect.fail(ServiceUnavailableError.instance))
  )

/**
 * The middleware over the ApiKeyRepository port and the request rate limiter
 * (the one CallerPolicies uses, so that failed credentials and anonymous
 * requests share counters), for a checked configuration. Fails at start-up
 * with AuthConfigError when the configuration is unusable.
 */
export const layerAuthentication = (
  config: AuthConfig = {}
): Layer.Layer<Authentication, AuthConfigError, ApiKeyRepository | RequestRateLimiter> =>
  Layer.effect(
    Authentication,
    Effect.gen(function* () {
      const keys = yield* ApiKeyRepository
      const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
      const limiter = yield* RequestRateLimiter
      // The server's memo, shared with the lane of cache hits; else one of this middleware's own.
      const memo = Option.getOrElse(yield* Effect.serviceOption(KeyMemo), () =>
        KeyMemo.make(keys, cache?.versions)
      )
      const jwt: JwtVerifier =
        config.jwt === undefined
          ? NoIdentityProvider
          : yield* Effect.flatMap(resolveJwtConfig(config.jwt), makeJwtVerifier)
      const hops = trustedHops(config.trustProxy)

      const callerOf = Effect.fnUntraced(function* (
        request: HttpServerRequest.HttpServerRequest,
        address: string
      ) {
        // Versions the lane of cache hits read for this request before handing it over (HitLane.ts).
        const preRead = handoffOf(request)?.versions
        const anonymous = (): Established => ({ caller: Caller.anonymous(address), versions: preRead })
        // A failed credential is counted on the address first: past the allowance it is a 429, not a 401.
        const refuse = (error: InvalidKeyError | InvalidTokenError, reason: string) =>
          Effect.andThen(limiter.countFailedCredential(address), refusal(error, reason))
        const credential = credentialOf(request.headers.authorization)
        switch (credential._tag) {
          case "None":
            return anonymous()
          case "Malformed":
            return yield* refuse(InvalidTokenError.instance, "not a bearer token")
          case "ApiKey": {
            if (!looksLikeApiKey(credential.key))
              return yield* refuse(InvalidKeyError.instance, "malformed key")
            yield* limiter.admitCredential(address)
            const { found, versions } = yield* memo.keyOf(hashApiKey(credential.key), preRead)
            if (Option.isNone(found)) return yield* refuse(InvalidKeyError.instance, "unknown or revoked key")
            const established: Established = {
              caller: Caller.apiKey(found.value.tier, found.value.account_id, found.value.id),
              versions
            }
            return established
          }
          case "Jwt": {
            yield* limiter.admitCredential(address)
            const verdict = yield* jwt.verify(credential.token)
            switch (verdict._tag) {
              case "Admin":
                return { caller: Caller.admin(verdict.subject, verdict.role) } satisfies Established
              case "NotAdmin":
                return anonymous()
              case "Invalid":
                return yield* refuse(InvalidTokenError.instance, verdict.reason)
              case "Unavailable":
                return yield* unavailable(verdict.reason)
            }
          }
        }
      })

      return Authentication.of({
        bearer: (httpEffect) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const address = clientAddressOf(request.remoteAddress, request.headers["x-forwarded-for"], hops)
            return Effect.flatMap(callerOf(request, address), ({ caller, versions }) => {
              const provided = httpEffect.pipe(
                Effect.provideService(CurrentCaller, caller),
                Effect.provideService(ClientAddress, address)
              )
              return versions === undefined
                ? provided
                : Effect.provideService(provided, RequestVersions, versions)
            })
          })
      })
    })
  )
