/**
 * Port: coverage requests (model/ContactRequest.ts). `submit` is the one
 * place the "one open request per entity name and address" rule is kept,
 * atomically: however many identical requests arrive at once, in however many
 * server processes, one is stored and every other is recorded as a receipt of
 * it. Every submission, the first included, is recorded as a receipt (its id,
 * the request it belongs to, when), so a reference id a requester was given
 * always leads an operator to the stored request.
 */
import { Context, type Effect } from "effect"
import type {
  ContactRequestListed,
  ContactRequestStatus,
  NewContactRequest
} from "../model/ContactRequest.ts"
import type { Page, StoreError } from "./StoreError.ts"

/** What `submit` did: stored the submission as a new request (`created`), or recorded it against the open one it repeats. */
export interface ContactSubmission {
  /** The stored request the submission's receipt belongs to: its own id when created. */
  readonly request_id: string
  readonly created: boolean
}

/** What `close` found; `request_id` is the stored request's (the id given may be a receipt's). */
export type ContactCloseOutcome =
  | { readonly _tag: "Closed"; readonly request_id: string; readonly closed_at: string }
  | { readonly _tag: "AlreadyClosed"; readonly request_id: string; readonly closed_at: string }
  | { readonly _tag: "NotFound" }

/** Which requests `list` shows. */
export type ContactStatusFilter = ContactRequestStatus | "all"

export class ContactRequestRepository extends Context.Service<
  ContactRequestRepository,
  {
    /**
     * Stores `submission` as an open request under its id, unless an open
     * request has the same keys (`contactKeysOf`): then no request is stored.
     * Either way the submission's id is recorded as a receipt of the request
     * it belongs to, and the work done is the same.
     */
    readonly submit: (submission: NewContactRequest) => Effect.Effect<ContactSubmission, StoreError>
    /** The requests of a status, oldest first, at most `limit`; `total` counts every match. */
    readonly list: (
      status: ContactStatusFilter,
      limit: number
    ) => Effect.Effect<Page<ContactRequestListed>, StoreError>
    /**
     * Closes an open request at `at`, named by its id or any of its receipts'
     * reference ids; an unknown id (a malformed one included) is NotFound.
     */
    readonly close: (id: string, at: string) => Effect.Effect<ContactCloseOutcome, StoreError>
  }
>()("@ratings/domain/ports/ContactRequestRepository") {}
