/**
 * Handler of POST /contacts (api/ContactsApi.ts). The body was decoded and
 * its bounds checked by the contract (422 naming the field); here the client
 * address draws one coverage request from its own allowance (limits/RateLimit.ts
 * `checkContact`, whoever the caller is), the ContactService records the
 * submission, and its own receipt is answered 201, never cached: the status,
 * headers and body never tell a sender whether anyone asked before. Nothing
 * here logs the address or the name sent: a submission's log line has its
 * reference id, the stored request's id and whether it started that request.
 */
import { ContactService } from "@ratings/domain/services/ContactService"
import { Effect, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { ClientAddress } from "./Authentication.ts"
import { NoStore } from "./Caching.ts"
import { mapReadErrors } from "./ErrorMapping.ts"
import { RequestRateLimiter } from "./limits/RateLimit.ts"

const noStore = HttpEffect.appendPreResponseHandler((_, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", NoStore))
)

/** The address authentication established; the socket's when none was (a server without it). */
const clientAddress = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(
    Effect.serviceOption(ClientAddress),
    Option.getOrElse(() => Option.getOrElse(request.remoteAddress, () => "unknown"))
  )

export const ContactHandlers = HttpApiBuilder.group(
  RatingsApi,
  "contacts",
  Effect.fnUntraced(function* (handlers) {
    const contacts = yield* ContactService
    const limiter = yield* RequestRateLimiter
    return handlers.handle("create", ({ payload, request }) =>
      Effect.gen(function* () {
        yield* noStore
        yield* limiter.checkContact(yield* clientAddress(request))
        const { receipt, request_id, created } = yield* mapReadErrors(contacts.submit(payload))
        yield* Effect.logInfo("coverage request received").pipe(
          Effect.annotateLogs({
            contact_receipt_id: receipt.id,
            contact_request_id: request_id,
            new: created
          })
        )
        return receipt
      }).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))
    )
  })
)
