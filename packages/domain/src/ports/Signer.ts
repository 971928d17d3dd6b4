/**
 * Port: HMAC-SHA256 signing of webhook bodies (spec part 6, "Signature") and
 * generation of rules' signing keys.
 *
 * Methods are synchronous: hashing is pure CPU work and the header builder
 * (`deliveryHeaders`) is a pure function over a signer. Only key generation
 * needs randomness, so only it is an Effect.
 *
 * Production: adapters-webhook `HmacSigner.layer` (node:crypto).
 * `Signer.layerMemory` is a real HMAC-SHA256 in plain TypeScript (so tests
 * check real signatures) whose new keys are predictable: never use it to
 * issue keys outside tests.
 */
import { Context, Effect, Layer } from "effect"
import * as Base64 from "effect/encoding/Base64"
import * as Hex from "effect/encoding/Hex"
import { constantTimeEqual, hmacSha256, sha256 } from "../webhooks/Sha256.ts"

export interface SignerShape {
  /**
   * Raw HMAC-SHA256 (32 bytes) of the UTF-8 bytes of `message`, keyed with
   * `key` bytes, or with the UTF-8 bytes of `key` when it is a string.
   */
  readonly hmacSha256: (key: Uint8Array | string, message: string) => Uint8Array
  /**
   * The X-Service-Signature value: lowercase hex HMAC-SHA256 of `rawBody`,
   * keyed with the UTF-8 bytes of the whole signing key string (as handed
   * out, `whsec_` prefix included).
   */
  readonly sign: (key: string, rawBody: string) => string
  /** Whether `signature` is `sign(key, rawBody)`, compared in constant time. */
  readonly verify: (key: string, rawBody: string, signature: string) => boolean
  /** A fresh signing key: `whsec_` followed by the base64 of 32 random bytes. */
  readonly newSigningKey: Effect.Effect<string>
}

export class Signer extends Context.Service<Signer, SignerShape>()("@ratings/domain/ports/Signer") {
  static readonly layerMemory: Layer.Layer<Signer> = Layer.effect(
    Signer,
    Effect.sync(() => {
      let issued = 0
      const sign = (key: string, rawBody: string): string => Hex.encode(hmacSha256(key, rawBody))
      return Signer.of({
        hmacSha256: (key, message) => hmacSha256(key, message),
        sign,
        verify: (key, rawBody, signature) => constantTimeEqual(sign(key, rawBody), signature),
        newSigningKey: Effect.sync(() => `whsec_${Base64.encode(sha256(`memory-signing-key:${++issued}`))}`)
      })
    })
  )
}
