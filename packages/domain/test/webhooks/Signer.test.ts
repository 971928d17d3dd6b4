import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Signer } from "../../src/ports/Signer.ts"
import { isSigningKey } from "../../src/webhooks/WebhookSignature.ts"
import * as SignerMemory from "../support/SignerMemory.ts"

const body = '{"event":"webhook.test"}'
const key = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

describe("SignerMemory.layer (test support)", () => {
  it.effect("sign gives the lowercase hex HMAC-SHA256 of the raw body (RFC 4231 case 2)", () =>
    Effect.gen(function* () {
      const signer = yield* Signer
      assert.strictEqual(
        signer.sign("Jefe", "what do ya want for nothing?"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      )
    }).pipe(Effect.provide(SignerMemory.layer))
  )

  it.effect("verify compares in constant time: wrong length and one-character differences are refused", () =>
    Effect.gen(function* () {
      const signer = yield* Signer
      const signature = signer.sign(key, body)
      assert.isTrue(signer.verify(key, body, signature))
      assert.isFalse(signer.verify(key, body, signature.slice(0, 63)))
      assert.isFalse(signer.verify(key, body, `${signature}0`))
      assert.isFalse(signer.verify(key, body, ""))
      assert.isFalse(signer.verify(key, body, signature.toUpperCase()), "the header is lowercase hex")
      for (const i of [0, 31, 63]) {
        const flipped = signature[i] === "a" ? "b" : "a"
        assert.isFalse(signer.verify(key, body, signature.slice(0, i) + flipped + signature.slice(i + 1)))
      }
      assert.isFalse(signer.verify(`${key}x`, body, signature), "another key")
    }).pipe(Effect.provide(SignerMemory.layer))
  )

  it.effect("new signing keys are whsec_ + base64 of 32 bytes, distinct", () =>
    Effect.gen(function* () {
      const signer = yield* Signer
      const a = yield* signer.newSigningKey
      const b = yield* signer.newSigningKey
      assert.isTrue(isSigningKey(a))
      assert.isTrue(isSigningKey(b))
      assert.notStrictEqual(a, b)
    }).pipe(Effect.provide(SignerMemory.layer))
  )
})
