/**
 * Signed deliveries checked by independent implementations on the bytes a
 * real receiver got (spec part 6 "Signature"; issue 6 "Signatures verified by
 * an independent implementation"): node:crypto for X-Service-Signature, the
 * `standardwebhooks` package for the Standard Webhooks headers.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { deliveryHeaders, ServiceSignatureHeader } from "@ratings/domain/webhooks/WebhookSignature"
import { WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Effect } from "effect"
import { Webhook, WebhookVerificationError } from "standardwebhooks"
import * as HmacSigner from "../src/HmacSigner.ts"
import * as UndiciTransport from "../src/UndiciTransport.ts"
import { answer, type ReceivedRequest, receiver } from "./Receiver.ts"

const signer = HmacSigner.make()
const nowSeconds = () => Math.floor(Date.now() / 1000)

/** What a receiver following the spec does: HMAC the raw bytes with the key string, compare in constant time. */
const verifyServiceSignature = (key: string, raw: Buffer, header: string | undefined): boolean => {
  if (header === undefined || !/^[0-9a-f]{64}$/.test(header)) return false
  const expected = createHmac("sha256", key).update(raw).digest()
  return timingSafeEqual(expected, Buffer.from(header, "hex"))
}

const standardHeaders = (request: ReceivedRequest): Record<string, string> => ({
  "webhook-id": String(request.headers["webhook-id"]),
  "webhook-timestamp": String(request.headers["webhook-timestamp"]),
  "webhook-signature": String(request.headers["webhook-signature"])
})

/** Signs a delivery as the dispatcher does and POSTs it to a fresh receiver; returns what arrived. */
const deliver = (body: string, options: { readonly key: string; readonly timestamp?: number }) =>
  Effect.gen(function* () {
    const r = yield* receiver(answer(200))
    const transport = yield* WebhookTransport
    const delivery = { delivery_id: "5b1c3e3a-8f0e-4c55-9a57-0d9d1f1f7f10", body }
    const headers = deliveryHeaders(delivery, options.key, options.timestamp ?? nowSeconds(), signer)
    const outcome = yield* transport.send({
      url: `${r.origin}/hook`,
      headers: { ...headers },
      body,
      timeoutMs: 5_000
    })
    assert.strictEqual(outcome._tag, "Response", JSON.stringify(outcome))
    assert.strictEqual(r.requests.length, 1)
    return r.requests[0]!
  })

const transportLayer = UndiciTransport.layer({ allowPrivateTargets: true, requireHttps: false })

// Non-ASCII text, an escaped character, a float written "1.0" and keys out of
// order: re-serialising this JSON changes its bytes, so only the raw bytes verify.
const trickyBody =
  '{"event":"rating.changed","z":"Zürich — 東京 ☕ 🚀","escaped":"\\u00e9","n":1.0,"data":{"b":2,"a":1}}'

describe("Signatures (spec part 6: X-Service-Signature; Standard Webhooks headers)", () => {
  it.effect(
    "X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw bytes received, keyed with the rule's key",
    () =>
      Effect.gen(function* () {
        const key = yield* signer.newSigningKey
        const received = yield* deliver('{"event":"webhook.test","delivery_id":"x"}', { key })
        const header = received.headers[ServiceSignatureHeader.toLowerCase()]
        assert.typeOf(header, "string")
        assert.match(String(header), /^[0-9a-f]{64}$/)
        assert.isTrue(verifyServiceSignature(key, received.raw, String(header)))
        assert.strictEqual(received.headers["content-type"], "application/json")
      }).pipe(Effect.provide(transportLayer))
  )

  it.effect(
    "the standardwebhooks verifier accepts the delivery's webhook-id, webhook-timestamp and webhook-signature",
    () =>
      Effect.gen(function* () {
        const key = yield* signer.newSigningKey
        const received = yield* deliver('{"event":"webhook.test"}', { key })
        const payload = new Webhook(key).verify(received.raw, standardHeaders(received))
        assert.deepStrictEqual(payload, { event: "webhook.test" })
        assert.strictEqual(received.headers["webhook-id"], "5b1c3e3a-8f0e-4c55-9a57-0d9d1f1f7f10")
      }).pipe(Effect.provide(transportLayer))
  )

  it.effect("non-ASCII, key-order-sensitive JSON verifies on the raw bytes, and not once re-serialised", () =>
    Effect.gen(function* () {
      const key = yield* signer.newSigningKey
      const received = yield* deliver(trickyBody, { key })
      assert.isTrue(received.raw.equals(Buffer.from(trickyBody, "utf8")), "the bytes arrive as signed")
      assert.isTrue(
        verifyServiceSignature(key, received.raw, String(received.headers["x-service-signature"]))
      )
      new Webhook(key).verify(received.raw, standardHeaders(received))

      const reserialised = Buffer.from(JSON.stringify(JSON.parse(received.raw.toString("utf8"))), "utf8")
      assert.isFalse(reserialised.equals(received.raw))
      assert.isFalse(
        verifyServiceSignature(key, reserialised, String(received.headers["x-service-signature"]))
      )
      assert.throws(
        () => new Webhook(key).verify(reserialised, standardHeaders(received)),
        WebhookVerificationError
      )
    }).pipe(Effect.provide(transportLayer))
  )

  it.effect("a tampered body is rejected by both verifiers", () =>
    Effect.gen(function* () {
      const key = yield* signer.newSigningKey
      const received = yield* deliver(trickyBody, { key })
      const tampered = Buffer.from(received.raw)
      tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 1
      assert.isFalse(verifyServiceSignature(key, tampered, String(received.headers["x-service-signature"])))
      assert.throws(
        () => new Webhook(key).verify(tampered, standardHeaders(received)),
        WebhookVerificationError
      )
    }).pipe(Effect.provide(transportLayer))
  )

  it.effect("a delivery signed with another rule's key is rejected by both verifiers", () =>
    Effect.gen(function* () {
      const key = yield* signer.newSigningKey
      const other = yield* signer.newSigningKey
      const received = yield* deliver('{"event":"webhook.test"}', { key })
      assert.isFalse(
        verifyServiceSignature(other, received.raw, String(received.headers["x-service-signature"]))
      )
      assert.throws(
        () => new Webhook(other).verify(received.raw, standardHeaders(received)),
        WebhookVerificationError
      )
    }).pipe(Effect.provide(transportLayer))
  )

  it.effect("an old webhook-timestamp (a replay) is rejected by the standard verifier", () =>
    Effect.gen(function* () {
      const key = yield* signer.newSigningKey
      const received = yield* deliver('{"event":"webhook.test"}', { key, timestamp: nowSeconds() - 15 * 60 })
      assert.throws(
        () => new Webhook(key).verify(received.raw, standardHeaders(received)),
        WebhookVerificationError,
        /too old/
      )
    }).pipe(Effect.provide(transportLayer))
  )

  it.effect("a retry keeps the webhook-id, carries a fresh timestamp, and verifies again", () =>
    Effect.gen(function* () {
      const key = yield* signer.newSigningKey
      const first = yield* deliver('{"event":"webhook.test"}', { key, timestamp: nowSeconds() - 30 })
      const retry = yield* deliver('{"event":"webhook.test"}', { key })
      assert.strictEqual(first.headers["webhook-id"], retry.headers["webhook-id"])
      assert.notStrictEqual(first.headers["webhook-timestamp"], retry.headers["webhook-timestamp"])
      new Webhook(key).verify(first.raw, standardHeaders(first))
      new Webhook(key).verify(retry.raw, standardHeaders(retry))
      assert.strictEqual(first.headers["x-service-signature"], retry.headers["x-service-signature"])
    }).pipe(Effect.provide(transportLayer))
  )
})
