/**
 * Admin JWTs over the real server (spec part 5 rule 4, issue 4 "Callers"):
 * every token that must be refused is refused with 401 invalid_token (forged,
 * tampered, expired, wrong issuer or audience, alg none, HS256 signed with the
 * public key, no exp), a small clock skew is allowed, and the JWKS URL path
 * against a real key-set server on loopback: caching, key rotation, a failing
 * and a hanging provider.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Caller } from "@ratings/domain/model/Caller"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { resolveJwtConfig } from "../src/server/AuthConfig.ts"
import { generateDevKeyPair } from "../src/server/DevToken.ts"
import { makeJwtVerifier } from "../src/server/JwtVerifier.ts"
import { type Response, TestServer } from "./TestServer.ts"
import {
  adminClaims,
  JwksServer,
  nowSeconds,
  privateKeyOf,
  publicJwkOf,
  sign,
  unsecuredToken
} from "./Tokens.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const InvalidToken = { detail: { error: "invalid_token" } }
const Unavailable = { detail: "service unavailable" }

/** The admin-only view: an inactive record listed with include_inactive. */
const AdminProbe = "/api/v1/protocols?include_inactive=true"
const slugs = (r: Response): ReadonlyArray<string> => (r.json as Json).items.map((x: Json) => x.slug)

const probe = (token: string) =>
  Effect.flatMap(TestServer, (server) => server.get(AdminProbe, { authorization: `Bearer ${token}` }))

const assertAdmin = (r: Response, what: string) => {
  assert.strictEqual(r.status, 200, what)
  assert.include(slugs(r), "protocol-retired", what)
}

const assertRefused = (r: Response, what: string) => {
  assert.strictEqual(r.status, 401, what)
  assert.deepStrictEqual(r.json, InvalidToken, what)
}

layer(TestServer.layerMemory(), { excludeTestServices: true })(
  "refused tokens (public key configured)",
  (it) => {
    it.effect("a token of the configured identity provider with an admin role is an admin", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        assertAdmin(yield* probe(yield* sign(adminClaims(server.idp), privateKeyOf(server.idp))), "valid")
      })
    )

    it.effect("a forged token (signed with another key) is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const other = generateDevKeyPair()
        assertRefused(yield* probe(yield* sign(adminClaims(server.idp), privateKeyOf(other))), "forged")
      })
    )

    it.effect("a tampered token (claims changed after signing) is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const token = yield* sign(adminClaims(server.idp, { role: "user" }), privateKeyOf(server.idp))
        const [header, , signature] = token.split(".")
        const payload = Buffer.from(
          JSON.stringify(adminClaims(server.idp, { role: "super_admin" }))
        ).toString("base64url")
        assertRefused(yield* probe(`${header}.${payload}.${signature}`), "tampered")
      })
    )

    it.effect("an expired token is refused with 401 invalid_token; a small clock skew is allowed", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const key = privateKeyOf(server.idp)
        const expired = adminClaims(server.idp, { iat: nowSeconds() - 3600, exp: nowSeconds() - 120 })
        assertRefused(yield* probe(yield* sign(expired, key)), "expired two minutes ago")
        const skewed = adminClaims(server.idp, { iat: nowSeconds() - 3600, exp: nowSeconds() - 5 })
        assertAdmin(yield* probe(yield* sign(skewed, key)), "expired five seconds ago, within the skew")
        const early = adminClaims(server.idp, { nbf: nowSeconds() + 600 })
        assertRefused(yield* probe(yield* sign(early, key)), "not valid before ten minutes from now")
      })
    )

    it.effect("a token without exp is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { exp: _, ...claims } = adminClaims(server.idp)
        assertRefused(yield* probe(yield* sign(claims, privateKeyOf(server.idp))), "no exp")
      })
    )

    it.effect("a token of the wrong issuer is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const claims = adminClaims(server.idp, { iss: "https://evil.example" })
        assertRefused(yield* probe(yield* sign(claims, privateKeyOf(server.idp))), "issuer")
      })
    )

    it.effect("a token for another audience is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (const aud of ["another-api", ["another-api", "yet-another"]]) {
          const claims = adminClaims(server.idp, { aud })
          assertRefused(yield* probe(yield* sign(claims, privateKeyOf(server.idp))), `audience ${aud}`)
        }
      })
    )

    it.effect('an unsigned token (alg "none") is refused with 401 invalid_token', () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        assertRefused(yield* probe(unsecuredToken(adminClaims(server.idp))), "alg none")
      })
    )

    it.effect("HS256 signed with the public key as the shared secret is refused with 401 invalid_token", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const claims = adminClaims(server.idp)
        for (const secret of [server.idp.publicKeyPem, server.idp.publicKeyPem.trim()]) {
          const token = yield* sign(claims, new TextEncoder().encode(secret), { alg: "HS256" })
          assertRefused(yield* probe(token), "HS256 with the public key")
        }
      })
    )

    it.effect("an algorithm outside the allow-list is refused even with the right key", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        // ES384 over a P-256 key: not allowed, and not this key's algorithm either.
        const token = yield* sign(adminClaims(server.idp), privateKeyOf(server.idp), { alg: "ES256" })
        const [, payload, signature] = token.split(".")
        const header = Buffer.from(JSON.stringify({ alg: "ES384" })).toString("base64url")
        assertRefused(yield* probe(`${header}.${payload}.${signature}`), "ES384")
      })
    )

    it.effect("an admin token without a subject is refused; garbage is refused, never a 500", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { sub: _, ...claims } = adminClaims(server.idp)
        assertRefused(yield* probe(yield* sign(claims, privateKeyOf(server.idp))), "no sub")
        for (const garbage of ["a.b.c", "eyJ.eyJ.", "x", `${"a".repeat(9000)}.b.c`]) {
          assertRefused(yield* probe(garbage), garbage.slice(0, 12))
        }
      })
    )
  }
)

const ProviderKeys = { a: generateDevKeyPair(), b: generateDevKeyPair() }

/** A server trusting the JWKS URL of a live key-set server, with the given refetch cooldown and timeout. */
const jwksServerLayer = (options: { readonly cooldownMs: number; readonly timeoutMs?: number }) =>
  Layer.unwrap(
    Effect.map(JwksServer, (jwks) =>
      TestServer.layerMemory(undefined, {
        auth: (idp) => ({
          jwt: {
            jwksUrl: jwks.url,
            issuer: idp.issuer,
            audience: idp.audience,
            jwksCooldownMs: options.cooldownMs,
            jwksTimeoutMs: options.timeoutMs
          }
        })
      })
    )
  ).pipe(Layer.provideMerge(JwksServer.layer))

const signedBy = (which: "a" | "b", kid: string = which) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    return yield* sign(adminClaims(server.idp), privateKeyOf(ProviderKeys[which]), { alg: "ES256", kid })
  })

layer(jwksServerLayer({ cooldownMs: 0 }), { excludeTestServices: true })("JWKS URL", (it) => {
  it.effect("tokens verify against the provider's key set, fetched once and cached", () =>
    Effect.gen(function* () {
      const jwks = yield* JwksServer
      jwks.setKeys([yield* publicJwkOf(ProviderKeys.a, "a")])
      const token = yield* signedBy("a")
      assertAdmin(yield* probe(token), "first")
      assertAdmin(yield* probe(token), "second")
      assert.strictEqual(jwks.fetches(), 1)
      const server = yield* TestServer
      assert.deepStrictEqual(server.callers().at(-1), Caller.admin("ops@example", "admin"))
    })
  )

  it.effect(
    "key rotation: a token with an unknown kid makes the set be fetched again; a retired key is refused",
    () =>
      Effect.gen(function* () {
        const jwks = yield* JwksServer
        jwks.setKeys([yield* publicJwkOf(ProviderKeys.a, "a")])
        assertAdmin(yield* probe(yield* signedBy("a")), "before rotation")
        const before = jwks.fetches()
        jwks.setKeys([yield* publicJwkOf(ProviderKeys.b, "b")])
        assertAdmin(yield* probe(yield* signedBy("b")), "new key")
        assert.strictEqual(jwks.fetches(), before + 1, "one refetch for the new kid")
        assertRefused(yield* probe(yield* signedBy("a")), "retired key")
        assertRefused(yield* probe(yield* signedBy("a", "b")), "old key under the new kid")
      })
  )

  it.effect("a provider answering 500 makes a token uncheckable: 503, not 401", () =>
    Effect.gen(function* () {
      const jwks = yield* JwksServer
      jwks.setKeys([yield* publicJwkOf(ProviderKeys.a, "a")])
      jwks.setMode("fail")
      const r = yield* probe(yield* signedBy("a", "unknown-kid"))
      jwks.setMode("serve")
      assert.strictEqual(r.status, 503)
      assert.deepStrictEqual(r.json, Unavailable)
    })
  )
})

layer(jwksServerLayer({ cooldownMs: 60_000 }), { excludeTestServices: true })("JWKS URL, cooldown", (it) => {
  it.effect(
    "unknown kids do not make the set be fetched on every request (refetch at most once per cooldown)",
    () =>
      Effect.gen(function* () {
        const jwks = yield* JwksServer
        jwks.setKeys([yield* publicJwkOf(ProviderKeys.a, "a")])
        assertAdmin(yield* probe(yield* signedBy("a")), "known key")
        for (let i = 0; i < 5; i++) assertRefused(yield* probe(yield* signedBy("b", `kid-${i}`)), `kid-${i}`)
        assert.strictEqual(jwks.fetches(), 1)
      })
  )
})

layer(jwksServerLayer({ cooldownMs: 0, timeoutMs: 300 }), { excludeTestServices: true })(
  "JWKS URL, hanging",
  (it) => {
    it.effect(
      "a provider that never answers is given up after the bounded timeout: 503, and the request never hangs",
      () =>
        Effect.gen(function* () {
          const jwks = yield* JwksServer
          jwks.setMode("hang")
          const started = Date.now()
          const r = yield* probe(yield* signedBy("a"))
          const elapsed = Date.now() - started
          assert.strictEqual(r.status, 503)
          assert.deepStrictEqual(r.json, Unavailable)
          assert.isAtLeast(jwks.fetches(), 1)
          assert.isBelow(elapsed, 5000, `answered in ${elapsed} ms`)
          const server = yield* TestServer
          const anonymous = yield* server.get("/api/v1/protocols")
          assert.strictEqual(anonymous.status, 200, "anonymous calls do not wait on the provider")
        })
    )
  }
)

const SharedSecret = Buffer.alloc(32, 42)

layer(
  TestServer.layerMemory(undefined, {
    auth: (idp) => ({
      jwt: {
        publicKey: JSON.stringify({ kty: "oct", k: SharedSecret.toString("base64url") }),
        algorithms: ["HS256"],
        issuer: idp.issuer,
        audience: idp.audience
      }
    })
  }),
  { excludeTestServices: true }
)("shared secret, explicitly configured", (it) => {
  it.effect(
    "HS256 is accepted only when explicitly allowed with a shared secret; then asymmetric tokens are refused",
    () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        assertAdmin(
          yield* probe(yield* sign(adminClaims(server.idp), SharedSecret, { alg: "HS256" })),
          "HS256"
        )
        assertRefused(yield* probe(yield* sign(adminClaims(server.idp), privateKeyOf(server.idp))), "ES256")
        assertRefused(
          yield* probe(yield* sign(adminClaims(server.idp), Buffer.alloc(32, 1), { alg: "HS256" })),
          "another secret"
        )
      })
  )
})

describe("key given as a JWK Set", () => {
  it.effect("a publicKey holding a JWK Set verifies tokens by kid", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.now())
      const jwks = {
        keys: [yield* publicJwkOf(ProviderKeys.a, "a"), yield* publicJwkOf(ProviderKeys.b, "b")]
      }
      const verifier = yield* Effect.orDie(
        Effect.flatMap(
          resolveJwtConfig({ publicKey: JSON.stringify(jwks), issuer: "https://idp", audience: "api" }),
          makeJwtVerifier
        )
      )
      const claims = { iss: "https://idp", aud: "api", sub: "s", role: "admin", exp: nowSeconds() + 60 }
      const byB = yield* sign(claims, privateKeyOf(ProviderKeys.b), { alg: "ES256", kid: "b" })
      assert.deepStrictEqual(yield* verifier.verify(byB), { _tag: "Admin", subject: "s", role: "admin" })
      const wrongKid = yield* sign(claims, privateKeyOf(ProviderKeys.b), { alg: "ES256", kid: "a" })
      assert.strictEqual((yield* verifier.verify(wrongKid))._tag, "Invalid")
      const user = yield* sign({ ...claims, role: "user" }, privateKeyOf(ProviderKeys.a), {
        alg: "ES256",
        kid: "a"
      })
      assert.deepStrictEqual(yield* verifier.verify(user), { _tag: "NotAdmin" })
    })
  )
})
