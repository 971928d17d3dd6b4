import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Signer } from "@ratings/domain/ports/Signer"
import { deliveryHeaders, isSigningKey } from "@ratings/domain/webhooks/WebhookSignature"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as HmacSigner from "../src/HmacSigner.ts"

const node = HmacSigner.make()
const pure = Effect.runSync(Effect.provide(Signer, Signer.layerMemory))

// Any UTF-16 code unit, lone surrogates included ("binary" only yields whole
// code points): both sides must sign the same UTF-8 bytes.
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n))
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 2_000 }),
  fc.string({ unit: codeUnit, maxLength: 200 })
)
const anyKey = fc.oneof(
  fc.string({ unit: "binary", maxLength: 100 }),
  fc.string({ unit: codeUnit, maxLength: 100 })
)

describe("HmacSigner", () => {
  it("X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw body (node:crypto createHmac)", () => {
    fc.assert(
      fc.property(anyKey, anyText, (key, body) => {
        const signature = node.sign(key, body)
        assert.strictEqual(signature, createHmac("sha256", key).update(body).digest("hex"))
        assert.match(signature, /^[0-9a-f]{64}$/)
      })
    )
  })

  it("agrees byte for byte with the domain's plain-TypeScript HMAC-SHA256 on random keys and bodies", () => {
    fc.assert(
      fc.property(anyKey, anyText, (key, body) => {
        assert.strictEqual(node.sign(key, body), pure.sign(key, body))
      }),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), anyText, (key, message) => {
        assert.deepStrictEqual([...node.hmacSha256(key, message)], [...pure.hmacSha256(key, message)])
      }),
      { numRuns: 300 }
    )
  })

  it("verify compares in constant time: wrong length and one-character differences are refused", () => {
    fc.assert(
      fc.property(anyKey, anyText, fc.integer({ min: 0, max: 63 }), (key, body, i) => {
        const signature = node.sign(key, body)
        assert.isTrue(node.verify(key, body, signature))
        assert.isTrue(pure.verify(key, body, signature))
        const flipped = signature.slice(0, i) + (signature[i] === "0" ? "1" : "0") + signature.slice(i + 1)
        assert.isFalse(node.verify(key, body, flipped))
        assert.isFalse(node.verify(key, body, signature.slice(0, i)))
        assert.isFalse(node.verify(key, body, `${signature}0`))
        assert.isFalse(node.verify(key, body, "é".repeat(32)), "64 UTF-8 bytes like a digest, yet not hex")
      })
    )
  })

  it("delivery headers signed with node:crypto equal those signed by the domain's signer", () => {
    fc.assert(
      fc.property(fc.uuid(), anyText, fc.integer({ min: 0, max: 2 ** 32 }), (id, body, ts) => {
        const key = Effect.runSync(node.newSigningKey)
        const delivery = { delivery_id: id, body }
        const headers = deliveryHeaders(delivery, key, ts, node)
        assert.deepStrictEqual(headers, deliveryHeaders(delivery, key, ts, pure))
        const keyBytes = Buffer.from(key.slice("whsec_".length), "base64")
        const expected = createHmac("sha256", keyBytes).update(`${id}.${ts}.${body}`).digest("base64")
        assert.strictEqual(headers["webhook-signature"], `v1,${expected}`)
      }),
      { numRuns: 50 }
    )
  })

  it("new signing keys are whsec_ + base64 of 32 random bytes", () => {
    const keys = Array.from({ length: 20 }, () => Effect.runSync(node.newSigningKey))
    assert.isTrue(keys.every(isSigningKey))
    assert.strictEqual(new Set(keys).size, keys.length)
    assert.strictEqual(Buffer.from(keys[0]!.slice("whsec_".length), "base64").length, 32)
  })

  it.effect("HmacSigner.layer provides the Signer port", () =>
    Effect.gen(function* () {
      const signer = yield* Signer
      assert.strictEqual(
        signer.sign("Jefe", "what do ya want for nothing?"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      )
    }).pipe(Effect.provide(HmacSigner.layer))
  )
})
