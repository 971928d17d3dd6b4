/**
 * The sign-in and sign-out forms' routes. POST /sign-in (form field `key`)
 * checks the key through admission exactly as a page request carrying it
 * would be (a failed key counts against the address); a good key is kept in
 * the `ratings_key` cookie and the browser sent home (303); a bad or revoked
 * one re-renders the form with the reason (401) and sets nothing. POST
 * /sign-out drops the cookie. Both refuse a form from another origin (403).
 */
import { RateLimitedError, ServiceUnavailableError } from "@ratings/adapters-http/api/Errors"
import { callerKind } from "@ratings/domain/model/Caller"
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse, UrlParams } from "effect/http"
import { el } from "./Dom.ts"
import { bytesOf, pageResponse } from "./Html.ts"
import { Layout, sessionBar } from "./Layout.ts"
import { type ExplorerSettings, explorerPage, messagePage, seeOther } from "./Pages.ts"
import { checkKey, droppedKeyCookie, keyCookie, overHttps, sameOrigin } from "./Session.ts"

const ForeignForm = "This form was sent from another site, so it was not accepted."

/** The sign-in page: the form, with what went wrong last time. */
const signInPage = (settings: ExplorerSettings, status: number, notice: string | undefined) =>
  pageResponse(
    bytesOf(
      Layout({
        branding: settings.branding,
        viewer: { kind: "anonymous" },
        title: "Sign in",
        section: "",
        notice,
        children: el(
          "section",
          null,
          el("h1", null, "Sign in"),
          el(
            "p",
            { class: "lead" },
            "Sign in with your API key to see what your tier may read. The key is kept in a cookie for this site only, until you sign out or close the browser."
          ),
          sessionBar({ kind: "anonymous" })
        )
      })
    ),
    status,
    { "cache-control": "no-store" }
  )

const refusalStatus = (error: unknown): number =>
  error instanceof RateLimitedError ? 429 : error instanceof ServiceUnavailableError ? 503 : 401

const refusalReason = (error: unknown): string => {
  const status = refusalStatus(error)
  return status === 401
    ? "That API key was not accepted: it is unknown, revoked or mistyped."
    : status === 429
      ? "Too many attempts from this address: wait a while before trying again."
      : "Keys cannot be checked right now: try again shortly."
}

const keyOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.option(request.urlParamsBody), (params) =>
    Option.isNone(params) ? undefined : Option.getOrUndefined(UrlParams.getFirst(params.value, "key"))?.trim()
  )

const signIn = (settings: ExplorerSettings) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    if (!sameOrigin(request, settings.trustedHops))
      return messagePage(settings, { kind: "anonymous" }, 403, "Forbidden", ForeignForm)
    const key = yield* keyOf(request)
    if (key === undefined || key === "") return signInPage(settings, 400, "Enter an API key to sign in.")
    const decided = yield* checkKey(settings.services.admission, request, key)
    const { limiter } = settings.services
    if (decided._tag === "Refused") {
      // The refusal's rate-limit headers (Retry-After on a 429) on the page, as the API sends them.
      yield* Effect.ignore(
        limiter.enact({ _tag: "Denied", error: decided.error, headers: decided.headers, kind: "anonymous" })
      )
      return signInPage(settings, refusalStatus(decided.error), refusalReason(decided.error))
    }
    if (decided.draw !== undefined) {
      const drawn = yield* Effect.result(limiter.enact(decided.draw))
      if (drawn._tag === "Failure")
        return signInPage(settings, refusalStatus(drawn.failure), refusalReason(drawn.failure))
    }
    if (callerKind(decided.caller) === "anonymous")
      return signInPage(settings, 401, "That API key was not accepted.")
    return seeOther("/", { "set-cookie": keyCookie(key, overHttps(request, settings.trustedHops)) })
  })

const signOut = (settings: ExplorerSettings) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    sameOrigin(request, settings.trustedHops)
      ? seeOther("/", { "set-cookie": droppedKeyCookie(overHttps(request, settings.trustedHops)) })
      : messagePage(settings, { kind: "anonymous" }, 403, "Forbidden", ForeignForm)
  )

/** The routes of the two forms, and the sign-in page. */
export const signInRoutes = (settings: ExplorerSettings) => [
  HttpRouter.add("POST", "/sign-in", signIn(settings)),
  HttpRouter.add("POST", "/sign-out", signOut(settings)),
  HttpRouter.add(
    "GET",
    "/sign-in",
    explorerPage(settings, (context) =>
      Effect.succeed<HttpServerResponse.HttpServerResponse>(
        context.viewer.kind === "anonymous" ? signInPage(settings, 200, undefined) : seeOther("/")
      )
    )
  )
]
