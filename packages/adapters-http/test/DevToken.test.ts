/**
 * The development identity provider: its key pair, and the admin tokens it
 * mints, which the server's own verifier accepts exactly as it would a real
 * provider's (and refuses once expired, past the allowed skew). Time is the
 * TestClock's for both the minting and the verifying.
 */
import { createPrivateKey, createPublicKey } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { decodeJwt, decodeProtectedHeader } from "jose"
import { resolveJwtConfig } from "../src/server/AuthConfig.ts"
import { generateDevKeyPair, mintDevAdminToken } from "../src/server/DevToken.ts"
import { makeJwtVerifier } from "../src/server/JwtVerifier.ts"

const pair = generateDevKeyPair()
const names = { issuer: "ratings-dev", audience: "ratings-api" }
const verifier = Effect.flatMap(
  resolveJwtConfig({ ...names, publicKey: pair.publicKeyPem }),
  makeJwtVerifier
).pipe(Effect.orDie)

const mint = (ttlSeconds = 3600) =>
  mintDevAdminToken({
    privateKeyPem: pair.privateKeyPem,
    ...names,
    subject: "dev@localhost",
    role: "super_admin",
    ttlSeconds
  })

describe("DevToken", () => {
  it("the dev key pair is ES256 (P-256), private key in PKCS#8 PEM, public key in SPKI PEM", () => {
    assert.match(pair.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/)
    assert.match(pair.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/)
    const key = createPrivateKey(pair.privateKeyPem)
    assert.strictEqual(key.asymmetricKeyType, "ec")
    assert.strictEqual(key.asymmetricKeyDetails?.namedCurve, "prime256v1")
    assert.strictEqual(
      createPublicKey(pair.privateKeyPem).export({ format: "pem", type: "spki" }).toString(),
      pair.publicKeyPem
    )
    assert.notStrictEqual(generateDevKeyPair().publicKeyPem, pair.publicKeyPem)
  })

  it.effect(
    "a minted token names the issuer, audience, subject and role, and is accepted as that admin",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-09-01T00:00:00Z"))
        const token = yield* mint(600)
        assert.deepStrictEqual(decodeProtectedHeader(token), { alg: "ES256", typ: "JWT" })
        const claims = decodeJwt(token)
        assert.strictEqual(claims.iss, "ratings-dev")
        assert.strictEqual(claims.aud, "ratings-api")
        assert.strictEqual(claims.sub, "dev@localhost")
        assert.strictEqual(claims.role, "super_admin")
        assert.strictEqual(claims.exp, Date.parse("2026-09-01T00:10:00Z") / 1000)
        const verify = yield* verifier
        assert.deepStrictEqual(yield* verify.verify(token), {
          _tag: "Admin",
          subject: "dev@localhost",
          role: "super_admin"
        })
      })
  )

  it.effect(
    "the token expires after ttlSeconds, accepted within the 30-second clock skew and refused after it",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-09-01T00:00:00Z"))
        const token = yield* mint(60)
        const verify = yield* verifier
        yield* TestClock.adjust("89 seconds")
        assert.strictEqual((yield* verify.verify(token))._tag, "Admin")
        yield* TestClock.adjust("2 seconds")
        const verdict = yield* verify.verify(token)
        assert.strictEqual(verdict._tag, "Invalid")
        assert.match((verdict as { readonly reason: string }).reason, /ERR_JWT_EXPIRED/)
      })
  )

  it.effect("a kid is set in the header when asked, for a key published in a JWK Set", () =>
    Effect.gen(function* () {
      const token = yield* mintDevAdminToken({
        privateKeyPem: pair.privateKeyPem,
        ...names,
        subject: "dev@localhost",
        role: "admin",
        ttlSeconds: 60,
        keyId: "dev-1"
      })
      assert.strictEqual(decodeProtectedHeader(token).kid, "dev-1")
    })
  )

  it.effect(
    "a ttl that is not a positive integer, or a key that is not a private EC key, fails with DevTokenError",
    () =>
      Effect.gen(function* () {
        for (const ttl of [0, -60, 1.5])
          assert.strictEqual((yield* Effect.flip(mint(ttl)))._tag, "DevTokenError")
        const bad = yield* Effect.flip(
          mintDevAdminToken({
            privateKeyPem: pair.publicKeyPem,
            ...names,
            subject: "x",
            role: "admin",
            ttlSeconds: 60
          })
        )
        assert.strictEqual(bad._tag, "DevTokenError")
        assert.notInclude(bad.message, "BEGIN")
      })
  )
})
