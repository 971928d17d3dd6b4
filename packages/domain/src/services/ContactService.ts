/**
 * Use case: a coverage request sent to POST /contacts (model/ContactRequest.ts).
 * The request is given its id and time, its name trimmed and a blank message
 * dropped, and stored through the repository, which keeps one open request per
 * entity name and address: a repeat is answered the receipt of the open one.
 * Anyone may send one: the HTTP layer bounds how often, per client address.
 */
import { Clock, Context, Effect, Layer } from "effect"
import {
  type ContactRequestCreate,
  DefaultContactRequestType,
  type NewContactRequest
} from "../model/ContactRequest.ts"
import { isoTimestamp } from "../model/Primitives.ts"
import { ContactRequestRepository, type ContactSubmission } from "../ports/ContactRequestRepository.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import type { StoreError } from "../ports/StoreError.ts"

/** The request to store for a body: defaults applied, the name trimmed, a blank message none. */
export const newContactRequest = (body: ContactRequestCreate, id: string, at: string): NewContactRequest => ({
  id,
  protocol_name: body.protocol_name.trim(),
  entity_type: body.entity_type ?? null,
  contact_email: body.contact_email,
  request_type: body.request_type ?? DefaultContactRequestType,
  message: body.message == null || body.message.trim() === "" ? null : body.message,
  created_at: at
})

export class ContactService extends Context.Service<
  ContactService,
  {
    readonly submit: (body: ContactRequestCreate) => Effect.Effect<ContactSubmission, StoreError>
  }
>()("@ratings/domain/services/ContactService") {
  static readonly layer = Layer.effect(
    ContactService,
    Effect.gen(function* () {
      const requests = yield* ContactRequestRepository
      const ids = yield* IdGenerator
      return ContactService.of({
        submit: Effect.fn("ContactService.submit")(function* (body) {
          const id = yield* ids.uuid
          const now = yield* Clock.currentTimeMillis
          return yield* requests.submit(newContactRequest(body, id, isoTimestamp(now)))
        })
      })
    })
  )
}
