/**
 * How a delivery is signed: the signing key format and the headers of each
 * attempt (spec part 6, "Signature"), plus the Standard Webhooks headers so
 * that stock verifiers accept our deliveries. One key per rule, handed out
 * once as `whsec_<base64 of 32 random bytes>`, used two ways:
 * `X-Service-Signature` (the spec's) is the hex HMAC-SHA256 of the raw body
 * keyed with the whole key string, as a receiver following the spec does;
 * `webhook-signature` (Standard Webhooks v1) is keyed with the 32 bytes the
 * key encodes, as the Standard Webhooks libraries read a `whsec_` secret.
 */
import { Result } from "effect"
import { timingSafeEqual } from "effect/crypto/Mac"
import * as Base64 from "effect/encoding/Base64"
import type { Delivery } from "../model/Delivery.ts"

/**
 * What signing needs of a signer (the `Signer` port implements it): the
 * hashing itself is the adapter's (node:crypto in adapters-webhook); the
 * domain only says what is signed, keyed how, and how it is compared.
 */
export interface SignatureHmac {
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
  /**
   * `hmacSha256(standardWebhooksKeyBytes(signingKey), message)`, for a signer
   * that can key it by the key's text faster than by fresh bytes; optional.
   */
  readonly standardWebhooksHmac?: ((signingKey: string, message: string) => Uint8Array) | undefined
  /**
   * The whole `v1,<base64>` Standard Webhooks signature of one attempt, as
   * `standardWebhooksSignature` builds it, for a signer that can hash the
   * parts and encode the digest natively; optional.
   */
  readonly standardWebhooksSignature?:
    | ((signingKey: string, webhookId: string, timestampSeconds: number, body: string) => string)
    | undefined
}

// The domain compiles without DOM or Node typings: it declares the one global it uses.
const TextEncoderOf = (
  globalThis as unknown as { readonly TextEncoder: new () => { encode(s: string): Uint8Array } }
).TextEncoder
const encoder = new TextEncoderOf()

/** The UTF-8 bytes of a string, lone surrogates as U+FFFD (what goes on the wire). */
export const utf8Bytes = (text: string): Uint8Array => encoder.encode(text)

/**
 * Whether two signatures are equal, in time independent of where they
 * differ (effect/crypto's `timingSafeEqual` over their UTF-8 bytes). A
 * different length answers at once: a signature's length is public.
 */
export const constantTimeEqual = (a: string, b: string): boolean =>
  timingSafeEqual(utf8Bytes(a), utf8Bytes(b))

export const SigningKeyPrefix = "whsec_"
export const SigningKeyByteLength = 32

/** The key as handed out, from its random bytes. */
export const signingKeyFromBytes = (bytes: Uint8Array): string => SigningKeyPrefix + Base64.encode(bytes)

const signingKeyPattern = /^whsec_[A-Za-z0-9+/]{43}=$/

/** Whether a string has the form of a key we issue (32 bytes behind `whsec_`). */
export const isSigningKey = (key: string): boolean => signingKeyPattern.test(key)

/**
 * The HMAC key bytes of the Standard Webhooks signature: the base64 payload
 * behind `whsec_`. A string that is not of that form (never issued by us)
 * falls back to its UTF-8 bytes, so the function is total.
 */
export const standardWebhooksKeyBytes = (signingKey: string): Uint8Array => {
  if (signingKey.startsWith(SigningKeyPrefix)) {
    const decoded = Base64.decode(signingKey.slice(SigningKeyPrefix.length))
    if (Result.isSuccess(decoded)) return decoded.success
  }
  return utf8Bytes(signingKey)
}

/** The Standard Webhooks v1 signature (`v1,<base64>`) of one attempt. */
export const standardWebhooksSignature = (
  signer: Pick<SignatureHmac, "hmacSha256" | "standardWebhooksHmac" | "standardWebhooksSignature">,
  signingKey: string,
  webhookId: string,
  timestampSeconds: number,
  body: string
): string => {
  if (signer.standardWebhooksSignature !== undefined)
    return signer.standardWebhooksSignature(signingKey, webhookId, timestampSeconds, body)
  const message = `${webhookId}.${timestampSeconds}.${body}`
  return (
    "v1," +
    Base64.encode(
      signer.standardWebhooksHmac === undefined
        ? signer.hmacSha256(standardWebhooksKeyBytes(signingKey), message)
        : signer.standardWebhooksHmac(signingKey, message)
    )
  )
}

export const ServiceSignatureHeader = "X-Service-Signature"

// A type, not an interface, so that it is a transport request's header record as it is.
export type DeliveryHeaders = {
  readonly "content-type": "application/json"
  readonly "X-Service-Signature": string
  readonly "webhook-id": string
  readonly "webhook-timestamp": string
  readonly "webhook-signature": string
}

/**
 * The headers of one attempt of a delivery. `timestampSeconds` is the unix
 * time of the attempt (whole seconds; fractions are dropped), fresh on every
 * attempt so receivers can refuse stale replays while retries still pass;
 * `webhook-id` is the delivery_id, stable across attempts: the idempotency key.
 * While a rotation's overlap runs, `previousKey` (the replaced key) signs too:
 * `webhook-signature` then carries both; X-Service-Signature only the newest.
 */
export const deliveryHeaders = (
  delivery: Pick<Delivery, "delivery_id" | "body">,
  signingKey: string,
  timestampSeconds: number,
  signer: SignatureHmac,
  previousKey: string | null = null
): DeliveryHeaders => {
  const timestamp = Math.floor(timestampSeconds)
  const signature = (key: string) =>
    standardWebhooksSignature(signer, key, delivery.delivery_id, timestamp, delivery.body)
  return {
    "content-type": "application/json",
    "X-Service-Signature": signer.sign(signingKey, delivery.body),
    "webhook-id": delivery.delivery_id,
    "webhook-timestamp": String(timestamp),
    // During a rotation's overlap, one `v1,` entry per key (space-separated), the newest first.
    "webhook-signature":
      previousKey === null ? signature(signingKey) : `${signature(signingKey)} ${signature(previousKey)}`
  }
}

/**
 * Receiver-side check of the Standard Webhooks header: true when one of its
 * space-separated `v1,` signatures matches (constant-time compare). The
 * timestamp tolerance is the receiver's policy and is not checked here.
 */
export const verifyStandardWebhook = (
  signer: Pick<SignatureHmac, "hmacSha256">,
  signingKey: string,
  request: {
    readonly webhookId: string
    readonly timestampSeconds: number
    readonly body: string
    readonly signatureHeader: string
  }
): boolean => {
  const expected = standardWebhooksSignature(
    signer,
    signingKey,
    request.webhookId,
    request.timestampSeconds,
    request.body
  )
  let matched = false
  for (const candidate of request.signatureHeader.split(" ")) {
    if (constantTimeEqual(expected, candidate)) matched = true
  }
  return matched
}
