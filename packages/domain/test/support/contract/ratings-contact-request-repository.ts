/**
 * The behaviour of the ContactRequestRepository port, run against every
 * implementation: over memory in the domain's
 * test/ports/memory/ContactRequestRepositoryMemory.test.ts, over Postgres in
 * adapters-sql's PgContactRequestRepository.test.ts.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { NewContactRequest } from "../../../src/model/ContactRequest.ts"
import { ContactRequestRepository } from "../../../src/ports/ContactRequestRepository.ts"
import { contract, type Target } from "./ratings-harness.ts"
import { T0, T1, T2, uuid } from "./ratings-fixtures.ts"

export const newRequest = (n: number, over: Partial<NewContactRequest> = {}): NewContactRequest => ({
  id: uuid(n, 7),
  protocol_name: `Protocol ${n}`,
  entity_type: "protocol",
  contact_email: `person${n}@example.com`,
  request_type: "rating-request",
  message: `a note ${n}`,
  created_at: T0,
  ...over
})

/** How `list` shows a stored request: open, with its receipts' ids (its own first). */
const listed = (r: NewContactRequest, receipt_ids: ReadonlyArray<string> = [r.id]) => ({
  ...r,
  status: "open" as const,
  closed_at: null,
  receipt_ids
})

export const contactRequestRepositoryContract = <D>(target: Target<ContactRequestRepository, D>) =>
  contract("ContactRequestRepository contract", target, (test) => {
    test("submit stores a new request as open under the submission's id, its first receipt", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const r = newRequest(1, { entity_type: null, message: null })
        const submitted = yield* repo.submit(r)
        assert.deepStrictEqual(submitted, { request_id: r.id, created: true })
        const page = yield* repo.list("all", 10)
        assert.deepStrictEqual(page, { items: [listed(r)], total: 1 })
      }))

    test("a repeat of an open request (same name ignoring case and whitespace, same address ignoring case) is not stored: it is recorded as another receipt of the open one", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const first = newRequest(2, { protocol_name: "Aave V4", contact_email: "Ana@Example.com" })
        yield* repo.submit(first)
        const again = newRequest(3, {
          protocol_name: "  aave  v4 ",
          contact_email: "ana@EXAMPLE.COM",
          request_type: "other",
          message: "another note",
          created_at: T1
        })
        assert.deepStrictEqual(yield* repo.submit(again), { request_id: first.id, created: false })
        const third = newRequest(4, {
          protocol_name: "AAVEV4",
          contact_email: "ana@example.com",
          created_at: T2
        })
        assert.deepStrictEqual(yield* repo.submit(third), { request_id: first.id, created: false })
        assert.deepStrictEqual(yield* repo.list("all", 10), {
          items: [listed(first, [first.id, again.id, third.id])],
          total: 1
        })
      }))

    test("close takes any receipt's reference id for the request it belongs to", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const first = newRequest(20, { protocol_name: "Receipt Close", contact_email: "rc@example.com" })
        const again = newRequest(21, {
          protocol_name: "receipt close",
          contact_email: "RC@example.com",
          created_at: T1
        })
        yield* repo.submit(first)
        yield* repo.submit(again)
        assert.deepStrictEqual(yield* repo.close(again.id, T2), {
          _tag: "Closed",
          request_id: first.id,
          closed_at: T2
        })
        assert.deepStrictEqual(yield* repo.close(first.id, T2), {
          _tag: "AlreadyClosed",
          request_id: first.id,
          closed_at: T2
        })
        assert.deepStrictEqual(
          (yield* repo.list("closed", 10)).items.map((x) => [x.id, x.receipt_ids]),
          [[first.id, [first.id, again.id]]]
        )
      }))

    test("another entity name or another address is another request", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        yield* repo.submit(newRequest(5, { protocol_name: "Lido", contact_email: "a@example.com" }))
        const otherName = yield* repo.submit(
          newRequest(6, { protocol_name: "Lido V2", contact_email: "a@example.com" })
        )
        const otherEmail = yield* repo.submit(
          newRequest(7, { protocol_name: "Lido", contact_email: "b@example.com" })
        )
        assert.isTrue(otherName.created)
        assert.isTrue(otherEmail.created)
        assert.strictEqual((yield* repo.list("open", 10)).total, 3)
      }))

    test("close closes an open request once (then AlreadyClosed, with the first closing time); an unknown or malformed id is NotFound", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const r = newRequest(8)
        yield* repo.submit(r)
        assert.deepStrictEqual(yield* repo.close(r.id, T1), {
          _tag: "Closed",
          request_id: r.id,
          closed_at: T1
        })
        assert.deepStrictEqual(yield* repo.close(r.id, T2), {
          _tag: "AlreadyClosed",
          request_id: r.id,
          closed_at: T1
        })
        assert.deepStrictEqual(yield* repo.close(uuid(999, 7), T2), { _tag: "NotFound" })
        assert.deepStrictEqual(yield* repo.close("not-a-uuid", T2), { _tag: "NotFound" })
        assert.deepStrictEqual((yield* repo.list("closed", 10)).items, [
          { ...r, status: "closed", closed_at: T1, receipt_ids: [r.id] }
        ])
      }))

    test("a closed request blocks nothing: the same request again is stored as a new open one", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const r = newRequest(9)
        yield* repo.submit(r)
        yield* repo.close(r.id, T1)
        const again = newRequest(10, { created_at: T2 })
        assert.deepStrictEqual(yield* repo.submit(again), { request_id: again.id, created: true })
        assert.deepStrictEqual(
          (yield* repo.list("all", 10)).items.map((x) => [x.id, x.status]),
          [
            [r.id, "closed"],
            [again.id, "open"]
          ]
        )
      }))

    test("list shows the requests of a status oldest first, at most limit, with the total of every match", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const a = newRequest(11, { created_at: T2 })
        const b = newRequest(12, { created_at: T0 })
        const c = newRequest(13, { created_at: T1 })
        for (const r of [a, b, c]) yield* repo.submit(r)
        yield* repo.close(c.id, T2)
        const ids = (page: { readonly items: ReadonlyArray<{ readonly id: string }> }) =>
          page.items.map((x) => x.id)
        assert.deepStrictEqual(ids(yield* repo.list("all", 10)), [b.id, c.id, a.id])
        assert.deepStrictEqual(ids(yield* repo.list("open", 10)), [b.id, a.id])
        assert.deepStrictEqual(ids(yield* repo.list("closed", 10)), [c.id])
        const first = yield* repo.list("all", 2)
        assert.deepStrictEqual([ids(first), first.total], [[b.id, c.id], 3])
      }))

    test("identical requests submitted at once store one request, and every one is recorded as its receipt", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const submissions = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => newRequest(100 + i, { protocol_name: "Same Name" })),
          (r) => repo.submit({ ...r, contact_email: "same@example.com" }),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(submissions.filter((s) => s.created).length, 1)
        assert.strictEqual(new Set(submissions.map((s) => s.request_id)).size, 1)
        const page = yield* repo.list("all", 100)
        assert.strictEqual(page.total, 1)
        assert.sameMembers(
          [...page.items[0]!.receipt_ids],
          Array.from({ length: 12 }, (_, i) => uuid(100 + i, 7))
        )
      }))
  })
