/**
 * The production `Signer`: HMAC-SHA256 and key generation on node:crypto.
 *
 * It must agree byte for byte with the domain's plain-TypeScript signer
 * (`Signer.layerMemory`), which tests and other tools rely on; the test of
 * this module checks that on random keys and bodies.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { Signer } from "@ratings/domain/ports/Signer"
import { SigningKeyByteLength, signingKeyFromBytes } from "@ratings/domain/webhooks/WebhookSignature"
import { Effect, Layer } from "effect"

const hmacSha256 = (key: Uint8Array | string, message: string): Uint8Array =>
  new Uint8Array(createHmac("sha256", key).update(message, "utf8").digest())

const sign = (key: string, rawBody: string): string =>
  createHmac("sha256", key).update(rawBody, "utf8").digest("hex")

/**
 * Constant-time check of a hex signature. `timingSafeEqual` throws on
 * buffers of different lengths, so the length is checked first; a digest's
 * length is public, so that early answer leaks nothing about the key.
 */
const verify = (key: string, rawBody: string, signature: string): boolean => {
  const expected = Buffer.from(sign(key, rawBody), "utf8")
  const received = Buffer.from(signature, "utf8")
  return expected.length === received.length && timingSafeEqual(expected, received)
}

export const make = (): Signer["Service"] =>
  Signer.of({
    hmacSha256,
    sign,
    verify,
    newSigningKey: Effect.sync(() => signingKeyFromBytes(new Uint8Array(randomBytes(SigningKeyByteLength))))
  })

export const layer: Layer.Layer<Signer> = Layer.sync(Signer, make)
