/**
 * The production `Signer`: HMAC-SHA256 and key generation on node:crypto.
 *
 * It must agree byte for byte with the in-memory signer of the domain's test
 * support (`packages/domain/test/support/SignerMemory.ts`), which the domain's
 * tests rely on; the test of this module checks that on random keys and bodies.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from "node:crypto"
import { Signer } from "@ratings/domain/ports/Signer"
import {
  isSigningKey,
  SigningKeyByteLength,
  SigningKeyPrefix,
  signingKeyFromBytes,
  standardWebhooksKeyBytes
} from "@ratings/domain/webhooks/WebhookSignature"
import { Effect, Layer } from "effect"

/**
 * How many keys each cache below keeps prepared; past that the oldest entry
 * is dropped. One per rule in each (its key as text, and its Standard
 * Webhooks key) for twice as many rules as the rules store keeps opened keys: a fan-out
 * signs every rule once per event, one event after the other, so a cache
 * smaller than the fan-out misses on every signature. Exported for the test
 * that crosses the bound.
 */
export const keyCacheLimit = 40_000

/**
 * Keys -> `KeyObject`s made from exactly the bytes `createHmac` would use: a
 * string key's UTF-8 bytes (lone surrogates become U+FFFD, as
 * `Buffer.from(key, "utf8")` does), a byte key's bytes (the Standard Webhooks
 * key, decoded from its `whsec_` text, is signed with as bytes). `createHmac`
 * accepts a prepared `KeyObject` far faster than raw key bytes, and the
 * dispatcher signs every attempt with the same few keys, so they are prepared
 * once. The keys are secrets: these maps stay module-private and are never
 * logged or returned.
 */
const stringKeys = new Map<string, KeyObject>()
const byteKeys = new Map<string, KeyObject>()
const standardKeys = new Map<string, KeyObject>()

/** The key cached under `id` in `cache`, prepared once; past the bound the oldest entry is dropped. */
const cachedKey = (cache: Map<string, KeyObject>, id: string, bytes: () => Buffer): KeyObject => {
  const cached = cache.get(id)
  if (cached !== undefined) return cached
  const prepared = createSecretKey(bytes())
  if (cache.size >= keyCacheLimit) {
    // A Map iterates in insertion order: the first key is the oldest.
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
  cache.set(id, prepared)
  return prepared
}

// Byte keys are looked up by their base64 text: a caller may change a key's bytes after use.
const secretKey = (key: Uint8Array | string): KeyObject =>
  typeof key === "string"
    ? cachedKey(stringKeys, key, () => Buffer.from(key, "utf8"))
    : cachedKey(byteKeys, Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("base64"), () =>
        Buffer.from(key)
      )

const hmacSha256 = (key: Uint8Array | string, message: string): Uint8Array =>
  new Uint8Array(createHmac("sha256", secretKey(key)).update(message, "utf8").digest())

/**
 * A signing key's prepared Standard Webhooks key, found by the key's text:
 * decoding the key and finding it by its bytes cost more than the HMAC, and a
 * fan-out signs with each key once per event. A key of the form we issue is
 * canonical base64, which node decodes to the same bytes.
 */
const standardKey = (signingKey: string): KeyObject =>
  cachedKey(standardKeys, signingKey, () =>
    isSigningKey(signingKey)
      ? Buffer.from(signingKey.slice(SigningKeyPrefix.length), "base64")
      : Buffer.from(standardWebhooksKeyBytes(signingKey))
  )

const standardWebhooksHmac = (signingKey: string, message: string): Uint8Array =>
  new Uint8Array(createHmac("sha256", standardKey(signingKey)).update(message, "utf8").digest())

/**
 * The `v1,<base64>` signature of one attempt: the id and timestamp hashed
 * before the body, which is hashed as it is (no message string is built
 * around it), and the digest encoded by node:crypto. The dispatcher signs
 * every attempt with it.
 */
const standardWebhooksSignature = (
  signingKey: string,
  webhookId: string,
  timestampSeconds: number,
  body: string
): string =>
  "v1," +
  createHmac("sha256", standardKey(signingKey))
    .update(`${webhookId}.${timestampSeconds}.`, "utf8")
    .update(body, "utf8")
    .digest("base64")

const sign = (key: string, rawBody: string): string =>
  createHmac("sha256", secretKey(key)).update(rawBody, "utf8").digest("hex")

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
    standardWebhooksHmac,
    standardWebhooksSignature,
    sign,
    verify,
    newSigningKey: Effect.sync(() => signingKeyFromBytes(new Uint8Array(randomBytes(SigningKeyByteLength))))
  })

export const layer: Layer.Layer<Signer> = Layer.sync(Signer, make)
