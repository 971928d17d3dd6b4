/**
 * PgChainDirectory reads the three columns quantum matching needs, and must
 * give exactly what ChainDirectory.layerEntities gives over the same store
 * (drafts included, private and inactive chains left out, no other type).
 */
import { assert, describe, it } from "@effect/vitest"
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { entity } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Effect } from "effect"
import * as PgChainDirectory from "../src/PgChainDirectory.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import { TestDatabase } from "./TestDatabase.ts"

describe("PgChainDirectory", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "lists the chains ChainDirectory.layerEntities lists over the same store: drafts and every status, no private or inactive chain, no other type, by slug",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          yield* entities.upsert([
            entity("chain", "zeta-chain", { status: "draft" }),
            entity("chain", "alpha-chain"),
            entity("chain", "beta-chain", { status: "scoring", name: "Beta Chain" }),
            entity("chain", "hidden-chain", { is_private: true }),
            entity("chain", "retired-chain", { is_active: false }),
            entity("chain", "approved-chain", { status: "approved" }),
            entity("protocol", "not-a-chain")
          ])
          const listed = Effect.flatMap(ChainDirectory, (d) => d.all)
          const fromColumns = yield* Effect.provide(listed, PgChainDirectory.layer)
          const fromRecords = yield* Effect.provide(listed, ChainDirectory.layerEntities)
          assert.deepStrictEqual(fromColumns, fromRecords)
          assert.deepStrictEqual(
            fromColumns.map((c) => `${c.slug} ${c.status}`),
            ["alpha-chain published", "approved-chain approved", "beta-chain scoring", "zeta-chain draft"]
          )
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )
  })
})
