/**
 * Keys held in memory by the authentication middleware when the server has a
 * response cache checked against the database's versions (issue 15: a keyed
 * request costs the shared version read, not a key lookup of its own), over
 * Postgres as in production:
 * - a remembered key is used without a lookup while the keys' version holds;
 * - a revocation (which bumps that version in its own statement) refuses the
 *   key on the very next request, on cached and uncached routes alike, and
 *   whoever revoked it (the server's store or a repository of its own, as
 *   another process; ResponseCacheAcrossProcesses covers real processes);
 * - a key refused while unknown works on its first request once created
 *   (unknown keys are not remembered).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import * as PgApiKeyRepository from "@ratings/adapters-sql/PgApiKeyRepository"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect, Layer, Option } from "effect"
import { displayPrefix, generateApiKey, hashApiKey } from "../src/server/ApiKeyCrypto.ts"
import { ResponseCache } from "../src/server/cache/ResponseCache.ts"
import { Seed } from "./fixtures.ts"
import { database, TestServer } from "./TestServer.ts"

/** Every call of the key store's lookup, counted. */
const lookups = { count: 0 }

const countingKeys = Layer.effect(
  ApiKeyRepository,
  Effect.map(ApiKeyRepository, (keys) =>
    ApiKeyRepository.of({
      ...keys,
      findActiveByHash: (hash) =>
        Effect.suspend(() => {
          lookups.count++
          return keys.findActiveByHash(hash)
        })
    })
  )
)

/** The production cache: entries and keys checked against the versions in the server's own database. */
const pgCache = ResponseCache.layer({
  versions: Effect.flatMap(database, (sql) => PgCacheInvalidation.currentVersions(sql))
})

const InvalidKey = { detail: { error: "invalid_key" } }

layer(TestServer.layerPostgres(Seed, { responseCache: pgCache, apiKeys: countingKeys }), {
  excludeTestServices: true
})("keys held in memory (Postgres, versioned cache)", (it) => {
  describe("the key memo", () => {
    it.effect("a key is looked up once, then used from memory while the keys' version holds", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.createKey("enterprise")
        const before = lookups.count
        for (const path of [
          "/api/v1/protocols",
          "/api/v1/protocols/protocol-alpha/questions",
          "/api/v1/incidents"
        ]) {
          const r = yield* server.get(path, { authorization: `Bearer ${key}` })
          assert.strictEqual(r.status, 200, path)
        }
        assert.strictEqual(lookups.count - before, 1, "one lookup for three requests")
      })
    )

    it.effect(
      "a revocation refuses the key on the next request, cached and uncached routes alike, also when a repository outside the server revoked it",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          // A repository of its own, as another process would hold: nothing passes through the server.
          const pg = Option.getOrThrow(yield* Effect.serviceOption(PgClient.PgClient))
          const elsewhere = yield* PgApiKeyRepository.make.pipe(Effect.provideService(PgClient.PgClient, pg))
          for (const revoker of [server.keys, elsewhere]) {
            const { key, id } = yield* server.createKey("pro")
            const cached = "/api/v1/protocols/protocol-alpha/history"
            assert.strictEqual((yield* server.get(cached, { authorization: `Bearer ${key}` })).status, 200)
            assert.strictEqual((yield* server.get(cached, { authorization: `Bearer ${key}` })).status, 200)
            assert.isTrue(yield* Effect.orDie(revoker.revoke(id, new Date().toISOString())))
            for (const path of [cached, "/api/v1/protocols", "/api/v1/incidents"]) {
              const r = yield* server.get(path, { authorization: `Bearer ${key}` })
              assert.strictEqual(r.status, 401, path)
              assert.deepStrictEqual(r.json, InvalidKey, path)
            }
          }
        })
    )

    it.effect(
      "an unknown key is not held: refused while unknown, it works on its first request once created",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = generateApiKey()
          const asKey = { authorization: `Bearer ${key}` }
          for (let i = 0; i < 2; i++)
            assert.strictEqual((yield* server.get("/api/v1/protocols", asKey)).status, 401, "unknown")
          yield* Effect.orDie(
            server.keys.create({
              id: crypto.randomUUID(),
              name: "created later",
              tier: "free",
              account_id: crypto.randomUUID(),
              prefix: displayPrefix(key),
              hash: hashApiKey(key),
              created_at: new Date().toISOString()
            })
          )
          assert.strictEqual((yield* server.get("/api/v1/protocols", asKey)).status, 200)
        })
    )
  })
})
