import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import type { EntityListQuery } from "@ratings/domain/access/ListFilter"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Effect, Exit, Option } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import { entityRepositoryContract } from "@ratings/domain/test-support/contract/ratings-entity-repository"
import { entityRulesContract } from "@ratings/domain/test-support/contract/ratings-entity-rules"
import { entity, T0, T1 } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { postgresTarget } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

entityRepositoryContract(postgresTarget(PgEntityRepository.layer))
entityRulesContract(postgresTarget(PgEntityRepository.layer))

const publicList = {
  entity_type: "protocol" as const,
  categories: [],
  skip: 0,
  limit: 50,
  flags: { include_inactive: false, include_frameworks: false, include_unpublished: false }
}

/** The row version of an entity: unchanged xmin means the row was not rewritten. */
const xminOf = (id: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    const [row] = yield* sql<{ xmin: string }>`SELECT xmin::text AS xmin FROM entities WHERE id = ${id}::uuid`
    return row!.xmin
  })

describe("PgEntityRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "re-upserting identical input rewrites no row: updated_at and the row version stay as they were",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          const aave = entity("protocol", "idem-aave")
          yield* repo.upsert([aave])
          const before = yield* xminOf(aave.record.id)
          yield* repo.upsert([aave])
          assert.strictEqual(yield* xminOf(aave.record.id), before)
          const changed = { ...aave, record: { ...aave.record, name: "Aave V4", updated_at: T1 } }
          yield* repo.upsert([changed])
          assert.notStrictEqual(yield* xminOf(aave.record.id), before)
          assert.deepStrictEqual(
            yield* repo.findById("protocol", aave.record.id),
            Option.some(changed.record)
          )
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect(
      "two entities of one type cannot share a slug: a StoreError naming the key, and nothing written",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          yield* repo.upsert([entity("oracle", "dup-slug")])
          const exit = yield* Effect.exit(
            repo.upsert([entity("oracle", "dup-free"), entity("oracle", "dup-slug")])
          )
          assert.isTrue(Exit.isFailure(exit))
          const error = Exit.isFailure(exit) ? String(exit.cause) : ""
          assert.include(error, "StoreError")
          assert.include(error, "entities_slug_unique")
          assert.include(error, "(oracle, dup-slug)")
          assert.isTrue(Option.isNone(yield* repo.findBySlug("oracle", "dup-free")))
          yield* repo.upsert([entity("protocol", "dup-slug")])
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect("two entities can swap slugs in one upsert (renames)", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const a = entity("chain", "swap-a")
        const b = entity("chain", "swap-b")
        yield* repo.upsert([a, b])
        yield* repo.upsert([
          { ...a, record: { ...a.record, slug: "swap-b" } },
          { ...b, record: { ...b.record, slug: "swap-a" } }
        ])
        const found = yield* repo.findBySlug("chain", "swap-a")
        assert.strictEqual(Option.getOrThrow(found).id, b.record.id)
      }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect("an id stored under one type cannot be upserted as another type", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const p = entity("protocol", "typed")
        yield* repo.upsert([p])
        const exit = yield* Effect.exit(repo.upsert([{ entity_type: "oracle", record: p.record }]))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(
          Exit.isFailure(exit) ? String(exit.cause) : "",
          "is stored as a protocol, not a oracle"
        )
      }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect(
      "a token's absent optional shared fields read back present and empty; its own fields keep their absence",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          const full = entity("token", "bare-token")
          const {
            categories: _c,
            chains: _ch,
            urls: _u,
            external_ids: _e,
            description: _d,
            contract_address: _a,
            ...bare
          } = full.record as unknown as Record<string, unknown>
          yield* repo.upsert([{ entity_type: "token", record: bare as never }])
          const read = Option.getOrThrow(yield* repo.findBySlug("token", "bare-token")) as unknown as Record<
            string,
            unknown
          >
          assert.deepStrictEqual(read, {
            ...bare,
            categories: [],
            chains: [],
            urls: {},
            external_ids: {},
            description: null
          })
          assert.isFalse("contract_address" in read)
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect(
      "timestamps come back as the same instant in the wire form: UTC as +00:00, a six-digit fraction only when there is one",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          const e = entity("organisation", "offset-org", {
            created_at: "2026-08-01T02:00:00+02:00",
            updated_at: "2026-08-01T00:00:00Z"
          })
          yield* repo.upsert([e])
          const read = Option.getOrThrow(yield* repo.findById("organisation", e.record.id))
          assert.strictEqual(read.created_at, T0)
          assert.strictEqual(read.created_at, "2026-08-01T00:00:00+00:00")
          assert.strictEqual(read.updated_at, "2026-08-01T00:00:00+00:00")
          const fraction = entity("organisation", "fraction-org", {
            created_at: "2026-08-01T05:30:00.25+05:30",
            updated_at: "2026-07-31T19:00:00.001-05:00"
          })
          yield* repo.upsert([fraction])
          const again = Option.getOrThrow(yield* repo.findById("organisation", fraction.record.id))
          assert.strictEqual(again.created_at, "2026-08-01T00:00:00.250000+00:00")
          assert.strictEqual(again.updated_at, "2026-08-01T00:00:00.001000+00:00")
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect(
      "rows are decoded with the domain's schemas: a stored entity row that no longer fits is a StoreError naming the read, on every read path",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          const sql = yield* PgClient.PgClient
          const org = entity("organisation", "undecodable-org")
          yield* repo.upsert([org])
          yield* sql`UPDATE entities SET urls = '{"website": 1}'::jsonb WHERE id = ${org.record.id}::uuid`
          const reads: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
            repo.list({ ...publicList, entity_type: "organisation" }),
            repo.findById("organisation", org.record.id),
            repo.findBySlug("organisation", "undecodable-org"),
            repo.published("organisation", 10),
            repo.all("organisation")
          ]
          for (const read of reads) {
            const exit = yield* Effect.exit(read)
            const text = Exit.isFailure(exit) ? String(exit.cause) : ""
            assert.include(text, "StoreError")
            assert.include(text, "does not decode")
          }
          yield* sql`UPDATE entities SET urls = '{}'::jsonb WHERE id = ${org.record.id}::uuid`
          assert.isTrue(Option.isSome(yield* repo.findById("organisation", org.record.id)))
        }).pipe(Effect.provide(PgEntityRepository.layer))
    )

    it.effect("schema constraints: protocols hold at most one category, categories are lowercase", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const sql = yield* PgClient.PgClient
        const two = yield* Effect.exit(
          repo.upsert([entity("protocol", "two-cats", { categories: ["dex", "lending"] })])
        )
        assert.include(Exit.isFailure(two) ? String(two.cause) : "", "entities_single_category")
        // The store writes categories lowercased; the table refuses any other write of one in upper case.
        const upper = entity("chain", "upper-cat", { categories: ["L2"] })
        yield* repo.upsert([upper])
        const [row] = yield* sql<{
          categories: ReadonlyArray<string>
        }>`SELECT categories FROM entities WHERE id = ${upper.record.id}::uuid`
        assert.deepStrictEqual(row?.categories, ["l2"])
        const raw = yield* Effect.exit(
          sql`UPDATE entities SET categories = '{L2}' WHERE id = ${upper.record.id}::uuid`
        )
        assert.include(Exit.isFailure(raw) ? String(raw.cause) : "", "entities_categories_check")
      }).pipe(Effect.provide(PgEntityRepository.layer))
    )
  })
})

describe("PgEntityRepository at scale", () => {
  it.layer(TestDatabase, { timeout: 120_000 })((it) => {
    it.effect(
      "a page of a list over 10,000 protocols walks the entities_listed index in order: no sort, stops at LIMIT",
      () =>
        Effect.gen(function* () {
          const repo = yield* EntityRepository
          const sql = yield* PgClient.PgClient
          const many = Array.from({ length: 10_000 }, (_, i) =>
            entity("protocol", `protocol-${String(i).padStart(5, "0")}`, {
              categories: [i % 3 === 0 ? "lending" : "dex"],
              chains: [{ slug: i % 10 === 0 ? "base" : "ethereum", name: "Chain" }],
              is_private: i % 50 === 0
            })
          )
          const others = Array.from({ length: 4_000 }, (_, i) =>
            entity(i % 2 === 0 ? "token" : "vault", `other-${String(i).padStart(5, "0")}`)
          )
          yield* repo.upsert([...many, ...others])
          yield* sql`VACUUM ANALYZE entities`
          const plan = (q: EntityListQuery) =>
            Effect.map(
              sql<{
                "QUERY PLAN": string
              }>`EXPLAIN (FORMAT TEXT) ${PgEntityRepository.listStatement(sql, q)}`,
              (rows) => rows.map((r) => r["QUERY PLAN"]).join("\n")
            )
          for (const skip of [0, 5_000]) {
            const text = yield* plan({ ...publicList, skip })
            // The page subquery: a Limit directly over an ordered scan of the partial index.
            assert.match(text, /Limit[^\n]*\n\s*->\s+Index (Only )?Scan using entities_listed/, text)
            assert.notMatch(text, /\bSort\b/, text)
            assert.notMatch(text, /Seq Scan on entities entities_1/, text)
          }
          const page = yield* repo.list({ ...publicList, skip: 100, limit: 3 })
          assert.strictEqual(page.total, 9_800)
          assert.deepStrictEqual(
            page.items.map((r) => r.slug),
            ["protocol-00103", "protocol-00104", "protocol-00105"]
          )
          const onBase = yield* repo.list({ ...publicList, chain: "base", limit: 2 })
          assert.strictEqual(onBase.total, 800)
          const search = yield* plan({ ...publicList, search: "00042" })
          assert.include(search, "entities_search", search)
          assert.deepStrictEqual(
            (yield* repo.list({ ...publicList, search: "00042" })).items.map((r) => r.slug),
            ["protocol-00042"]
          )
          const lending = yield* repo.list({ ...publicList, categories: ["lending"], limit: 2 })
          assert.strictEqual(lending.total, 3_334 - 67)
        }).pipe(Effect.provide(PgEntityRepository.layer)),
      120_000
    )
  })
})
