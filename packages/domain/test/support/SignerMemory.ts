/**
 * The in-memory `Signer` of the tests: a real HMAC-SHA256 (node:crypto, so
 * tests check real signatures) whose new keys are predictable
 * (`whsec_` + base64 of SHA-256 of `memory-signing-key:<n>`). It lives in test
 * support because the domain holds no hash of its own (the production signer
 * is adapters-webhook's `HmacSigner`); never use it to issue keys outside
 * tests.
 */
import { createHash, createHmac } from "node:crypto"
import { Effect, Layer } from "effect"
import * as Hex from "effect/encoding/Hex"
import { Signer } from "../../src/ports/Signer.ts"
import { constantTimeEqual, signingKeyFromBytes, utf8Bytes } from "../../src/webhooks/WebhookSignature.ts"

const bytesOf = (data: Uint8Array | string): Uint8Array => (typeof data === "string" ? utf8Bytes(data) : data)

/** SHA-256 of the bytes, or of the UTF-8 bytes of a string. */
export const sha256 = (data: Uint8Array | string): Uint8Array =>
  new Uint8Array(createHash("sha256").update(bytesOf(data)).digest())

/** HMAC-SHA256 keyed with the bytes (or UTF-8 bytes) of `key`, over the bytes (or UTF-8 bytes) of `message`. */
export const hmacSha256 = (key: Uint8Array | string, message: Uint8Array | string): Uint8Array =>
  new Uint8Array(createHmac("sha256", bytesOf(key)).update(bytesOf(message)).digest())

/** A signer whose n-th new key is derived from n: tests can predict and repeat it. */
export const make = (): Signer["Service"] => {
  let issued = 0
  const sign = (key: string, rawBody: string): string => Hex.encode(hmacSha256(key, rawBody))
  return Signer.of({
    hmacSha256: (key, message) => hmacSha256(key, message),
    sign,
    verify: (key, rawBody, signature) => constantTimeEqual(sign(key, rawBody), signature),
    newSigningKey: Effect.sync(() => signingKeyFromBytes(sha256(`memory-signing-key:${++issued}`)))
  })
}

/** The `Signer` port over `make()`, one key counter per layer build. */
export const layer: Layer.Layer<Signer> = Layer.sync(Signer, make)
