/**
 * The zero-configuration default, tested in every run whatever DATABASE_URL
 * says: this file starts its own embedded Postgres, migrates it and round-trips
 * an entity and a scorecard through the repositories.
 */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Layer, Option } from "effect"
import * as EmbeddedPostgres from "../src/EmbeddedPostgres.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { entity, scorecard } from "@ratings/domain/test-support/contract/ratings-fixtures"

const dir = join(import.meta.dirname, "..", "..", "..", ".tmp", `embedded-test-${process.pid}-${Date.now()}`)

describe("EmbeddedPostgres", () => {
  it.live(
    "starts its own server, migrates it, and round-trips an entity and a scorecard through the repositories",
    () =>
      Effect.gen(function* () {
        const server = yield* EmbeddedPostgres.start({
          dir,
          persistent: false,
          database: "ratings_embedded_test"
        })
        const repositories = Layer.mergeAll(PgEntityRepository.layer, PgScorecardRepository.layer).pipe(
          Layer.provideMerge(PgDatabase.layer({ url: server.url, maxConnections: 2 }))
        )
        yield* Effect.gen(function* () {
          const sql = yield* PgClient.PgClient
          const [where] = yield* sql<{ port: string; db: string }>`
            SELECT current_setting('port') AS port, current_database() AS db`
          assert.deepStrictEqual(where, { port: String(server.port), db: "ratings_embedded_test" })

          const e = entity("vault", "embedded-vault", { categories: ["lst"] })
          const card = scorecard(e, 1, "published")
          yield* (yield* EntityRepository).upsert([e])
          yield* (yield* ScorecardRepository).saveDraft(card)
          assert.deepStrictEqual(
            yield* (yield* EntityRepository).findBySlug("vault", "embedded-vault"),
            Option.some(e.record)
          )
          assert.deepStrictEqual(
            yield* (yield* ScorecardRepository).findById("vault", card.id),
            Option.some(card)
          )
        }).pipe(Effect.provide(repositories))
      }),
    180_000
  )
})
