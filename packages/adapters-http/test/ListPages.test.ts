/**
 * List pages from a list snapshot (ListPages.ts over the domain's
 * `pageOfSnapshot`) against the Postgres adapter: generated entities of every
 * type (names and categories in mixed case, names beyond ASCII, LIKE
 * wildcards, slugs whose order a hyphen and a digit decide, hidden chains and
 * organisations, private, inactive, unpublished and framework records) and generated list
 * requests (status, search, categories, chain, curator, skip, limit); for
 * each, the body paged from the snapshot must be byte for byte the body the
 * route computes from `RatingsReader.list` over PgEntityRepository, as an
 * anonymous and as a Pro caller.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as PgEntityRepository from "@ratings/adapters-sql/PgEntityRepository"
import * as PgRubricRepository from "@ratings/adapters-sql/PgRubricRepository"
import * as PgScorecardRepository from "@ratings/adapters-sql/PgScorecardRepository"
import { Caller } from "@ratings/domain/model/Caller"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import { type EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import { EntityRepository, type StoredEntity } from "@ratings/domain/ports/EntityRepository"
import { type ListRequest, RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { successCodec } from "../src/server/EntityHandlers.ts"
import { encodeList, listPageBody } from "../src/server/ListPages.ts"
import { ScratchDatabase } from "./ScratchDatabase.ts"

const Reader = RatingsReader.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(PgEntityRepository.layer, PgScorecardRepository.layer, PgRubricRepository.layer)
  ),
  Layer.provideMerge(ScratchDatabase)
)

const T0 = "2026-08-01T00:00:00+00:00"
const idOf = (n: number, group: number) =>
  `00000000-0000-4000-${(0x8000 + group).toString(16)}-${n.toString(16).padStart(12, "0")}`

const Chains = ["arb", "base", "eth", "eth-2"] as const
const Orgs = ["org-a", "org-b", "org-c"] as const
const Categories = ["lending", "Lending", "dex", "DEX", "yield", "rwa"] as const
const Names = [
  "Aave",
  "AAVE v3",
  "Ünïcode Ärger",
  "İstanbul",
  "straße",
  "100%_pure",
  "back\\slash",
  "ΣΟΦΙΑ",
  "a-b"
]
const Slugs = ["a", "a-b", "a0", "aa", "ab-c", "b", "b1", "ba", "c", "z", "zz-9", "m-a-s-t"]
const Searches = [
  "a",
  "A",
  "ü",
  "Ü",
  "%",
  "_",
  "\\",
  "aave",
  "-",
  "i̇",
  "ss",
  "ß",
  "σ",
  "v3",
  "b",
  "zz",
  "eth",
  ""
]

const visibility = fc.record({
  status: fc.constantFrom("published", "published", "published", "draft", "scoring", "approved"),
  is_active: fc.constantFrom(true, true, true, false),
  is_private: fc.constantFrom(false, false, false, true)
})

const refOf = (kind: number, i: number, slug: string) => ({
  id: idOf(i + 1, kind),
  slug,
  name: slug.toUpperCase()
})

/** The chains and organisations every dataset holds, each shown or hidden as generated. */
const dependencies = fc.record({
  chains: fc.tuple(...Chains.map(() => visibility)),
  orgs: fc.tuple(...Orgs.map(() => visibility))
})

const recordArb = (type: EntityType) =>
  fc.record({
    name: fc.constantFrom(...Names),
    visibility,
    categories: fc.subarray([...Categories], { maxLength: type === "protocol" || type === "oracle" ? 1 : 3 }),
    chains: fc.subarray([0, 1, 2, 3]),
    chainWithId: fc.boolean(),
    symbol: fc.constantFrom("AAVE", "usdc", "Üß", "v3"),
    token: fc.integer({ min: 0, max: 3 }),
    org: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    is_framework: fc.constantFrom(false, false, true)
  })

type Generated = ReturnType<typeof recordArb> extends fc.Arbitrary<infer R> ? R : never

const stored = (type: EntityType, slug: string, n: number, g: Generated): StoredEntity => {
  const chainRef = (i: number) => (g.chainWithId ? refOf(1, i, Chains[i]!) : { slug: Chains[i]!, name: "C" })
  const org = g.org === undefined ? null : refOf(2, g.org, Orgs[g.org]!)
  const own: Record<string, unknown> =
    type === "token"
      ? { symbol: g.symbol, contract_address: null, chain: chainRef(g.token) }
      : type === "vault"
        ? { curator_id: org?.id ?? null, curator: org, is_framework: g.is_framework }
        : type === "bridge"
          ? {
              signer_count: null,
              signing_threshold: null,
              has_message_attestation: true,
              pause_mechanism: null,
              validator_set_owner: org
            }
          : type === "chain"
            ? { chain_id: null }
            : {}
  const record = {
    id: idOf(n, 7),
    name: g.name,
    slug,
    ...g.visibility,
    categories: g.categories,
    chains: g.chains.map(chainRef),
    urls: {},
    external_ids: {},
    description: null,
    created_at: T0,
    updated_at: T0,
    ...own
  }
  return { entity_type: type, record: record as unknown as EntityRecord }
}

/** The chains or organisations records name, by the ids their references carry. */
const dependency = (
  type: EntityType,
  kind: number,
  slugs: ReadonlyArray<string>,
  shown: ReadonlyArray<Generated["visibility"]>
): Array<StoredEntity> =>
  slugs.map((slug, i) => {
    const e = stored(type, slug, 0, { ...sampleless, visibility: shown[i]! })
    return { ...e, record: { ...e.record, id: refOf(kind, i, slug).id } as EntityRecord }
  })

const sampleless: Generated = {
  name: "Dependency",
  visibility: { status: "published", is_active: true, is_private: false },
  categories: [],
  chains: [],
  chainWithId: false,
  symbol: "AAVE",
  token: 0,
  org: undefined,
  is_framework: false
}

const datasetArb = fc.constantFrom(...EntityTypes).chain((type) =>
  fc.record({
    type: fc.constant(type),
    deps: dependencies,
    records: fc.uniqueArray(
      fc.tuple(fc.constantFrom(...Slugs.map((s) => `x-${s}`), ...Slugs), recordArb(type)),
      {
        selector: ([slug]) => slug,
        maxLength: 12
      }
    )
  })
)

const requestArb = (type: EntityType): fc.Arbitrary<ListRequest> =>
  fc.record({
    entity_type: fc.constant(type),
    status: fc.option(fc.constantFrom("published", "draft", "nonsense"), { nil: undefined }),
    search: fc.option(fc.constantFrom(...Searches), { nil: undefined }),
    // Two categories often: protocols and oracles match any of them, the other types all.
    categories: fc.oneof(
      fc.subarray(["lending", "dex", "LENDING", "yield", "none"], { maxLength: 2 }),
      fc.constantFrom(["lending", "dex"], ["dex", "none"], ["yield", "LENDING"])
    ),
    chain: fc.option(fc.constantFrom(...Chains, "nowhere"), { nil: undefined }),
    curator_id: fc.option(
      fc.constantFrom(idOf(1, 2), idOf(2, 2).toUpperCase(), idOf(3, 2), idOf(9, 2), "", "not-a-uuid"),
      { nil: undefined }
    ),
    skip: fc.constantFrom(0, 0, 1, 2, 5, 11, 40),
    limit: fc.constantFrom(1, 2, 3, 50, 200)
  })

const Callers = [Caller.anonymous("127.0.0.1"), Caller.apiKey("pro", "acct", "key")]

describe("list pages from a snapshot", () => {
  layer(Reader, { timeout: 120_000 })((it) => {
    it.effect("equal the Postgres adapter's pages byte for byte, for generated data and requests", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const entities = yield* EntityRepository
        const reader = yield* RatingsReader
        const run = Effect.runPromise
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(datasetArb, fc.gen(), async ({ type, deps, records }, gen) => {
              const codec = successCodec(type, "list")
              const encode = Schema.encodeUnknownEffect(codec) as (
                value: unknown
              ) => Effect.Effect<unknown, Schema.SchemaError>
              await run(
                Effect.gen(function* () {
                  yield* sql`DELETE FROM entities`
                  yield* entities.upsert([
                    ...dependency("chain", 1, Chains, deps.chains),
                    ...dependency("organisation", 2, Orgs, deps.orgs),
                    ...records.map(([slug, g], i) =>
                      stored(type, type === "chain" || type === "organisation" ? `n-${slug}` : slug, i + 1, g)
                    )
                  ])
                  for (const caller of Callers) {
                    const list = yield* encodeList(yield* reader.listSnapshot(caller, type, 1000), codec)
                    for (let i = 0; i < 16; i++) {
                      const request = gen(requestArb, type)
                      const page = yield* reader.list(caller, request)
                      const expected = JSON.stringify(yield* encode({ items: page.items, total: page.total }))
                      const body = listPageBody(list, request)
                      assert.isDefined(body)
                      assert.strictEqual(
                        Buffer.from(body!).toString("utf8"),
                        expected,
                        JSON.stringify(request)
                      )
                    }
                  }
                }).pipe(Effect.orDie)
              )
            }),
            { numRuns: 60 }
          )
        )
      })
    )

    it.effect("a type with more records than the snapshot may hold answers from the store", () =>
      Effect.gen(function* () {
        const reader = yield* RatingsReader
        const entities = yield* EntityRepository
        yield* (yield* SqlClient.SqlClient)`DELETE FROM entities`
        yield* entities.upsert(
          ["p-1", "p-2", "p-3"].map((slug, i) =>
            stored("protocol", slug, 100 + i, { ...sampleless, name: slug })
          )
        )
        const caller = Caller.anonymous("127.0.0.1")
        const snapshot = yield* reader.listSnapshot(caller, "protocol", 2)
        assert.isFalse(snapshot.complete)
        const list = yield* encodeList(snapshot, successCodec("protocol", "list"))
        const request = { entity_type: "protocol", categories: [], skip: 0, limit: 50 } as const
        assert.isUndefined(listPageBody(list, request))
        assert.isTrue((yield* reader.listSnapshot(caller, "protocol", 3)).complete)
      })
    )
  })
})
