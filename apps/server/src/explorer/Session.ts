/**
 * Who an explorer request is from, and the sign-in and sign-out forms. The
 * caller is the server's one admission step's (Admission.ts), which reads the
 * `ratings_key` cookie on the explorer's paths only, so tiers, revoked keys,
 * rate limits and the failed-credential allowance are the API's own. Signing
 * in checks the key the same way before the cookie is set (HttpOnly,
 * SameSite=Strict, Path=/, Secure behind an https proxy, a session cookie);
 * every POST form must come from this origin (`sameOrigin`), or it is a 403.
 */
import type { Admission, Admitted, Refused } from "@ratings/adapters-http/server/admission/Admission"
import { KeyCookie } from "@ratings/adapters-http/server/admission/Credential"
import * as Step from "@ratings/adapters-http/server/admission/Step"
import { InvalidKeyError, InvalidTokenError } from "@ratings/adapters-http/api/Authentication"
import { RateLimitedError } from "@ratings/adapters-http/api/Errors"
import { handoffOf } from "@ratings/adapters-http/server/front/Handoff"
import type { RequestRateLimiter } from "@ratings/adapters-http/server/limits/RateLimit"
import type { Caller } from "@ratings/domain/model/Caller"
import { Effect, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { CacheVersions } from "@ratings/adapters-http/server/cache/ResponseCache"

/** An explorer request let in: its caller and the versions read for it. */
export interface Entered {
  readonly _tag: "Entered"
  readonly caller: Caller
  readonly versions: CacheVersions | undefined
}

/** An explorer request turned away: the status, what to tell the person, and whether the cookie is dropped. */
export interface TurnedAway {
  readonly _tag: "TurnedAway"
  readonly status: number
  readonly message: string
  readonly dropCookie: boolean
}

export type Entry = Entered | TurnedAway

const factsOf = (request: HttpServerRequest.HttpServerRequest) => ({
  authorization: request.headers.authorization,
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  forwardedFor: request.headers["x-forwarded-for"],
  cookie: request.headers.cookie,
  target: request.url
})

/** What a refusal tells the person (no credential is ever repeated). */
const turnedAway = (error: Refused["error"], cookie: boolean): TurnedAway => {
  if (error instanceof InvalidKeyError || error instanceof InvalidTokenError)
    return {
      _tag: "TurnedAway",
      status: 401,
      message: cookie
        ? "The API key you signed in with is no longer accepted (revoked or unknown): you are signed out."
        : "The credential sent with the request was refused.",
      dropCookie: cookie
    }
  if (error instanceof RateLimitedError)
    return {
      _tag: "TurnedAway",
      status: 429,
      message: "Too many requests: wait a moment and reload.",
      dropCookie: false
    }
  return {
    _tag: "TurnedAway",
    status: 503,
    message: "The service is unavailable: try again shortly.",
    dropCookie: false
  }
}

/**
 * The request's admission, as the lane handed it over or made here, enacted:
 * the rate-limit headers on the answer, or the reason it is turned away.
 */
export const enter = (
  {
    admission,
    limiter
  }: { readonly admission: Admission["Service"]; readonly limiter: RequestRateLimiter["Service"] },
  request: HttpServerRequest.HttpServerRequest
) =>
  Effect.gen(function* () {
    const handoff = handoffOf(request)
    const decided = yield* Step.toEffect(
      handoff?.admission ?? admission.admit(factsOf(request), handoff?.versions, true)
    )
    const cookie =
      request.headers.authorization === undefined && request.headers.cookie?.includes(KeyCookie) === true
    if (decided._tag === "Refused") {
      const enacted = limiter.enact({ ...decided, _tag: "Denied", kind: "anonymous" })
      return yield* Effect.as(Effect.ignore(enacted), turnedAway(decided.error, cookie))
    }
    const admitted: Admitted = decided
    if (admitted.draw !== undefined) {
      const refused = yield* Effect.flip(Effect.as(limiter.enact(admitted.draw), undefined)).pipe(
        Effect.option
      )
      if (Option.isSome(refused) && refused.value !== undefined) return turnedAway(refused.value, false)
    }
    return {
      _tag: "Entered",
      caller: admitted.caller,
      versions: admitted.versions
    } satisfies Entered as Entry
  })

/** The key's checks as admission makes them for a request that would carry it in the cookie. */
export const checkKey = (
  admission: Admission["Service"],
  request: HttpServerRequest.HttpServerRequest,
  key: string
) =>
  Effect.suspend(() =>
    Step.toEffect(
      admission.admit(
        { ...factsOf(request), authorization: undefined, cookie: `${KeyCookie}=${key}`, target: "/sign-in" },
        undefined,
        true
      )
    )
  )

/** Whether the request came over https, as the trusted proxies in front say (none trusted: plain http). */
export const overHttps = (request: HttpServerRequest.HttpServerRequest, trustedHops: number): boolean => {
  if (trustedHops === 0) return false
  const proto = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  return proto === "https"
}

/** The Set-Cookie of a signed-in key (a session cookie the page's script cannot read). */
export const keyCookie = (key: string, secure: boolean): string =>
  `${KeyCookie}=${key}; HttpOnly; SameSite=Strict; Path=/${secure ? "; Secure" : ""}`

/** The Set-Cookie that drops the key cookie. */
export const droppedKeyCookie = (secure: boolean): string =>
  `${KeyCookie}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? "; Secure" : ""}`

/** The host (and port) of a URL, lowercased; undefined when it is not one. */
const hostOf = (url: string | undefined): string | undefined => {
  if (url === undefined || url === "null") return undefined
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return undefined
  }
}

/**
 * Whether a form POST comes from a page of this origin: its Origin (else its
 * Referer) names the host the request was sent to (the forwarded one behind
 * trusted proxies). A request naming neither is refused too.
 */
export const sameOrigin = (request: HttpServerRequest.HttpServerRequest, trustedHops = 0): boolean => {
  const forwarded = trustedHops > 0 ? request.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined
  const host = (forwarded ?? request.headers.host)?.toLowerCase()
  if (host === undefined || host === "") return false
  const from = hostOf(request.headers.origin) ?? hostOf(request.headers.referer)
  return from === host
}

export type { Admitted }
