/**
 * The coverage-request use case (services/ContactService.ts) over the
 * in-memory stores: what is stored for a body, and the receipt of each
 * submission, its sender's own whether or not it repeats an open request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ContactRequestRepository } from "../../src/ports/ContactRequestRepository.ts"
import { ContactRequestRepositoryMemory } from "../../src/ports/memory/ContactRequestRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { ContactService } from "../../src/services/ContactService.ts"

const layer = ContactService.layer.pipe(
  Layer.provideMerge(Layer.merge(ContactRequestRepositoryMemory.layer, IdGeneratorMemory.layer))
)

describe("ContactService", () => {
  it.effect(
    "a request is stored with a fresh id and the current time, its name trimmed, request_type rating-request when omitted, and a blank message as none",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-08-01T10:00:00Z"))
        const { receipt, request_id, created } = yield* (yield* ContactService).submit({
          protocol_name: "  Lendwell ",
          contact_email: "ana@example.com",
          message: "   "
        })
        assert.isTrue(created)
        assert.strictEqual(request_id, receipt.id)
        assert.deepStrictEqual(receipt, {
          id: "00000000-0000-4000-a000-000000000001",
          protocol_name: "Lendwell",
          entity_type: null,
          contact_email: "ana@example.com",
          request_type: "rating-request",
          status: "open",
          created_at: "2026-08-01T10:00:00+00:00"
        })
        const [stored] = (yield* (yield* ContactRequestRepository).list("all", 10)).items
        assert.strictEqual(stored!.message, null)
      }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a repeated coverage request does not return another person's receipt: a repeat is answered its own receipt (its sender's spellings, types, its own reference id and time), recorded against the one open request",
    () =>
      Effect.gen(function* () {
        const contacts = yield* ContactService
        yield* TestClock.setTime(Date.parse("2026-08-01T10:00:00Z"))
        const first = yield* contacts.submit({
          protocol_name: "Obscure Protocol",
          contact_email: "victim@example.com",
          request_type: "correction",
          entity_type: "chain",
          message: "first"
        })
        yield* TestClock.setTime(Date.parse("2026-08-01T11:00:00Z"))
        const again = yield* contacts.submit({
          protocol_name: "obscure  PROTOCOL",
          contact_email: "victim@EXAMPLE.com",
          message: "second"
        })
        assert.deepStrictEqual(again.receipt, {
          id: "00000000-0000-4000-a000-000000000002",
          protocol_name: "obscure  PROTOCOL",
          entity_type: null,
          contact_email: "victim@EXAMPLE.com",
          request_type: "rating-request",
          status: "open",
          created_at: "2026-08-01T11:00:00+00:00"
        })
        assert.notStrictEqual(again.receipt.id, first.receipt.id)
        assert.deepStrictEqual([again.request_id, again.created], [first.receipt.id, false])
        const page = yield* (yield* ContactRequestRepository).list("all", 10)
        assert.strictEqual(page.total, 1)
        assert.deepStrictEqual(page.items[0]!.receipt_ids, [first.receipt.id, again.receipt.id])
        assert.strictEqual(
          page.items[0]!.protocol_name,
          "Obscure Protocol",
          "the stored request is the first"
        )
      }).pipe(Effect.provide(layer))
  )

  it.effect("a message without a visible character is stored as none", () =>
    Effect.gen(function* () {
      yield* (yield* ContactService).submit({
        protocol_name: "Lendwell",
        contact_email: "ana@example.com",
        message: "\u200d \n\u200c"
      })
      const [stored] = (yield* (yield* ContactRequestRepository).list("all", 10)).items
      assert.strictEqual(stored!.message, null)
    }).pipe(Effect.provide(layer))
  )
})
