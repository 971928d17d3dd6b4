import { createHmac, randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Signer } from "@ratings/domain/ports/Signer"
import {
  deliveryHeaders,
  isSigningKey,
  signingKeyFromBytes,
  standardWebhooksKeyBytes,
  standardWebhooksSignature
} from "@ratings/domain/webhooks/WebhookSignature"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as SignerMemory from "@ratings/domain/test-support/SignerMemory"
import * as HmacSigner from "../src/HmacSigner.ts"

const node = HmacSigner.make()
/** The in-memory signer the domain's tests use (its test support); production must sign as it does. */
const pure = SignerMemory.make()

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

  it("agrees byte for byte with the domain tests' in-memory signer on random keys and bodies", () => {
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

  it("signatures stay right for more distinct keys than the key cache holds, and for keys reused after eviction", () => {
    // Non-ASCII and lone-surrogate keys too: the cached KeyObject must hold the
    // same UTF-8 bytes createHmac derives from the string.
    const keys = Array.from({ length: HmacSigner.keyCacheLimit + 300 }, (_, i) =>
      i % 3 === 0 ? `key-${i}` : i % 3 === 1 ? `clé-${i}-\u{1F511}` : `\ud800${i}\udfff`
    )
    assert.strictEqual(new Set(keys).size, keys.length)
    const body = (key: string) => `{"event":"rating.changed","key_length":${key.length}}`
    const expected = keys.map((key) => createHmac("sha256", key).update(body(key)).digest("hex"))
    const indexOf = new Map(keys.map((key, i) => [key, i]))
    // Twice through: the second pass meets the first keys after they were
    // evicted, and the later ones while still cached; then newest-first.
    for (const order of [keys, keys, [...keys].reverse()]) {
      for (const key of order) {
        const want = expected[indexOf.get(key)!]!
        assert.strictEqual(node.sign(key, body(key)), want, `sign with key #${indexOf.get(key)}`)
        assert.isTrue(node.verify(key, body(key), want))
        assert.strictEqual(
          Buffer.from(node.hmacSha256(key, body(key))).toString("hex"),
          want,
          `hmacSha256 with key #${indexOf.get(key)}`
        )
      }
    }
    // A signature made with one key never verifies under another cached one.
    assert.isFalse(node.verify(keys[1]!, body(keys[0]!), expected[0]!))
    assert.strictEqual(node.sign(keys[5]!, "same body"), pure.sign(keys[5]!, "same body"))
  }, 120_000)

  it("byte keys (the Standard Webhooks key) are cached by their bytes: views, evictions and string keys of the same bytes all sign right", () => {
    const backing = new Uint8Array(randomBytes(32 * (HmacSigner.keyCacheLimit + 200) + 7))
    // Views at odd offsets into one buffer: the cache must key on the bytes seen, not the whole buffer.
    const keys = Array.from({ length: HmacSigner.keyCacheLimit + 200 }, (_, i) =>
      backing.subarray(7 + 32 * i, 7 + 32 * (i + 1))
    )
    const message = 'msg_1.1732270000.{"event":"rating.changed"}'
    const expected = keys.map((key) => createHmac("sha256", Buffer.from(key)).update(message).digest("hex"))
    const indexOf = new Map(keys.map((key, i) => [key, i]))
    for (const order of [keys, keys, [...keys].reverse()])
      for (const key of order)
        assert.strictEqual(
          Buffer.from(node.hmacSha256(key, message)).toString("hex"),
          expected[indexOf.get(key)!]
        )
    // A string key and a byte key with the same bytes are the same HMAC key; neither shadows the other wrongly.
    const text = "whsec-lookalike"
    const bytes = new Uint8Array(Buffer.from(text, "utf8"))
    assert.strictEqual(
      Buffer.from(node.hmacSha256(bytes, message)).toString("hex"),
      Buffer.from(node.hmacSha256(text, message)).toString("hex")
    )
    // A copy of a key, changed in one byte after use, signs with its new bytes.
    const mutable = new Uint8Array(keys[0]!)
    const before = Buffer.from(node.hmacSha256(mutable, message)).toString("hex")
    mutable[0] = mutable[0]! ^ 1
    const after = Buffer.from(node.hmacSha256(mutable, message)).toString("hex")
    assert.notStrictEqual(after, before)
    assert.strictEqual(after, createHmac("sha256", Buffer.from(mutable)).update(message).digest("hex"))
  }, 120_000)

  it("the key cache stays private: neither the module's exports nor the signer show a key that was used", () => {
    const secret = "s3cret-signing-key-that-must-not-leak"
    node.sign(secret, "body")
    for (const value of Object.values(HmacSigner)) {
      assert.isFalse(value instanceof Map || value instanceof WeakMap || value instanceof Set)
    }
    assert.deepStrictEqual(Object.keys(node).sort(), [
      "hmacSha256",
      "newSigningKey",
      "sign",
      "standardWebhooksHmac",
      "standardWebhooksSignature",
      "verify"
    ])
    assert.notInclude(JSON.stringify(node) ?? "", secret)
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

  it("standardWebhooksHmac is the HMAC keyed with the bytes a key encodes, for whsec_ keys and any other text", () => {
    const keys = [
      ...Array.from({ length: 300 }, () => signingKeyFromBytes(new Uint8Array(randomBytes(32)))),
      "not-a-whsec-key",
      "whsec_%%%not base64",
      "clé-\u{1F511}"
    ]
    const message = 'msg_1.1732270000.{"event":"rating.changed"}'
    for (const order of [keys, [...keys].reverse()])
      for (const key of order) {
        const want = createHmac("sha256", Buffer.from(standardWebhooksKeyBytes(key)))
          .update(message)
          .digest("hex")
        assert.strictEqual(Buffer.from(node.standardWebhooksHmac!(key, message)).toString("hex"), want, key)
        assert.strictEqual(
          Buffer.from(node.hmacSha256(standardWebhooksKeyBytes(key), message)).toString("hex"),
          want
        )
      }
  })

  it("standardWebhooksSignature is v1, and the base64 HMAC of id.timestamp.body, as the domain builds it", () => {
    const keys = [
      ...Array.from({ length: 50 }, () => signingKeyFromBytes(new Uint8Array(randomBytes(32)))),
      "not-a-whsec-key",
      "clé-\u{1F511}"
    ]
    const bodies = ['{"event":"rating.changed"}', "", '{"note":"\u00e9\u{1F511}\ud800"}']
    const generic = { hmacSha256: node.hmacSha256 }
    for (const key of keys)
      for (const body of bodies) {
        const message = `msg_1.1732270000.${body}`
        const want = `v1,${createHmac("sha256", Buffer.from(standardWebhooksKeyBytes(key)))
          .update(message)
          .digest("base64")}`
        assert.strictEqual(node.standardWebhooksSignature!(key, "msg_1", 1732270000, body), want, key)
        assert.strictEqual(standardWebhooksSignature(generic, key, "msg_1", 1732270000, body), want)
        assert.strictEqual(standardWebhooksSignature(node, key, "msg_1", 1732270000, body), want)
      }
  })
})
