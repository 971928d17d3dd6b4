/**
 * The behaviour of the ApiKeyRepository port, run against every implementation: over
 * memory in the domain's test/ports/memory/ApiKeyRepositoryMemory.test.ts, over
 * Postgres in adapters-sql's PgApiKeyRepository.test.ts.
 */
import { assert } from "@effect/vitest"
import { ApiKeyRepository, type NewApiKey } from "../../../src/ports/ApiKeyRepository.ts"
import { Effect, Option } from "effect"
import { contract, type Target } from "./ratings-harness.ts"
import { T0, T1, T2 } from "./ratings-fixtures.ts"

/** Stand-ins for SHA-256 hex digests of keys. */
export const digest = (n: number) => n.toString(16).padStart(64, "0")

export const newKey = (n: number, over: Partial<NewApiKey> = {}): NewApiKey => ({
  id: `key-${n}`,
  name: `Key ${n}`,
  tier: "pro",
  account_id: "acct-1",
  prefix: `rk_abc${n}`,
  hash: digest(n),
  created_at: T0,
  ...over
})

export const infoOf = (k: NewApiKey, revoked_at: string | null = null) => ({
  id: k.id,
  name: k.name,
  tier: k.tier,
  account_id: k.account_id,
  prefix: k.prefix,
  created_at: k.created_at,
  revoked_at
})

export const apiKeyRepositoryContract = <D>(target: Target<ApiKeyRepository, D>) =>
  contract("ApiKeyRepository contract", target, (test) => {
    test("create returns the key's info, never its hash, with revoked_at null", () =>
      Effect.gen(function* () {
        const repo = yield* ApiKeyRepository
        const k = newKey(1, { tier: "enterprise" })
        assert.deepStrictEqual(yield* repo.create(k), infoOf(k))
      }))

    test("findActiveByHash finds the active key with that hash; unknown hashes find nothing", () =>
      Effect.gen(function* () {
        const repo = yield* ApiKeyRepository
        const k = newKey(2)
        yield* repo.create(k)
        assert.deepStrictEqual(yield* repo.findActiveByHash(k.hash), Option.some(infoOf(k)))
        assert.isTrue(Option.isNone(yield* repo.findActiveByHash(digest(999))))
      }))

    test("revoke: true once for an active key, then false; a revoked key is no longer found by its hash", () =>
      Effect.gen(function* () {
        const repo = yield* ApiKeyRepository
        const k = newKey(3)
        yield* repo.create(k)
        assert.isTrue(yield* repo.revoke(k.id, T1))
        assert.isFalse(yield* repo.revoke(k.id, T2))
        assert.isFalse(yield* repo.revoke("key-unknown", T2))
        assert.isTrue(Option.isNone(yield* repo.findActiveByHash(k.hash)))
      }))

    test("list shows every key, revoked ones with their revocation time", () =>
      Effect.gen(function* () {
        const repo = yield* ApiKeyRepository
        const a = newKey(4)
        const b = newKey(5, { created_at: T1, tier: "free", account_id: "acct-2" })
        yield* repo.create(a)
        yield* repo.create(b)
        yield* repo.revoke(a.id, T2)
        assert.deepStrictEqual(yield* repo.list(), [infoOf(a, T2), infoOf(b)])
      }))
  })
