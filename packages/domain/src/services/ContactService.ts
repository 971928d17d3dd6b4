/**
 * Use case: a coverage request sent to POST /contacts (model/ContactRequest.ts).
 * The submission is given a fresh id and the time, its name trimmed and a
 * message without a visible character dropped, and handed to the repository,
 * which keeps one open request per entity name and address and records the
 * submission as a receipt of the request it belongs to. The sender is
 * answered the receipt of their own submission, new or repeat alike: what
 * they sent, its own id and time, so the answer never shows whether, or what,
 * anyone sent before. Anyone may send one: the HTTP layer bounds how often,
 * per client address.
 */
import { Clock, Context, Effect, Layer } from "effect"
import {
  type ContactReceipt,
  type ContactRequestCreate,
  DefaultContactRequestType,
  hasVisibleCharacter,
  type NewContactRequest,
  receiptOf
} from "../model/ContactRequest.ts"
import { isoTimestamp } from "../model/Primitives.ts"
import { ContactRequestRepository } from "../ports/ContactRequestRepository.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import type { StoreError } from "../ports/StoreError.ts"

/** The submission of a body: defaults applied, the name trimmed, a message without a visible character none. */
export const newContactRequest = (body: ContactRequestCreate, id: string, at: string): NewContactRequest => ({
  id,
  protocol_name: body.protocol_name.trim(),
  entity_type: body.entity_type ?? null,
  contact_email: body.contact_email,
  request_type: body.request_type ?? DefaultContactRequestType,
  message: body.message == null || !hasVisibleCharacter(body.message) ? null : body.message,
  created_at: at
})

/**
 * What a submission is answered (`receipt`, the sender's own), and for the
 * operators' log only: the stored request it belongs to, and whether it
 * started that request.
 */
export interface ContactSubmitted {
  readonly receipt: ContactReceipt
  readonly request_id: string
  readonly created: boolean
}

export class ContactService extends Context.Service<
  ContactService,
  {
    readonly submit: (body: ContactRequestCreate) => Effect.Effect<ContactSubmitted, StoreError>
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
          const submission = newContactRequest(body, id, isoTimestamp(now))
          const { request_id, created } = yield* requests.submit(submission)
          return { receipt: receiptOf(submission), request_id, created }
        })
      })
    })
  )
}
