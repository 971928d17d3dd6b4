/**
 * Port: coverage requests (model/ContactRequest.ts). `submit` is the one
 * place the "one open request per entity name and address" rule is kept,
 * atomically: however many identical requests arrive at once, in however many
 * server processes, one is stored and every other is answered its receipt.
 */
import { Context, type Effect } from "effect"
import type {
  ContactReceipt,
  ContactRequestRecord,
  ContactRequestStatus,
  NewContactRequest
} from "../model/ContactRequest.ts"
import type { Page, StoreError } from "./StoreError.ts"

/** What `submit` did: stored the request (`created`), or found the open one it repeats. */
export interface ContactSubmission {
  readonly receipt: ContactReceipt
  readonly created: boolean
}

/** What `close` found. */
export type ContactCloseOutcome =
  | { readonly _tag: "Closed"; readonly closed_at: string }
  | { readonly _tag: "AlreadyClosed"; readonly closed_at: string }
  | { readonly _tag: "NotFound" }

/** Which requests `list` shows. */
export type ContactStatusFilter = ContactRequestStatus | "all"

export class ContactRequestRepository extends Context.Service<
  ContactRequestRepository,
  {
    /**
     * Stores `request` as open, unless an open request has the same keys
     * (`contactKeysOf`): then nothing is stored and that request's receipt
     * is answered.
     */
    readonly submit: (request: NewContactRequest) => Effect.Effect<ContactSubmission, StoreError>
    /** The requests of a status, oldest first, at most `limit`; `total` counts every match. */
    readonly list: (
      status: ContactStatusFilter,
      limit: number
    ) => Effect.Effect<Page<ContactRequestRecord>, StoreError>
    /** Closes an open request at `at`; an unknown id (a malformed one included) is NotFound. */
    readonly close: (id: string, at: string) => Effect.Effect<ContactCloseOutcome, StoreError>
  }
>()("@ratings/domain/ports/ContactRequestRepository") {}
