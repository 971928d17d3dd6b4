/**
 * The key memo of a server without a response cache (KeyMemo.ts,
 * KeyVersions): keys are held under the keys' version read by one query
 * shared by the requests waiting for it, looked up again once a revocation
 * bumps the version, and looked up every time when no versions can be read.
 */
import { assert, describe, it } from "@effect/vitest"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { Context, Effect, Layer, Option } from "effect"
import { hashApiKey, issueApiKey } from "../src/server/ApiKeyCrypto.ts"
import { KeyMemo, KeyVersions } from "../src/server/KeyMemo.ts"

/** The memo as `serve` builds it without a cache, over counted lookups and counted version reads. */
const world = Effect.gen(function* () {
  const keys = yield* ApiKeyRepository
  const counts = { lookups: 0, versionReads: 0, version: 1, down: false }
  const counted = ApiKeyRepository.of({
    ...keys,
    findActiveByHash: (hash) =>
      Effect.suspend(() => {
        counts.lookups++
        return keys.findActiveByHash(hash)
      })
  })
  const read = Effect.suspend(() => {
    counts.versionReads++
    return counts.down ? Effect.fail("down") : Effect.succeed({ api_keys: String(counts.version) })
  }).pipe(Effect.delay("5 millis"))
  const context = yield* Layer.build(
    KeyMemo.layer.pipe(
      Layer.provide(KeyVersions.layer(read)),
      Layer.provide(Layer.succeed(ApiKeyRepository, counted))
    )
  )
  const issued = issueApiKey({ name: "memo", tier: "pro" })
  yield* Effect.orDie(keys.create(issued.record))
  return { memo: Context.get(context, KeyMemo), counts, issued, keys }
}).pipe(Effect.provide(ApiKeyRepositoryMemory.layer))

describe("key memo without a response cache", () => {
  it.live("holds a key under the keys' version: one lookup for many requests", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { memo, counts, issued } = yield* world
        const hash = hashApiKey(issued.key)
        for (let i = 0; i < 5; i++) {
          const { found } = yield* memo.keyOf(hash)
          assert.isTrue(Option.isSome(found))
        }
        assert.strictEqual(counts.lookups, 1)
        assert.strictEqual(counts.versionReads, 5)
      })
    )
  )

  it.live("requests waiting at once share one version read", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { memo, counts, issued } = yield* world
        const hash = hashApiKey(issued.key)
        yield* memo.keyOf(hash)
        const before = counts.versionReads
        yield* Effect.all(
          Array.from({ length: 50 }, () => memo.keyOf(hash)),
          { concurrency: "unbounded" }
        )
        assert.isAtMost(
          counts.versionReads - before,
          3,
          "50 concurrent requests, at most a few version reads"
        )
        assert.strictEqual(counts.lookups, 1)
      })
    )
  )

  it.live("a revocation (the version bumped) sends the next request to the store, which refuses it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { memo, counts, issued, keys } = yield* world
        const hash = hashApiKey(issued.key)
        yield* memo.keyOf(hash)
        const [record] = (yield* Effect.orDie(keys.list())).filter((k) => k.name === "memo")
        yield* Effect.orDie(keys.revoke(record!.id, new Date().toISOString()))
        counts.version++
        const { found } = yield* memo.keyOf(hash)
        assert.isTrue(Option.isNone(found), "the revoked key is not held past the revocation")
        assert.strictEqual(counts.lookups, 2)
      })
    )
  )

  it.live("without versions (their read fails) every request looks its key up", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { memo, counts, issued } = yield* world
        counts.down = true
        const hash = hashApiKey(issued.key)
        for (let i = 0; i < 3; i++) yield* memo.keyOf(hash)
        assert.strictEqual(counts.lookups, 3)
      })
    )
  )
})
