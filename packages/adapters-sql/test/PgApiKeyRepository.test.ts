import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect, Exit } from "effect"
import * as PgApiKeyRepository from "../src/PgApiKeyRepository.ts"
import {
  apiKeyRepositoryContract,
  newKey
} from "@ratings/domain/test-support/contract/ratings-api-key-repository"
import { postgresTarget } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

apiKeyRepositoryContract(postgresTarget(PgApiKeyRepository.layer))

const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")

describe("PgApiKeyRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "stores only the hash: the row holds the digest and a short prefix, nothing else of the key",
      () =>
        Effect.gen(function* () {
          const repo = yield* ApiKeyRepository
          const sql = yield* PgClient.PgClient
          const key = newKey(1)
          yield* repo.create(key)
          const columns = yield* sql<{ column_name: string }>`
          SELECT column_name FROM information_schema.columns WHERE table_name = 'api_keys' ORDER BY column_name`
          assert.deepStrictEqual(
            columns.map((c) => c.column_name),
            ["account_id", "created_at", "hash", "id", "name", "prefix", "revoked_at", "tier"]
          )
          const [row] = yield* sql<{ hash: string }>`SELECT hash FROM api_keys WHERE id = ${key.id}`
          assert.strictEqual(row!.hash, key.hash)
        }).pipe(Effect.provide(PgApiKeyRepository.layer))
    )

    it.effect(
      "a key in clear is refused and not echoed in the error: hash takes only a SHA-256 digest, prefix at most 12 characters",
      () =>
        Effect.gen(function* () {
          const repo = yield* ApiKeyRepository
          const clear = "rk_Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6"
          const inHash = yield* Effect.exit(repo.create(newKey(2, { hash: clear })))
          assert.include(failureText(inHash), "api_keys_hash_check")
          assert.notInclude(failureText(inHash), clear)
          const inPrefix = yield* Effect.exit(repo.create(newKey(3, { prefix: clear })))
          assert.include(failureText(inPrefix), "api_keys_prefix_check")
          assert.notInclude(failureText(inPrefix), clear)
          assert.deepStrictEqual(
            (yield* repo.list()).filter((k) => k.id === "key-2" || k.id === "key-3"),
            []
          )
        }).pipe(Effect.provide(PgApiKeyRepository.layer))
    )

    it.effect("two keys cannot share a hash", () =>
      Effect.gen(function* () {
        const repo = yield* ApiKeyRepository
        yield* repo.create(newKey(4))
        const exit = yield* Effect.exit(repo.create(newKey(5, { hash: newKey(4).hash })))
        assert.include(failureText(exit), "api_keys_hash_unique")
      }).pipe(Effect.provide(PgApiKeyRepository.layer))
    )
  })
})
