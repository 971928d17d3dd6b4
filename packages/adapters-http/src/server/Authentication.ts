/**
 * The server side of the Authentication middleware (spec part 5): it enacts
 * the request's admission decision (admission/Admission.ts), the one the lane
 * of cache hits handed over or else its own. Admitted: the caller, client
 * address and versions are provided, and the request-rate draw that
 * CallerPolicies concludes after attribution and cache headers. Refused: the
 * log line with its reason code, the 401's `WWW-Authenticate` challenge, the
 * answer's headers and the error. No credential is ever logged or returned.
 */
import type { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { CallerPolicies } from "../api/Api.ts"
import { Authentication, InvalidKeyError, InvalidTokenError } from "../api/Authentication.ts"
import { CurrentCaller } from "../api/CurrentCaller.ts"
import { Admission, type Admitted, type AdmissionFacts, type Refused } from "./admission/Admission.ts"
import * as Step from "./admission/Step.ts"
import type { AuthConfig, AuthConfigError } from "./AuthConfig.ts"
import { handoffOf } from "./front/Handoff.ts"
import { type Allowance, RequestRateLimiter } from "./limits/RateLimit.ts"
import { RequestVersions } from "./cache/ResponseCache.ts"

/**
 * The client's address as admission established it (the socket's, or behind
 * trusted proxies the forwarded one), whoever the caller is. Provided beside
 * CurrentCaller, for what is limited per address whatever the credential
 * (coverage requests, RateLimit.ts `checkContact`).
 */
export class ClientAddress extends Context.Service<ClientAddress, string>()(
  "@ratings/adapters-http/ClientAddress"
) {}

/** The caller's request-rate draw admission made for the request, which CallerPolicies enacts. */
export class AdmittedDraw extends Context.Service<AdmittedDraw, Allowance>()(
  "@ratings/adapters-http/AdmittedDraw"
) {}

/** What admission reads of a request the router has. */
export const factsOf = (request: HttpServerRequest.HttpServerRequest): AdmissionFacts => ({
  authorization: request.headers.authorization,
  remoteAddress: Option.getOrUndefined(request.remoteAddress),
  forwardedFor: request.headers["x-forwarded-for"],
  cookie: request.headers.cookie,
  target: request.url
})

/** Whether the endpoint's requests count on the request rate: those under CallerPolicies. */
const drawsFor = (options: { readonly endpoint?: HttpApiEndpoint.Top } | undefined): boolean =>
  options?.endpoint?.middlewares.has(CallerPolicies) === true

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

/** A refusal's log line: a credential refused (401), or one that could not be checked (503). */
const logged = (refused: Refused) => {
  const { error, reason } = refused
  if (reason === undefined) return Effect.void
  if (error instanceof InvalidKeyError || error instanceof InvalidTokenError)
    return Effect.logInfo("credential refused").pipe(
      Effect.annotateLogs({ reason, error: error.detail.error }),
      Effect.andThen(challenge(error.detail.error))
    )
  return Effect.logWarning("credential could not be checked: answered 503").pipe(
    Effect.annotateLogs({ reason })
  )
}

/** A refusal enacted: logged, challenged, and answered with its headers (its 429 counted as an anonymous one). */
const refuse = (limiter: RequestRateLimiter["Service"], refused: Refused) =>
  Effect.andThen(
    logged(refused),
    limiter.enact({ _tag: "Denied", error: refused.error, headers: refused.headers, kind: "anonymous" })
  )

/** The handler's effect with what admission established provided. */
const admit = <A, E, R>(
  httpEffect: Effect.Effect<A, E, R>,
  { caller, address, versions, draw }: Admitted
) => {
  const provided = httpEffect.pipe(
    Effect.provideService(CurrentCaller, caller),
    Effect.provideService(ClientAddress, address)
  )
  const withVersions =
    versions === undefined ? provided : Effect.provideService(provided, RequestVersions, versions)
  return draw === undefined ? withVersions : Effect.provideService(withVersions, AdmittedDraw, draw)
}

/** The middleware over Admission and the request rate limiter (whose `enact` answers and counts refusals). */
export const layerAuthenticationOverAdmission = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const admission = yield* Admission
    const limiter = yield* RequestRateLimiter
    return Authentication.of({
      bearer: (httpEffect, options) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const handoff = handoffOf(request)
          const decided = yield* Step.toEffect(
            handoff?.admission ?? admission.admit(factsOf(request), handoff?.versions, drawsFor(options))
          )
          if (decided._tag === "Refused") return yield* refuse(limiter, decided)
          return yield* admit(httpEffect, decided)
        })
    })
  })
)

/**
 * The middleware with an Admission of its own over the ApiKeyRepository port
 * and the request rate limiter (the one CallerPolicies uses, so that failed
 * credentials and anonymous requests share counters), for a checked
 * configuration. Fails at start-up with AuthConfigError when it is unusable.
 */
export const layerAuthentication = (
  config: AuthConfig = {}
): Layer.Layer<Authentication, AuthConfigError, ApiKeyRepository | RequestRateLimiter> =>
  layerAuthenticationOverAdmission.pipe(Layer.provide(Admission.layer(config)))
