/**
 * The coverage-request use case (services/ContactService.ts) over the
 * in-memory stores: what is stored for a body, and the repeat of an open
 * request answered with its receipt.
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
        const { receipt, created } = yield* (yield* ContactService).submit({
          protocol_name: "  Lendwell ",
          contact_email: "ana@example.com",
          message: "   "
        })
        assert.isTrue(created)
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

  it.effect("a repeat of an open request is answered that request's receipt, not created", () =>
    Effect.gen(function* () {
      const contacts = yield* ContactService
      const first = yield* contacts.submit({
        protocol_name: "Lendwell",
        contact_email: "ana@example.com",
        message: "first"
      })
      const again = yield* contacts.submit({
        protocol_name: "LENDWELL",
        contact_email: "ANA@example.com",
        request_type: "other",
        message: "second",
        entity_type: "protocol"
      })
      assert.deepStrictEqual(again, { receipt: first.receipt, created: false })
      assert.strictEqual((yield* (yield* ContactRequestRepository).list("all", 10)).total, 1)
    }).pipe(Effect.provide(layer))
  )
})
