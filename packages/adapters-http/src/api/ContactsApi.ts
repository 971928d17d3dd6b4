/**
 * Coverage requests (api-facts "Coverage requests"): `POST /contacts`, how
 * anyone asks for an entity to be rated (or re-rated, or corrected). The
 * shapes and bounds are the domain's (model/ContactRequest.ts); operators
 * list and close requests with `ratings contacts list|close`. Anonymous: a
 * key is accepted (it must work) but not needed, and does not raise the
 * allowance, which is per client address on a counter of its own
 * (RateLimit.ts `checkContact`), 429 with Retry-After past it. Every accepted
 * request is answered 201 with a receipt of its own (the domain's
 * `ContactReceipt`), so the answer never tells whether, or what, anyone sent
 * before.
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
import { documentExamples } from "./Examples.ts"
import { ContactReceiptExample, ContactRequestExample } from "./examples/AccountExamples.ts"

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
    "The receipt of a coverage request: what its sender sent (never the message), with the reference id of " +
    "this submission, its status (open until an operator closes the request) and when it was received"
})

export class ContactsApi extends HttpApiGroup.make("contacts").add(
  HttpApiEndpoint.post("create", "/contacts", {
    payload: ContactRequestBody,
    success: ContactReceiptBody.pipe(HttpApiSchema.status(201)),
    error: ListErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Request coverage (rate an entity)",
      description:
        "Asks the operators to rate an entity (request_type rating-request, the default), to review a " +
        "published rating (re-rating), to correct a fact (correction), or anything else (other). " +
        `Bounds: protocol_name 1 to ${ContactLimits.nameMax} characters with at least one visible, and no ` +
        "control, zero-width or direction characters nor line or paragraph separators; contact_email a " +
        `valid address of at most ${ContactLimits.emailMax} characters; message at most ` +
        `${ContactLimits.messageMax} characters, line breaks allowed, no other control, zero-width-space or ` +
        "direction characters. A field out of bounds is a 422 naming it. The body is JSON in UTF-8: another " +
        "charset is a 415. Every accepted request is answered 201 with its own receipt: what was sent (never " +
        "the message), a reference id of this submission, status open and when it was received. While a " +
        "request for the same entity name (ignoring case and whitespace) from the same address (ignoring " +
        "case) is open, sending it again is recorded against that request rather than stored as another; " +
        "the answer is the same either way. " +
        "Anonymous: a key is accepted but not needed. Limited per client address apart from the request " +
        "rate (5 an hour unless the operator configures another): past it, 429 with Retry-After; the " +
        "RateLimit headers of the answer are those of this allowance.",
      transform: documentExamples({
        request: ContactRequestExample,
        responses: { 201: ContactReceiptExample }
      })
    })
  )
) {}
