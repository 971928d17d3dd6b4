/**
 * One admission step for both entrances, the lane of cache hits and the
 * router's Authentication middleware: from a request's credential and
 * address to a caller and an allowance decision (ADR 0006). In order: the
 * client address (trusted proxies); the credential; for a key or a token,
 * the address's failed-credential allowance before it is looked up or
 * verified; a failed credential counted on the address; then the caller's
 * request-rate draw. A Step: at once on the memory store with a key held in
 * memory (KeyMemo.ts), an effect when it must wait. The decision is data,
 * which either entrance enacts (Authentication.ts) as it was made: nothing
 * is decided or counted twice.
 */
import { Caller } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Context, Effect, Layer, Option, Result } from "effect"
import { InvalidKeyError, InvalidTokenError } from "../../api/Authentication.ts"
import { type RateLimitedError, ServiceUnavailableError } from "../../api/Errors.ts"
import { type AuthConfig, type AuthConfigError, resolveJwtConfig, trustedHops } from "../AuthConfig.ts"
import { hashApiKey, looksLikeApiKey } from "../ApiKeyCrypto.ts"
import { type JwtVerdict, type JwtVerifier, makeJwtVerifier, NoIdentityProvider } from "../JwtVerifier.ts"
import { KeyMemo } from "../KeyMemo.ts"
import { type Allowance, type Denied, type LimiterSteps, RequestRateLimiter } from "../limits/RateLimit.ts"
import { type LimitHeaders, NoHeaders } from "../limits/Windows.ts"
import { type CacheVersions, ResponseCache } from "../cache/ResponseCache.ts"
import { addressOf, requestCredential } from "./Credential.ts"
import * as Step from "./Step.ts"

/** What admission reads of a request. */
export interface AdmissionFacts {
  readonly authorization: string | undefined
  readonly remoteAddress: string | undefined
  readonly forwardedFor: string | undefined
  /** The Cookie header: its key cookie counts only on the explorer's paths (Credential.ts). */
  readonly cookie?: string | undefined
  /** The request target, which says whether the cookie counts. */
  readonly target?: string | undefined
}

export interface Admitted {
  readonly _tag: "Admitted"
  readonly caller: Caller
  /** The client address, whoever the caller is (what is limited per address: ClientAddress). */
  readonly address: string
  /** The versions read for the request, for its cached reads (RequestVersions); none read: undefined. */
  readonly versions: CacheVersions | undefined
  /** The caller's request-rate draw; undefined for a request no request rate counts (/health, /metrics). */
  readonly draw: Allowance | undefined
}

export interface Refused {
  readonly _tag: "Refused"
  readonly error: InvalidKeyError | InvalidTokenError | RateLimitedError | ServiceUnavailableError
  /** The headers the answer carries (the failed credential's rate-limit headers, a 503's Retry-After). */
  readonly headers: LimitHeaders
  /** Why, for the log: the credential refused (401) or not checked (503); a limit's refusal has none. */
  readonly reason: string | undefined
}

export type Decision = Admitted | Refused

/** What admission is made of. */
export interface AdmissionDeps {
  readonly memo: KeyMemo["Service"]
  readonly jwt: JwtVerifier
  /** The trusted proxies in front of the server (AuthConfig.trustProxy). */
  readonly hops: number
  readonly limiter: LimiterSteps
}

const admitted = (caller: Caller, address: string, versions: CacheVersions | undefined): Admitted => ({
  _tag: "Admitted",
  caller,
  address,
  versions,
  draw: undefined
})

/** A limit's refusal (429, or 503 while its store is down), answered as the limit said. */
const refusedBy = (denied: Denied): Refused => ({
  _tag: "Refused",
  error: denied.error,
  headers: denied.headers,
  reason: undefined
})

/** A credential that failed: counted on the address first, so past the allowance it is a 429, not a 401. */
const refuse = (
  d: AdmissionDeps,
  address: string,
  error: InvalidKeyError | InvalidTokenError,
  reason: string
): Step.Step<Refused> =>
  Step.map(d.limiter.drawFailedCredential(address), (counted) =>
    counted._tag === "Denied"
      ? refusedBy(counted)
      : { _tag: "Refused", error, headers: counted.headers, reason }
  )

/** `then` once the address's failed credentials leave it a credential to check. */
const withinAllowance = (
  d: AdmissionDeps,
  address: string,
  then: () => Step.Step<Decision>
): Step.Step<Decision> =>
  Step.flatMap(d.limiter.readFailedCredentials(address), (read) =>
    read._tag === "Denied" ? refusedBy(read) : then()
  )

/** An API key: held under the keys' version read for the request, else looked up (KeyMemo.ts). */
const keyed = (
  d: AdmissionDeps,
  key: string,
  address: string,
  versions: CacheVersions | undefined
): Step.Step<Decision> => {
  const hash = hashApiKey(key)
  const held = versions?.api_keys === undefined ? undefined : d.memo.held(hash, versions.api_keys)
  if (held !== undefined)
    return admitted(Caller.apiKey(held.tier, held.account_id, held.id), address, versions)
  return Step.flatMap(Effect.result(d.memo.keyOf(hash, versions)), (looked): Step.Step<Decision> => {
    // The key store failed: a 503, which the memo has logged.
    if (Result.isFailure(looked))
      return { _tag: "Refused", error: looked.failure, headers: NoHeaders, reason: undefined }
    const { found, versions: read } = looked.success
    if (Option.isNone(found)) return refuse(d, address, InvalidKeyError.instance, "unknown or revoked key")
    return admitted(Caller.apiKey(found.value.tier, found.value.account_id, found.value.id), address, read)
  })
}

/** A JWT's verdict: an admin, anonymous for anyone else, refused when invalid, a 503 when it could not be checked. */
const verified = (
  d: AdmissionDeps,
  verdict: JwtVerdict,
  address: string,
  versions: CacheVersions | undefined
): Step.Step<Decision> => {
  switch (verdict._tag) {
    case "Admin":
      return admitted(Caller.admin(verdict.subject, verdict.role), address, undefined)
    case "NotAdmin":
      return admitted(Caller.anonymous(address), address, versions)
    case "Invalid":
      return refuse(d, address, InvalidTokenError.instance, verdict.reason)
    case "Unavailable":
      return {
        _tag: "Refused",
        error: ServiceUnavailableError.instance,
        headers: NoHeaders,
        reason: verdict.reason
      }
  }
}

/** The caller the request's credential establishes, or its refusal. */
const establish = (
  d: AdmissionDeps,
  facts: AdmissionFacts,
  versions: CacheVersions | undefined
): Step.Step<Decision> => {
  const address = addressOf(facts.remoteAddress, facts.forwardedFor, d.hops)
  const credential = requestCredential(facts.authorization, facts.cookie, facts.target)
  switch (credential._tag) {
    case "None":
      return admitted(Caller.anonymous(address), address, versions)
    case "Malformed":
      return refuse(d, address, InvalidTokenError.instance, "not a bearer token")
    case "ApiKey":
      if (!looksLikeApiKey(credential.key))
        return refuse(d, address, InvalidKeyError.instance, "malformed key")
      return withinAllowance(d, address, () => keyed(d, credential.key, address, versions))
    case "Jwt":
      return withinAllowance(d, address, () =>
        Step.flatMap(d.jwt.verify(credential.token), (verdict) => verified(d, verdict, address, versions))
      )
  }
}

/** The decision: what the credential establishes, then (`drawn`) the caller's request-rate draw. */
const admit =
  (d: AdmissionDeps) =>
  (facts: AdmissionFacts, versions: CacheVersions | undefined, drawn = true): Step.Step<Decision> => {
    const established = establish(d, facts, versions)
    if (!drawn) return established
    return Step.flatMap(established, (e) =>
      e._tag === "Refused"
        ? e
        : Step.map(d.limiter.drawRequest(e.caller), (draw): Admitted => ({ ...e, draw }))
    )
  }

export class Admission extends Context.Service<
  Admission,
  {
    /**
     * The decision for a request: `versions` are those already read for it
     * (by the lane, from a query sent after it began), else undefined. With
     * `drawn` false no request rate is drawn (a route none counts).
     */
    readonly admit: (
      facts: AdmissionFacts,
      versions: CacheVersions | undefined,
      drawn?: boolean
    ) => Step.Step<Decision>
  }
>()("@ratings/adapters-http/Admission") {
  static readonly make = (deps: AdmissionDeps): Admission["Service"] => Admission.of({ admit: admit(deps) })

  /**
   * Admission over the key store (through the server's KeyMemo, else one of
   * its own), the request rate limiter and a checked configuration; fails at
   * start-up with AuthConfigError when the configuration is unusable.
   */
  static readonly layer = (
    config: AuthConfig = {}
  ): Layer.Layer<Admission, AuthConfigError, ApiKeyRepository | RequestRateLimiter> =>
    Layer.effect(
      Admission,
      Effect.gen(function* () {
        const keys = yield* ApiKeyRepository
        const cache = Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache))
        const memo = Option.getOrElse(yield* Effect.serviceOption(KeyMemo), () =>
          KeyMemo.make(keys, cache?.versions)
        )
        const jwt: JwtVerifier =
          config.jwt === undefined
            ? NoIdentityProvider
            : yield* Effect.flatMap(resolveJwtConfig(config.jwt), makeJwtVerifier)
        const limiter = yield* RequestRateLimiter
        return Admission.make({ memo, jwt, hops: trustedHops(config.trustProxy), limiter })
      })
    )
}
