/**
 * The in-memory `ContactRequestRepository` of tests and tools; the contract is
 * the port's (`../ContactRequestRepository.ts`). One Ref holds every request,
 * so `submit`'s check and insert are one atomic step.
 */
import { Effect, Layer, Ref } from "effect"
import { type ContactRequestRecord, contactKeysOf, receiptOf } from "../../model/ContactRequest.ts"
import {
  type ContactCloseOutcome,
  ContactRequestRepository,
  type ContactSubmission
} from "../ContactRequestRepository.ts"

const sameKeys = (a: ContactRequestRecord, b: ContactRequestRecord): boolean => {
  const x = contactKeysOf(a)
  const y = contactKeysOf(b)
  return x.entity_key === y.entity_key && x.email_key === y.email_key
}

const layer = Layer.effect(
  ContactRequestRepository,
  Effect.gen(function* () {
    const store = yield* Ref.make<ReadonlyArray<ContactRequestRecord>>([])
    return ContactRequestRepository.of({
      submit: (request) =>
        Ref.modify(store, (all): [ContactSubmission, ReadonlyArray<ContactRequestRecord>] => {
          const record: ContactRequestRecord = { ...request, status: "open", closed_at: null }
          const open = all.find((r) => r.status === "open" && sameKeys(r, record))
          return open === undefined
            ? [{ receipt: receiptOf(record), created: true }, [...all, record]]
            : [{ receipt: receiptOf(open), created: false }, all]
        }),
      list: (status, limit) =>
        Effect.map(Ref.get(store), (all) => {
          const matching = all
            .filter((r) => status === "all" || r.status === status)
            .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
          return { items: matching.slice(0, limit), total: matching.length }
        }),
      close: (id, at) =>
        Ref.modify(store, (all): [ContactCloseOutcome, ReadonlyArray<ContactRequestRecord>] => {
          const found = all.find((r) => r.id === id)
          if (found === undefined) return [{ _tag: "NotFound" }, all]
          if (found.closed_at !== null) return [{ _tag: "AlreadyClosed", closed_at: found.closed_at }, all]
          const closed: ContactRequestRecord = { ...found, status: "closed", closed_at: at }
          return [{ _tag: "Closed", closed_at: at }, all.map((r) => (r.id === id ? closed : r))]
        })
    })
  })
)

export const ContactRequestRepositoryMemory = { layer }
