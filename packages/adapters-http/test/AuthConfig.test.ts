/**
 * The authentication configuration is checked at start-up: a configuration
 * that would weaken verification (alg none, HS* without a shared secret, a key
 * set over plain HTTP from another host, no key source) stops the server.
 */
import { createPublicKey } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import {
  type AuthConfig,
  DefaultAlgorithms,
  type JwtConfig,
  resolveJwtConfig,
  trustedHops
} from "../src/server/AuthConfig.ts"
import { layerAuthentication } from "../src/server/Authentication.ts"
import { generateDevKeyPair } from "../src/server/DevToken.ts"
import { RequestRateLimiter } from "../src/server/limits/RateLimit.ts"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"

const { publicKeyPem } = generateDevKeyPair()
const base: JwtConfig = { publicKey: publicKeyPem, issuer: "https://idp.example", audience: "ratings-api" }
const secretJwk = JSON.stringify({ kty: "oct", k: Buffer.alloc(32, 7).toString("base64url") })

/** The message of the configuration error, or undefined when the layer builds. */
const startUp = (config: AuthConfig) =>
  Effect.gen(function* () {
    const result = yield* Effect.result(
      Effect.scoped(
        Layer.build(
          layerAuthentication(config).pipe(
            Layer.provide(Layer.merge(ApiKeyRepositoryMemory.layer, RequestRateLimiter.layer()))
          )
        )
      )
    )
    return Result.isSuccess(result) ? undefined : result.failure
  })

describe("AuthConfig", () => {
  it.effect("the algorithm allow-list defaults to RS256, ES256 and EdDSA", () =>
    Effect.gen(function* () {
      const resolved = yield* resolveJwtConfig(base)
      assert.deepStrictEqual(resolved.algorithms, [...DefaultAlgorithms])
      assert.deepStrictEqual(resolved.algorithms, ["RS256", "ES256", "EdDSA"])
      assert.strictEqual(resolved.roleClaim, "role")
      assert.strictEqual(resolved.clockToleranceSeconds, 30)
    })
  )

  it.effect('"none" is never an allowed algorithm, in any spelling', () =>
    Effect.gen(function* () {
      for (const alg of ["none", "None", "NONE"]) {
        const error = yield* startUp({ jwt: { ...base, algorithms: ["ES256", alg] } })
        assert.strictEqual(error?._tag, "AuthConfigError", alg)
      }
    })
  )

  it.effect(
    "HS* only when explicitly allowed and given a shared-secret JWK; never mixed, never with a PEM or a JWKS URL",
    () =>
      Effect.gen(function* () {
        assert.isUndefined(yield* startUp({ jwt: { ...base, publicKey: secretJwk, algorithms: ["HS256"] } }))
        assert.isDefined(yield* startUp({ jwt: { ...base, algorithms: ["HS256"] } }), "PEM with HS256")
        assert.isDefined(
          yield* startUp({ jwt: { ...base, publicKey: secretJwk } }),
          "secret without HS allow-list"
        )
        assert.isDefined(
          yield* startUp({ jwt: { ...base, publicKey: secretJwk, algorithms: ["HS256", "ES256"] } }),
          "mixed"
        )
        assert.isDefined(
          yield* startUp({
            jwt: { ...base, publicKey: undefined, jwksUrl: "https://idp.example/jwks", algorithms: ["HS256"] }
          }),
          "JWKS URL with HS256"
        )
        const short = JSON.stringify({ kty: "oct", k: Buffer.alloc(16, 7).toString("base64url") })
        assert.isDefined(
          yield* startUp({ jwt: { ...base, publicKey: short, algorithms: ["HS256"] } }),
          "short secret"
        )
      })
  )

  it.effect("exactly one key source: a JWKS URL or a public key", () =>
    Effect.gen(function* () {
      assert.isDefined(yield* startUp({ jwt: { ...base, publicKey: undefined } }))
      assert.isDefined(yield* startUp({ jwt: { ...base, jwksUrl: "https://idp.example/jwks" } }))
      assert.isDefined(yield* startUp({ jwt: { ...base, publicKey: "not a key" } }))
      assert.isDefined(
        yield* startUp({
          jwt: { ...base, publicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" }
        })
      )
      assert.isDefined(yield* startUp({ jwt: { ...base, issuer: "" } }))
      assert.isDefined(yield* startUp({ jwt: { ...base, audience: " " } }))
    })
  )

  it.effect("the JWKS URL is fetched over https; plain http only on loopback", () =>
    Effect.gen(function* () {
      const withUrl = (jwksUrl: string) => startUp({ jwt: { ...base, publicKey: undefined, jwksUrl } })
      assert.isUndefined(yield* withUrl("https://idp.example/.well-known/jwks.json"))
      assert.isUndefined(yield* withUrl("http://127.0.0.1:8081/jwks"))
      assert.isUndefined(yield* withUrl("http://localhost:8081/jwks"))
      assert.isDefined(yield* withUrl("http://idp.example/jwks"))
      assert.isDefined(yield* withUrl("ftp://idp.example/jwks"))
      assert.isDefined(yield* withUrl("not a url"))
    })
  )

  it.effect("the public key may be a PEM, a JWK or a JWK Set", () =>
    Effect.gen(function* () {
      const jwk = createPublicKey(publicKeyPem).export({ format: "jwk" })
      assert.isUndefined(yield* startUp({ jwt: base }))
      assert.isUndefined(yield* startUp({ jwt: { ...base, publicKey: JSON.stringify(jwk) } }))
      assert.isUndefined(
        yield* startUp({ jwt: { ...base, publicKey: JSON.stringify({ keys: [{ ...jwk, kid: "k1" }] }) } })
      )
    })
  )

  it.effect("no JWT configuration is valid: API keys only", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* startUp({}))
    })
  )

  it("trustProxy counts trusted hops: false or absent none, true one, a number that many", () => {
    assert.strictEqual(trustedHops(undefined), 0)
    assert.strictEqual(trustedHops(false), 0)
    assert.strictEqual(trustedHops(true), 1)
    assert.strictEqual(trustedHops(2), 2)
    assert.strictEqual(trustedHops(0), 0)
    assert.strictEqual(trustedHops(-1), 0)
    assert.strictEqual(trustedHops(1.5), 0)
  })
})
