/**
 * API key material. A key is `rk_` + 32 random bytes in base64url: unguessable,
 * so a plain SHA-256 of it is a safe lookup hash (no salt or slow hash needed,
 * unlike passwords). Only the hash and a short prefix are stored; the key is
 * shown once when created.
 */
import { hash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import type { NewApiKey } from "@ratings/domain/ports/ApiKeyRepository"

export const KeyPrefix = "rk_"
const KeyPattern = /^rk_[A-Za-z0-9_-]{43}$/

export const generateApiKey = (): string => `${KeyPrefix}${randomBytes(32).toString("base64url")}`

export const hashApiKey = (key: string): string => hash("sha256", key, "hex")

/** The first characters of a key, stored so an owner can tell keys apart. */
export const displayPrefix = (key: string): string => key.slice(0, KeyPrefix.length + 6)

/** Whether a presented bearer token has the shape of one of our keys (cheap check before any lookup). */
export const looksLikeApiKey = (token: string): boolean => KeyPattern.test(token)

/** Constant-time equality of two hex digests. */
export const sameDigest = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "hex")
  const y = Buffer.from(b, "hex")
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * A new key and what the store keeps of it (its hash and display prefix,
 * never the key): for `ratings keys create`, and for the benches and tests
 * that make keys. A new account unless `account_id` is given.
 */
export const issueApiKey = (fields: {
  readonly name: string
  readonly tier: KeyTier
  readonly account_id?: string | undefined
}): { readonly key: string; readonly record: NewApiKey } => {
  const key = generateApiKey()
  return {
    key,
    record: {
      id: randomUUID(),
      name: fields.name,
      tier: fields.tier,
      account_id: fields.account_id ?? randomUUID(),
      prefix: displayPrefix(key),
      hash: hashApiKey(key),
      created_at: isoTimestamp(Date.now())
    }
  }
}
