import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  issueApiKey,
  looksLikeApiKey,
  sameDigest
} from "../src/server/ApiKeyCrypto.ts"

describe("ApiKeyCrypto", () => {
  it("keys are rk_ plus 32 random bytes in base64url, different every time", () => {
    const a = generateApiKey()
    const b = generateApiKey()
    assert.match(a, /^rk_[A-Za-z0-9_-]{43}$/)
    assert.notStrictEqual(a, b)
    assert.isTrue(looksLikeApiKey(a))
    assert.isFalse(looksLikeApiKey("Bearer x"))
  })

  it("keys are stored as their SHA-256 and a short prefix, never in clear", () => {
    const key = generateApiKey()
    assert.strictEqual(hashApiKey(key), createHash("sha256").update(key).digest("hex"))
    assert.notInclude(hashApiKey(key), key.slice(3))
    assert.strictEqual(displayPrefix(key), key.slice(0, 9))
  })

  it("an issued key's record holds its hash and prefix, never the key, under a new account unless one is given", () => {
    const { key, record } = issueApiKey({ name: "ci", tier: "pro" })
    assert.isTrue(looksLikeApiKey(key))
    assert.strictEqual(record.hash, hashApiKey(key))
    assert.strictEqual(record.prefix, displayPrefix(key))
    assert.notInclude(JSON.stringify(record), key.slice(3))
    assert.strictEqual(record.tier, "pro")
    assert.notStrictEqual(record.account_id, issueApiKey({ name: "ci", tier: "pro" }).record.account_id)
    assert.strictEqual(
      issueApiKey({ name: "ci", tier: "free", account_id: "acct-1" }).record.account_id,
      "acct-1"
    )
    assert.isFalse(Number.isNaN(Date.parse(record.created_at)))
  })

  it("digests compare in constant time and refuse any difference", () => {
    const h = hashApiKey(generateApiKey())
    assert.isTrue(sameDigest(h, h))
    assert.isFalse(sameDigest(h, hashApiKey(generateApiKey())))
    assert.isFalse(sameDigest(h, h.slice(2)))
  })
})
