import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { generateKey, parseKey, SecretBox } from "../src/SecretBox.ts"

const keyA = Buffer.alloc(32, 7).toString("base64")
const keyB = Buffer.alloc(32, 9).toString("base64")
const secret = "whsec_c2lnbmluZy1rZXktb2YtYS1ydWxlLXRoaXJ0eS10d28"

const sealWith = (key: string, plaintext: string, context?: string) =>
  Effect.gen(function* () {
    return yield* (yield* SecretBox).seal(plaintext, context)
  }).pipe(Effect.provide(SecretBox.layer(key)))

const openWith = (key: string, sealed: string, context?: string) =>
  Effect.gen(function* () {
    return yield* (yield* SecretBox).open(sealed, context)
  }).pipe(Effect.provide(SecretBox.layer(key)))

describe("SecretBox", () => {
  it.effect("a sealed value opens under the same server key", () =>
    Effect.gen(function* () {
      const sealed = yield* sealWith(keyA, secret, "alert_rule:1")
      assert.strictEqual(yield* openWith(keyA, sealed, "alert_rule:1"), secret)
      assert.strictEqual(yield* openWith(keyA, yield* sealWith(keyA, "")), "")
      assert.strictEqual(yield* openWith(keyA, yield* sealWith(keyA, "ключ ✓")), "ключ ✓")
    })
  )

  it.effect(
    "the sealed text is v1:<nonce>:<ciphertext>:<tag> with a 12-byte nonce and never holds the secret",
    () =>
      Effect.gen(function* () {
        const sealed = yield* sealWith(keyA, secret)
        const parts = sealed.split(":")
        assert.lengthOf(parts, 4)
        assert.strictEqual(parts[0], "v1")
        assert.strictEqual(Buffer.from(parts[1]!, "base64").length, 12)
        assert.strictEqual(Buffer.from(parts[3]!, "base64").length, 16)
        assert.notInclude(sealed, secret)
        assert.notInclude(sealed, secret.slice(6))
      })
  )

  it.effect("every seal draws a fresh nonce: the same secret seals differently each time", () =>
    Effect.gen(function* () {
      const sealed = yield* Effect.all(Array.from({ length: 20 }, () => sealWith(keyA, secret)))
      assert.strictEqual(new Set(sealed).size, 20)
      assert.strictEqual(new Set(sealed.map((s) => s.split(":")[1])).size, 20)
    })
  )

  it.effect("opening with the wrong server key fails with a typed SecretBoxError", () =>
    Effect.gen(function* () {
      const sealed = yield* sealWith(keyA, secret)
      const error = yield* Effect.flip(openWith(keyB, sealed))
      assert.strictEqual(error._tag, "SecretBoxError")
      assert.include(error.message, "could not decrypt")
      assert.notInclude(error.message, secret)
    })
  )

  it.effect("a value sealed for one context does not open for another", () =>
    Effect.gen(function* () {
      const sealed = yield* sealWith(keyA, secret, "alert_rule:a")
      assert.strictEqual((yield* Effect.flip(openWith(keyA, sealed, "alert_rule:b")))._tag, "SecretBoxError")
      assert.strictEqual((yield* Effect.flip(openWith(keyA, sealed)))._tag, "SecretBoxError")
    })
  )

  it.effect("a tampered or malformed value fails to open", () =>
    Effect.gen(function* () {
      const sealed = yield* sealWith(keyA, secret)
      const [v, nonce, ct, tag] = sealed.split(":") as [string, string, string, string]
      const flipped = Buffer.from(ct, "base64")
      flipped[0] = flipped[0]! ^ 1
      for (const bad of [
        [v, nonce, flipped.toString("base64"), tag].join(":"),
        [v, nonce, ct, Buffer.alloc(16).toString("base64")].join(":"),
        ["v2", nonce, ct, tag].join(":"),
        [v, nonce, ct].join(":"),
        [v, "not base64!", ct, tag].join(":"),
        secret
      ]) {
        assert.strictEqual((yield* Effect.flip(openWith(keyA, bad)))._tag, "SecretBoxError", bad)
      }
    })
  )

  it.effect("the server key must be base64 of exactly 32 bytes; anything else fails the layer", () =>
    Effect.gen(function* () {
      for (const bad of [
        "",
        "short",
        Buffer.alloc(16).toString("base64"),
        Buffer.alloc(33).toString("base64")
      ]) {
        const exit = yield* Effect.exit(Layer.build(SecretBox.layer(bad)).pipe(Effect.scoped))
        assert.isTrue(Exit.isFailure(exit), bad)
      }
      assert.isUndefined(parseKey("%%%%"))
      assert.strictEqual(parseKey(generateKey())?.length, 32)
    })
  )

  it.effect("the key can come from configuration as a Redacted value", () =>
    Effect.gen(function* () {
      const sealed = yield* sealWith(keyA, secret)
      const opened = yield* Effect.gen(function* () {
        return yield* (yield* SecretBox).open(sealed)
      }).pipe(Effect.provide(SecretBox.layer(Redacted.make(keyA))))
      assert.strictEqual(opened, secret)
    })
  )

  it.effect("layerRandom seals and opens within itself, and its values open under no configured key", () =>
    Effect.gen(function* () {
      const sealed = yield* Effect.gen(function* () {
        const box = yield* SecretBox
        const value = yield* box.seal(secret)
        assert.strictEqual(yield* box.open(value), secret)
        return value
      }).pipe(Effect.provide(SecretBox.layerRandom))
      assert.strictEqual((yield* Effect.flip(openWith(keyA, sealed)))._tag, "SecretBoxError")
    })
  )
})
