/**
 * The explorer's key cookie as admission reads it (admission/Credential.ts):
 * a credential on the explorer's pages and forms only. The same cookie on
 * the API, /mcp, the docs or anything else establishes nobody (anonymous),
 * so a page of another site can never use a visitor's cookie on the API; an
 * Authorization header wins over the cookie; a bad cookie is refused (401)
 * and counted like a bad header.
 */
import { assert, describe, it } from "@effect/vitest"
import { callerKind } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { Effect } from "effect"
import { InvalidKeyError } from "../src/api/Authentication.ts"
import { Admission, type AdmissionFacts } from "../src/server/admission/Admission.ts"
import { isExplorerPath, keyCookieOf, requestCredential } from "../src/server/admission/Credential.ts"
import * as Step from "../src/server/admission/Step.ts"
import { issueApiKey } from "../src/server/ApiKeyCrypto.ts"
import { NoIdentityProvider } from "../src/server/JwtVerifier.ts"
import { KeyMemo } from "../src/server/KeyMemo.ts"
import { MemoryStore, RequestRateLimiter } from "../src/server/limits/RateLimit.ts"

const world = Effect.gen(function* () {
  const keys = yield* ApiKeyRepository
  const limiter = yield* RequestRateLimiter.makeMemory({}).pipe(Effect.provide(MemoryStore.layer))
  const admission = Admission.make({
    memo: KeyMemo.make(keys, undefined),
    jwt: NoIdentityProvider,
    hops: 0,
    limiter
  })
  const pro = issueApiKey({ name: "explorer", tier: "pro" })
  yield* Effect.orDie(keys.create(pro.record))
  const admit = (facts: Partial<AdmissionFacts>) =>
    Step.toEffect(
      admission.admit(
        { authorization: undefined, remoteAddress: "192.0.2.7", forwardedFor: undefined, ...facts },
        undefined
      )
    )
  return { admit, key: pro.key }
}).pipe(Effect.provide(ApiKeyRepositoryMemory.layer))

const kindOf = (decision: Effect.Success<ReturnType<Effect.Success<typeof world>["admit"]>>) =>
  decision._tag === "Admitted" ? callerKind(decision.caller) : decision.error

describe("the explorer's key cookie", () => {
  it("counts on the explorer's pages and forms, and nowhere else", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { admit, key } = yield* world
        const cookie = `theme=dark; ratings_key=${key}; other=1`
        for (const target of [
          "/",
          "/protocols",
          "/protocols/aave-v3?x=1",
          "/incidents",
          "/webhooks",
          "/sign-in"
        ])
          assert.strictEqual(kindOf(yield* admit({ cookie, target })), "pro", target)
        for (const target of [
          "/api/v1/protocols/aave-v3/domains",
          "/api/v1/alert-rules",
          "/mcp",
          "/docs",
          "/openapi.json",
          "/metrics",
          "/dashboard",
          "/assets/explorer.css",
          "/protocolsx",
          undefined
        ])
          assert.strictEqual(kindOf(yield* admit({ cookie, target })), "anonymous", String(target))
      })
    ))

  it("the Authorization header wins over the cookie; a bad cookie is a 401 like a bad header", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { admit, key } = yield* world
        assert.strictEqual(
          kindOf(
            yield* admit({ cookie: "ratings_key=rk_unknown", authorization: `Bearer ${key}`, target: "/" })
          ),
          "pro"
        )
        assert.instanceOf(
          kindOf(yield* admit({ cookie: "ratings_key=rk_unknown", target: "/protocols" })),
          InvalidKeyError
        )
        assert.instanceOf(
          kindOf(yield* admit({ cookie: "ratings_key=not-a-key", target: "/protocols" })),
          InvalidKeyError
        )
      })
    ))

  it("reads the cookie's value and the explorer's paths exactly", () => {
    assert.strictEqual(keyCookieOf("a=1; ratings_key=rk_x ; b=2"), "rk_x")
    assert.strictEqual(keyCookieOf("xratings_key=rk_x"), undefined)
    assert.strictEqual(keyCookieOf("ratings_key="), undefined)
    assert.strictEqual(keyCookieOf(undefined), undefined)
    assert.isTrue(isExplorerPath("/chains/ethereum"))
    assert.isFalse(isExplorerPath("/api/v1/chains/ethereum"))
    assert.isFalse(isExplorerPath("//protocols"))
    assert.deepStrictEqual(requestCredential(undefined, "ratings_key=rk_a", "/mcp"), { _tag: "None" })
    assert.deepStrictEqual(requestCredential(undefined, "ratings_key=rk_a", "/"), {
      _tag: "ApiKey",
      key: "rk_a"
    })
  })
})
