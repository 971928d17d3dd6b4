/**
 * Port: HMAC-SHA256 signing of webhook bodies (spec part 6, "Signature") and
 * generation of rules' signing keys.
 *
 * Methods are synchronous: hashing is pure CPU work and the header builder
 * (`deliveryHeaders`) is a pure function over a signer. Only key generation
 * needs randomness, so only it is an Effect.
 *
 * Production: adapters-webhook `HmacSigner.layer` (node:crypto). The domain
 * has no hash of its own: tests use the in-memory signer of the domain's test
 * support (`test/support/SignerMemory.ts`, node:crypto with predictable keys).
 */
import { Context, type Effect } from "effect"
import type { SignatureHmac } from "../webhooks/WebhookSignature.ts"

export interface SignerShape extends SignatureHmac {
  /** Whether `signature` is `sign(key, rawBody)`, compared in constant time. */
  readonly verify: (key: string, rawBody: string, signature: string) => boolean
  /** A fresh signing key: `whsec_` followed by the base64 of 32 random bytes. */
  readonly newSigningKey: Effect.Effect<string>
}

export class Signer extends Context.Service<Signer, SignerShape>()("@ratings/domain/ports/Signer") {}
