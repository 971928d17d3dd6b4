/**
 * Coverage requests (api-facts "Coverage requests"): `POST /contacts`, how
 * anyone asks for an entity to be rated (or re-rated, or corrected). The
 * shapes and bounds are the domain's (model/ContactRequest.ts); operators
 * list and close requests with `ratings contacts list|close`.
 *
 * Anonymous: a key is accepted (it must work, as everywhere) but not needed,
 * and does not raise the allowance: coverage requests are limited per client
 * address on a counter of their own (RateLimit.ts `checkContact`; 5 an hour
 * unless the operator configures another), 429 with Retry-After past it.
 *
 * 201 with the receipt for a new request; 200 with the receipt of the open
 * request it repeats (same entity name ignoring case and whitespace, same
 * address ignoring case), and nothing stored. The receipt holds only what its
 * requester sent (never the message) with the id, status and time.
 */
import {
  ContactLimits,
  ContactReceipt,
  ContactRequestCreate,
  ContactRequestTypes,
  DefaultContactRequestType
} from "@ratings/domain/model/ContactRequest"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ListErrors } from "./Errors.ts"

export const ContactRequestBody = ContactRequestCreate.annotate({
  identifier: "ContactRequest",
  description:
    "A coverage request. protocol_name and contact_email are required; request_type is one of " +
    `${ContactRequestTypes.join(", ")} (${DefaultContactRequestType} when omitted); message and entity_type ` +
    "are optional. Fields not listed here are ignored."
})

export const ContactReceiptBody = ContactReceipt.annotate({
  identifier: "ContactReceipt",
  description:
    "The receipt of a coverage request: what the requester sent (never the message), with the request's id, " +
    "its status (open until an operator closes it) and when it was received"
})

/** What each success status means (both answer the one ContactReceipt schema). */
const SuccessDescriptions: { readonly [status: string]: string } = {
  "201": "Created: the receipt of the new, open request",
  "200": "A repeat of an open request from the same address: that request's receipt; nothing was stored"
}

const describeSuccesses = (operation: { readonly [key: string]: unknown }) => {
  const responses = (operation.responses ?? {}) as { readonly [status: string]: object }
  const described = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      SuccessDescriptions[status] === undefined
        ? response
        : { ...response, description: SuccessDescriptions[status] }
    ])
  )
  return { ...operation, responses: described }
}

export class ContactsApi extends HttpApiGroup.make("contacts").add(
  HttpApiEndpoint.post("create", "/contacts", {
    payload: ContactRequestBody,
    success: [
      ContactReceiptBody.pipe(HttpApiSchema.status(201)),
      ContactReceiptBody.pipe(HttpApiSchema.status(200))
    ],
    error: ListErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Request coverage (rate an entity)",
      description:
        "Asks the operators to rate an entity (request_type rating-request, the default), to review a " +
        "published rating (re-rating), to correct a fact (correction), or anything else (other). " +
        `Bounds: protocol_name 1 to ${ContactLimits.nameMax} characters without control characters; ` +
        `contact_email a valid address of at most ${ContactLimits.emailMax} characters; message at most ` +
        `${ContactLimits.messageMax} characters. A field out of bounds is a 422 naming it. ` +
        "201 with the receipt of the new request. While a request for the same entity name (ignoring case " +
        "and whitespace) from the same address (ignoring case) is open, sending it again stores nothing and " +
        "answers 200 with that request's receipt; once it is closed, a new request can be sent. " +
        "Anonymous: a key is accepted but not needed. Limited per client address apart from the request " +
        "rate (5 an hour unless the operator configures another): past it, 429 with Retry-After; the " +
        "RateLimit headers of the answer are those of this allowance.",
      transform: describeSuccesses
    })
  )
) {}
