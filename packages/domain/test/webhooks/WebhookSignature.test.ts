import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Base64 from "effect/encoding/Base64"
import * as Hex from "effect/encoding/Hex"
import { Signer } from "../../src/ports/Signer.ts"
import * as SignerMemory from "../support/SignerMemory.ts"
import {
  deliveryHeaders,
  isSigningKey,
  signingKeyFromBytes,
  standardWebhooksKeyBytes,
  standardWebhooksSignature,
  verifyStandardWebhook
} from "../../src/webhooks/WebhookSignature.ts"

const KEY = signingKeyFromBytes(Uint8Array.from({ length: 32 }, (_, i) => i * 7))
const delivery = {
  delivery_id: "6f1c9a52-8d4e-4b7a-9c31-2f5e8a0d7b14",
  body: '{"event":"rating.changed","data":{"entity_slug":"aave-v4","note":"crème"}}'
}

const withSigner = <A>(f: (signer: Signer["Service"]) => A) =>
  Effect.map(Signer, f).pipe(Effect.provide(SignerMemory.layer))

describe("WebhookSignature", () => {
  it("signing keys are whsec_ followed by the base64 of 32 bytes", () => {
    assert.isTrue(isSigningKey(KEY))
    assert.strictEqual(KEY.length, "whsec_".length + 44)
    assert.strictEqual(standardWebhooksKeyBytes(KEY).length, 32)
    assert.isFalse(isSigningKey("whsec_short"))
  })

  it.effect(
    "X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body keyed with the signing key",
    () =>
      withSigner((signer) => {
        const headers = deliveryHeaders(delivery, KEY, 1_754_000_000, signer)
        assert.strictEqual(
          headers["X-Service-Signature"],
          Hex.encode(SignerMemory.hmacSha256(KEY, delivery.body))
        )
        assert.match(headers["X-Service-Signature"], /^[0-9a-f]{64}$/)
        assert.isTrue(signer.verify(KEY, delivery.body, headers["X-Service-Signature"]))
        assert.isFalse(
          signer.verify(KEY, `${delivery.body} `, headers["X-Service-Signature"]),
          "re-serialised JSON differs"
        )
        assert.strictEqual(headers["content-type"], "application/json")
      })
  )

  it.effect("webhook-id is the delivery_id and webhook-timestamp the attempt's unix seconds", () =>
    withSigner((signer) => {
      const headers = deliveryHeaders(delivery, KEY, 1_754_000_000.9, signer)
      assert.strictEqual(headers["webhook-id"], delivery.delivery_id)
      assert.strictEqual(headers["webhook-timestamp"], "1754000000")
      const later = deliveryHeaders(delivery, KEY, 1_754_000_030, signer)
      assert.strictEqual(
        later["X-Service-Signature"],
        headers["X-Service-Signature"],
        "same body, same signature"
      )
      assert.notStrictEqual(
        later["webhook-signature"],
        headers["webhook-signature"],
        "fresh timestamp per attempt"
      )
    })
  )

  it.effect(
    "webhook-signature is v1,base64 HMAC-SHA256 of {id}.{timestamp}.{body} under the whsec_ key bytes",
    () =>
      withSigner((signer) => {
        const headers = deliveryHeaders(delivery, KEY, 1_754_000_000, signer)
        const keyBytes = Base64.decode(KEY.slice("whsec_".length))
        if (keyBytes._tag !== "Success") throw new Error("key is not base64")
        const expected = Base64.encode(
          SignerMemory.hmacSha256(keyBytes.success, `${delivery.delivery_id}.1754000000.${delivery.body}`)
        )
        assert.strictEqual(headers["webhook-signature"], `v1,${expected}`)
        const request = {
          webhookId: delivery.delivery_id,
          timestampSeconds: 1_754_000_000,
          body: delivery.body,
          signatureHeader: `v1,bm9wZQ== ${headers["webhook-signature"]}`
        }
        assert.isTrue(verifyStandardWebhook(signer, KEY, request))
        assert.isFalse(verifyStandardWebhook(signer, KEY, { ...request, timestampSeconds: 1_754_000_001 }))
      })
  )

  it.effect("the Standard Webhooks reference vector reproduces exactly", () =>
    withSigner((signer) => {
      assert.strictEqual(
        standardWebhooksSignature(
          signer,
          "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          "msg_p5jXN8AQM9LWM0D4loKWxJek",
          1614265330,
          '{"test": 2432232314}'
        ),
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
      )
    })
  )
})
