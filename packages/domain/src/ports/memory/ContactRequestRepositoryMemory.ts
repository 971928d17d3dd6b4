/**
 * The in-memory `ContactRequestRepository` of tests and tools; the contract is
 * the port's (`../ContactRequestRepository.ts`). One Ref holds every request
 * and every receipt, so `submit`'s check and writes are one atomic step.
 */
import { Effect, Layer, Ref } from "effect"
import {
  type ContactRequestRecord,
  contactKeysOf,
  type NewContactRequest
} from "../../model/ContactRequest.ts"
import {
  type ContactCloseOutcome,
  ContactRequestRepository,
  type ContactSubmission
} from "../ContactRequestRepository.ts"

/** A recorded receipt: a submission's reference id and the request it belongs to. */
interface Receipt {
  readonly id: string
  readonly request_id: string
  readonly created_at: string
}

interface Store {
  readonly requests: ReadonlyArray<ContactRequestRecord>
  readonly receipts: ReadonlyArray<Receipt>
}

const sameKeys = (a: NewContactRequest, b: NewContactRequest): boolean => {
  const x = contactKeysOf(a)
  const y = contactKeysOf(b)
  return x.entity_key === y.entity_key && x.email_key === y.email_key
}

/** The stored request an id names: its own id, or the reference id of one of its receipts. */
const requestIdOf = (store: Store, id: string): string | undefined =>
  store.requests.some((r) => r.id === id) ? id : store.receipts.find((r) => r.id === id)?.request_id

const layer = Layer.effect(
  ContactRequestRepository,
  Effect.gen(function* () {
    const store = yield* Ref.make<Store>({ requests: [], receipts: [] })
    return ContactRequestRepository.of({
      submit: (submission) =>
        Ref.modify(store, ({ requests, receipts }): [ContactSubmission, Store] => {
          const open = requests.find((r) => r.status === "open" && sameKeys(r, submission))
          const request_id = open?.id ?? submission.id
          const receipt = { id: submission.id, request_id, created_at: submission.created_at }
          return [
            { request_id, created: open === undefined },
            {
              requests:
                open === undefined
                  ? [...requests, { ...submission, status: "open", closed_at: null }]
                  : requests,
              receipts: [...receipts, receipt]
            }
          ]
        }),
      list: (status, limit) =>
        Effect.map(Ref.get(store), ({ requests, receipts }) => {
          const matching = requests
            .filter((r) => status === "all" || r.status === status)
            .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
          const items = matching.slice(0, limit).map((r) => ({
            ...r,
            receipt_ids: [
              r.id,
              ...receipts
                .filter((x) => x.request_id === r.id && x.id !== r.id)
                .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
                .map((x) => x.id)
            ]
          }))
          return { items, total: matching.length }
        }),
      close: (id, at) =>
        Ref.modify(store, (all): [ContactCloseOutcome, Store] => {
          const request_id = requestIdOf(all, id)
          const found = all.requests.find((r) => r.id === request_id)
          if (found === undefined) return [{ _tag: "NotFound" }, all]
          if (found.closed_at !== null)
            return [{ _tag: "AlreadyClosed", request_id: found.id, closed_at: found.closed_at }, all]
          const closed: ContactRequestRecord = { ...found, status: "closed", closed_at: at }
          return [
            { _tag: "Closed", request_id: found.id, closed_at: at },
            { ...all, requests: all.requests.map((r) => (r.id === found.id ? closed : r)) }
          ]
        })
    })
  })
)

export const ContactRequestRepositoryMemory = { layer }
