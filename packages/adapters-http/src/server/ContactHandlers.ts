/**
 * Handler of POST /contacts (api/ContactsApi.ts). The body was decoded and
 * its bounds checked by the contract (422 naming the field); here the client
 * address draws one coverage request from its own allowance (RateLimit.ts
 * `checkContact`: whoever the caller is, key or none), the ContactService
 * stores the request, and the receipt is answered: 201 when it is new, 200
 * when it repeats an open request. Never cached (`no-store`): the receipt
 * is one requester's.
 *
 * Nothing here logs the address or the name sent: the log line of a request
 * has its id and whether it was new.
 */
import { ContactReceipt } from "@ratings/domain/model/ContactRequest"
import { ContactService } from "@ratings/domain/services/ContactService"
import { Effect, Option, Schema } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { ClientAddress } from "./Authentication.ts"
import { NoStore } from "./Caching.ts"
import { mapReadErrors } from "./ErrorMapping.ts"
import { RequestRateLimiter } from "./RateLimit.ts"

const noStore = HttpEffect.appendPreResponseHandler((_, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", NoStore))
)

/** The address authentication established; the socket's when none was (a server without it). */
const clientAddress = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(
    Effect.serviceOption(ClientAddress),
    Option.getOrElse(() => Option.getOrElse(request.remoteAddress, () => "unknown"))
  )

const encodeReceipt = Schema.encodeSync(ContactReceipt)

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
        const { receipt, created } = yield* mapReadErrors(contacts.submit(payload))
        yield* Effect.logInfo("coverage request received").pipe(
          Effect.annotateLogs({ contact_request_id: receipt.id, new: created })
        )
        // 201 is the endpoint's first success; a repeat is answered the same receipt as a 200.
        return created ? receipt : HttpServerResponse.jsonUnsafe(encodeReceipt(receipt), { status: 200 })
      }).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))
    )
  })
)
