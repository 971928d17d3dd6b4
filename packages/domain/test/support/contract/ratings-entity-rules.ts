/**
 * The EntityRepository held to the domain's own definitions, on every
 * implementation (memory in the domain's EntityRepositoryMemory.test.ts,
 * Postgres in adapters-sql's PgEntityRepository.test.ts): the readable rule
 * (access/Readable.ts) over every combination of status, active and private;
 * the list filter (access/ListFilter.ts) with categories in mixed case; and
 * the list snapshot paging exactly as the store lists, for generated data
 * and requests.
 */
import { assert } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as fc from "fast-check"
import { compareListOrder, type EntityListQuery } from "../../../src/access/ListFilter.ts"
import { isListed, type ListFlags, PublicListFlags } from "../../../src/access/Projection.ts"
import { isReadable } from "../../../src/access/Readable.ts"
import { Caller } from "../../../src/model/Caller.ts"
import { type EntityRecord, EntityStatuses } from "../../../src/model/Entity.ts"
import { type EntityType, EntityTypes } from "../../../src/model/EntityType.ts"
import { EntityRepository, type StoredEntity } from "../../../src/ports/EntityRepository.ts"
import { RubricRepositoryMemory } from "../../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { type ListRequest, pageOfSnapshot, RatingsReader } from "../../../src/services/RatingsReader.ts"
import { entity, slugsOf, uuid } from "./ratings-fixtures.ts"
import { contract, type Target } from "./ratings-harness.ts"

const query = (entity_type: EntityType, over: Partial<EntityListQuery> = {}): EntityListQuery => ({
  entity_type,
  categories: [],
  skip: 0,
  limit: 1000,
  flags: PublicListFlags,
  ...over
})

/** Every list flag combination an admin may ask for, and the public's. */
const EveryFlags: ReadonlyArray<ListFlags> = [false, true].flatMap((include_inactive) =>
  [false, true].flatMap((include_unpublished) =>
    [false, true].map((include_frameworks) => ({ include_inactive, include_unpublished, include_frameworks }))
  )
)

/** One entity of the type for each status, active and private (and, for vaults, framework) combination. */
const combinations = (type: EntityType): ReadonlyArray<StoredEntity> =>
  EntityStatuses.flatMap((status) =>
    [true, false].flatMap((is_active) =>
      [true, false].flatMap((is_private) =>
        (type === "vault" ? [false, true] : [false]).map((is_framework) =>
          entity(
            type,
            `${type}-${status}-${is_active ? "active" : "inactive"}-${is_private ? "private" : "public"}${is_framework ? "-framework" : ""}`,
            { status, is_active, is_private, ...(type === "vault" ? { is_framework } : {}) }
          )
        )
      )
    )
  )

const sorted = (records: ReadonlyArray<EntityRecord>) => slugsOf([...records].sort(compareListOrder))

// ---------------------------------------------------------------------------
// Generated data and requests for the snapshot property

const Chains = ["arb", "base", "eth", "eth-2"] as const
const Orgs = ["org-a", "org-b", "org-c"] as const
const Categories = ["lending", "Lending", "DEX", "dex", "yield", "Rwa", "ÉPARGNE"] as const
const Names = ["Aave", "AAVE v3", "Ünïcode Ärger", "İstanbul", "straße", "100%_pure", "ΣΟΦΙΑ", "a-b"]
const Slugs = ["a", "a-b", "a0", "aa", "ab-c", "b", "b1", "ba", "c", "z", "zz-9", "m-a-s-t", "q", "r"]
const Searches = ["a", "A", "ü", "%", "_", "aave", "-", "ss", "ß", "σ", "v3", "b", "eth", ""]
/** How many records of the listed type each run writes, over the same ids (each run replaces the last). */
const PerRun = 10

const visibility = fc.record({
  status: fc.constantFrom("published", "published", "published", "draft", "approved"),
  is_active: fc.constantFrom(true, true, true, false),
  is_private: fc.constantFrom(false, false, false, true)
})

const dependencyId = (kind: number, i: number) => uuid(0x100 + i, 0x40 + kind)

const recordArb = (type: EntityType) =>
  fc.record({
    name: fc.constantFrom(...Names),
    visibility,
    categories: fc.subarray([...Categories], { maxLength: type === "protocol" || type === "oracle" ? 1 : 3 }),
    chains: fc.subarray([0, 1, 2, 3]),
    symbol: fc.constantFrom("AAVE", "usdc", "Üß", "v3"),
    token: fc.integer({ min: 0, max: 3 }),
    org: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    is_framework: fc.constantFrom(false, false, true)
  })

type Generated = ReturnType<typeof recordArb> extends fc.Arbitrary<infer R> ? R : never

const generated = (type: EntityType, i: number, slug: string, g: Generated): StoredEntity => {
  const chainRef = (c: number) => ({
    id: dependencyId(1, c),
    slug: Chains[c]!,
    name: Chains[c]!.toUpperCase()
  })
  const org = g.org === undefined ? null : { id: dependencyId(2, g.org), slug: Orgs[g.org]!, name: "Org" }
  const own =
    type === "token"
      ? { symbol: g.symbol, chain: chainRef(g.token) }
      : type === "vault"
        ? { curator_id: org?.id ?? null, curator: org, is_framework: g.is_framework }
        : type === "bridge"
          ? { validator_set_owner: org }
          : {}
  const base = entity(type, slug, {
    name: g.name,
    ...g.visibility,
    categories: g.categories,
    chains: g.chains.map(chainRef),
    ...own
  })
  // Ids per type and position: each run of a type replaces the records of the last run of that type.
  const id = uuid(0x200 + i, 0x50 + EntityTypes.indexOf(type))
  return { ...base, record: { ...base.record, id } as EntityRecord }
}

interface Shown {
  readonly status: string
  readonly is_active: boolean
  readonly is_private: boolean
}

const dependencies = (shown: {
  readonly chains: ReadonlyArray<Shown>
  readonly orgs: ReadonlyArray<Shown>
}): ReadonlyArray<StoredEntity> => [
  ...Chains.map((slug, i) => {
    const e = entity("chain", slug, { ...shown.chains[i]! })
    return { ...e, record: { ...e.record, id: dependencyId(1, i) } as EntityRecord }
  }),
  ...Orgs.map((slug, i) => {
    const e = entity("organisation", slug, { ...shown.orgs[i]! })
    return { ...e, record: { ...e.record, id: dependencyId(2, i) } as EntityRecord }
  })
]

const datasetArb = fc.constantFrom(...EntityTypes).chain((type) =>
  fc.record({
    type: fc.constant(type),
    deps: fc.record({
      chains: fc.tuple(...Chains.map(() => visibility)),
      orgs: fc.tuple(...Orgs.map(() => visibility))
    }),
    slugs: fc.shuffledSubarray(Slugs, { minLength: PerRun, maxLength: PerRun }),
    records: fc.array(recordArb(type), { minLength: PerRun, maxLength: PerRun })
  })
)

const requestArb = (type: EntityType): fc.Arbitrary<ListRequest> =>
  fc.record({
    entity_type: fc.constant(type),
    status: fc.option(fc.constantFrom("published", "draft", "Published"), { nil: undefined }),
    search: fc.option(fc.constantFrom(...Searches), { nil: undefined }),
    categories: fc.oneof(
      fc.subarray(["lending", "LENDING", "Dex", "yield", "rwa", "épargne", "none"], { maxLength: 2 }),
      fc.constantFrom(["Lending", "dex"], ["DEX", "none"], ["yield", "LENDING"])
    ),
    chain: fc.option(fc.constantFrom(...Chains, "Base", "nowhere"), { nil: undefined }),
    curator_id: fc.option(
      fc.constantFrom(dependencyId(2, 0), dependencyId(2, 1).toUpperCase(), dependencyId(2, 2), "", "nope"),
      { nil: undefined }
    ),
    skip: fc.constantFrom(0, 0, 1, 3, 9),
    limit: fc.constantFrom(1, 2, 4, 50)
  })

const Callers = [Caller.anonymous("192.0.2.1"), Caller.apiKey("pro", "acct", "key")]

/** The reader over the repository under test (the list reads use no other store). */
const Reader = RatingsReader.layer.pipe(
  Layer.provide(Layer.mergeAll(ScorecardRepositoryMemory.layer(), RubricRepositoryMemory.layer()))
)

export const entityRulesContract = <D>(target: Target<EntityRepository, D>) =>
  contract("EntityRepository and the domain's list rules", target, (test) => {
    test("the readable rule: exactly the published, active, public entities are read, listed and counted, over every status x active x visibility", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const all = EntityTypes.flatMap(combinations)
        yield* repo.upsert(all)
        for (const type of EntityTypes) {
          const records = all.filter((e) => e.entity_type === type).map((e) => e.record)
          const readable = records.filter(isReadable)
          // One combination of the sixteen is readable (two for vaults, a framework one too).
          assert.strictEqual(readable.length, type === "vault" ? 2 : 1, type)
          for (const r of readable)
            assert.isTrue(r.status === "published" && r.is_active && !r.is_private, `${type} ${r.slug}`)
          const listedPublic = records.filter((r) => isListed(r, PublicListFlags))
          assert.deepStrictEqual(slugsOf(yield* repo.published(type, 1000)), sorted(listedPublic), type)
          assert.strictEqual(yield* repo.countPublished(type), listedPublic.length, type)
          const unreadable = yield* repo.unreadable(type)
          assert.deepStrictEqual(slugsOf(unreadable), sorted(records.filter((r) => !isReadable(r))), type)
          assert.strictEqual(unreadable.length, records.length - readable.length)
          for (const flags of EveryFlags) {
            const expected = sorted(records.filter((r) => isListed(r, flags)))
            const label = `${type} ${JSON.stringify(flags)}`
            const page = yield* repo.list(query(type, { flags }))
            assert.deepStrictEqual([slugsOf(page.items), page.total], [expected, expected.length], label)
            const together = yield* repo.listWithUnreadable(query(type, { flags, limit: 3, skip: 1 }), [type])
            assert.deepStrictEqual(slugsOf(together.value.items), expected.slice(1, 4), label)
            assert.strictEqual(together.value.total, expected.length, label)
            assert.deepStrictEqual(together.unreadable, [unreadable], label)
          }
          const lookup = yield* repo.findWithUnreadable(type, "slug", records[0]!.slug, [type])
          assert.deepStrictEqual(lookup.unreadable, [unreadable], type)
        }
      }))

    test("categories in mixed case are stored lowercased and found by a filter in any case, on every type", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const several = ["chain", "token", "bridge", "vault", "organisation"] as const
        const single = ["protocol", "oracle"] as const
        const written = [
          ...several.map((t) => entity(t, `${t}-mixed`, { categories: ["L2", "EvM"] })),
          ...several.map((t) => entity(t, `${t}-lower`, { categories: ["l2"] })),
          ...single.map((t) => entity(t, `${t}-mixed`, { categories: ["Lending"] })),
          ...single.map((t) => entity(t, `${t}-dex`, { categories: ["dex"] }))
        ]
        yield* repo.upsert(written)
        for (const e of written) {
          const read = Option.getOrThrow(yield* repo.findById(e.entity_type, e.record.id))
          assert.deepStrictEqual(
            read.categories,
            (e.record.categories ?? []).map((c) => c.toLowerCase()),
            e.record.slug
          )
        }
        const slugs = (t: EntityType, categories: ReadonlyArray<string>) =>
          Effect.map(repo.list(query(t, { categories })), (p) => slugsOf(p.items))
        for (const t of several) {
          assert.deepStrictEqual(yield* slugs(t, ["l2"]), [`${t}-lower`, `${t}-mixed`], t)
          assert.deepStrictEqual(yield* slugs(t, ["L2"]), [`${t}-lower`, `${t}-mixed`], t)
          assert.deepStrictEqual(yield* slugs(t, ["EVM", "l2"]), [`${t}-mixed`], t)
          assert.deepStrictEqual(yield* slugs(t, ["evm", "Other"]), [], t)
        }
        for (const t of single) {
          assert.deepStrictEqual(yield* slugs(t, ["LENDING"]), [`${t}-mixed`], t)
          assert.deepStrictEqual(yield* slugs(t, ["lending"]), [`${t}-mixed`], t)
          assert.deepStrictEqual(yield* slugs(t, ["DEX", "lEnDiNg"]), [`${t}-dex`, `${t}-mixed`], t)
        }
      }))

    test("the chain filter matches a chain slug exactly, with categories in any case beside it", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const base = { slug: "base", name: "Base" }
        yield* repo.upsert([
          entity("token", "on-base", {
            chains: [base],
            chain: { slug: "optimism", name: "Optimism" },
            categories: ["Stable"]
          }),
          entity("token", "own-chain", { chains: [], chain: base, categories: ["stable", "USD"] }),
          entity("token", "elsewhere", {
            chains: [{ slug: "ethereum", name: "Ethereum" }],
            categories: ["stable"]
          }),
          entity("protocol", "p-base", { chains: [base], categories: ["Dex"] })
        ])
        const slugs = (t: EntityType, over: Partial<EntityListQuery>) =>
          Effect.map(repo.list(query(t, over)), (p) => slugsOf(p.items))
        assert.deepStrictEqual(yield* slugs("token", { chain: "base" }), ["on-base", "own-chain"])
        assert.deepStrictEqual(yield* slugs("token", { chain: "Base" }), [])
        assert.deepStrictEqual(yield* slugs("token", { chain: "base", categories: ["STABLE"] }), [
          "on-base",
          "own-chain"
        ])
        assert.deepStrictEqual(yield* slugs("token", { chain: "base", categories: ["usd", "Stable"] }), [
          "own-chain"
        ])
        assert.deepStrictEqual(yield* slugs("token", { chain: "ethereum", categories: ["stable"] }), [
          "elsewhere"
        ])
        assert.deepStrictEqual(yield* slugs("protocol", { chain: "base", categories: ["dex"] }), ["p-base"])
      }))

    test("a list snapshot pages exactly as the store lists, for generated data and requests", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const reader = yield* RatingsReader
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(datasetArb, fc.gen(), async ({ type, deps, slugs, records }, gen) => {
              await Effect.runPromise(
                Effect.gen(function* () {
                  const named = (slug: string) =>
                    type === "chain" || type === "organisation" ? `n-${slug}` : slug
                  yield* repo.upsert([
                    ...dependencies(deps),
                    ...records.map((g, i) => generated(type, i, named(slugs[i]!), g))
                  ])
                  for (const caller of Callers) {
                    const snapshot = yield* reader.listSnapshot(caller, type, 1000)
                    assert.isTrue(snapshot.complete)
                    for (let i = 0; i < 12; i++) {
                      const request = gen(requestArb, type)
                      const page = yield* reader.list(caller, request)
                      const fromSnapshot = pageOfSnapshot(snapshot, request)
                      assert.deepStrictEqual(
                        {
                          items: fromSnapshot.positions.map((p) => snapshot.records[p]!),
                          total: fromSnapshot.total
                        },
                        page,
                        JSON.stringify(request)
                      )
                    }
                  }
                }).pipe(Effect.orDie)
              )
            }),
            { numRuns: 25 }
          )
        )
      }).pipe(Effect.provide(Reader)))
  })
