/**
 * The behaviour of the EntityRepository port (spec part 2 "Visibility", part 4
 * "List query parameters", the rules of access/ListFilter.ts), run against
 * every implementation: over memory in the domain's
 * test/ports/memory/EntityRepositoryMemory.test.ts, over Postgres in
 * adapters-sql's PgEntityRepository.test.ts. The list cases mirror the pure
 * rules' own cases in test/access/ListFilter.test.ts.
 */
import { assert } from "@effect/vitest"
import { type EntityListQuery, ListParameters } from "../../../src/access/ListFilter.ts"
import { effectiveListFlags, isDetailVisible } from "../../../src/access/Projection.ts"
import { Caller } from "../../../src/model/Caller.ts"
import type { EntityType } from "../../../src/model/EntityType.ts"
import { EntityRepository, type StoredEntity } from "../../../src/ports/EntityRepository.ts"
import { Effect, Option } from "effect"
import { contract, type Target } from "./ratings-harness.ts"
import { entity, slugsOf, T1, uuid } from "./ratings-fixtures.ts"

/** The list flags a non-admin caller gets, and those an admin gets (effectiveListFlags). */
const Public = { include_inactive: false, include_frameworks: false, include_unpublished: false }
const Admin = { include_inactive: false, include_frameworks: false, include_unpublished: true }

const query = (entity_type: EntityType, over: Partial<EntityListQuery> = {}): EntityListQuery => ({
  entity_type,
  categories: [],
  skip: 0,
  limit: 50,
  flags: Public,
  ...over
})

const listed = (entities: ReadonlyArray<StoredEntity>, q: EntityListQuery) =>
  Effect.gen(function* () {
    const repo = yield* EntityRepository
    yield* repo.upsert(entities)
    return slugsOf((yield* repo.list(q)).items)
  })

export const entityRepositoryContract = <D>(target: Target<EntityRepository, D>) =>
  contract("EntityRepository contract", target, (test) => {
    test("lists hide records where is_private is true or is_active is false", () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          [
            entity("protocol", "shown"),
            entity("protocol", "private", { is_private: true }),
            entity("protocol", "inactive", { is_active: false })
          ],
          query("protocol")
        )
        assert.deepStrictEqual(slugs, ["shown"])
      }))

    test("admin bypass: include_inactive shows inactive records; private records stay out of lists", () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          [
            entity("protocol", "shown"),
            entity("protocol", "private", { is_private: true }),
            entity("protocol", "inactive", { is_active: false })
          ],
          query("protocol", {
            flags: { include_inactive: true, include_frameworks: false, include_unpublished: false }
          })
        )
        assert.deepStrictEqual(slugs, ["inactive", "shown"])
      }))

    test("a list holds only the entities of its type", () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          [entity("protocol", "aave"), entity("oracle", "chainlink")],
          query("oracle")
        )
        assert.deepStrictEqual(slugs, ["chainlink"])
      }))

    test("category: for chains, tokens and bridges multiple values combine with AND semantics", () =>
      Effect.gen(function* () {
        for (const t of ["chain", "token", "bridge"] as const) {
          const slugs = yield* listed(
            [
              entity(t, `${t}-both`, { categories: ["l2", "evm"] }),
              entity(t, `${t}-one`, { categories: ["l2"] })
            ],
            query(t, { categories: ["l2", "evm"] })
          )
          assert.deepStrictEqual(slugs, [`${t}-both`], t)
        }
      }))

    test("category: vaults and organisations, whose records hold several, combine with AND too", () =>
      Effect.gen(function* () {
        for (const t of ["vault", "organisation"] as const) {
          const slugs = yield* listed(
            [
              entity(t, `${t}-both`, { categories: ["lst", "eth"] }),
              entity(t, `${t}-one`, { categories: ["lst"] })
            ],
            query(t, { categories: ["lst", "eth"] })
          )
          assert.deepStrictEqual(slugs, [`${t}-both`], t)
        }
      }))

    test("category: for protocols and oracles it is single-select while repeated values are accepted", () =>
      Effect.gen(function* () {
        for (const t of ["protocol", "oracle"] as const) {
          yield* listed(
            [
              entity(t, `${t}-lending`, { categories: ["lending"] }),
              entity(t, `${t}-dex`, { categories: ["dex"] })
            ],
            query(t)
          )
          const repo = yield* EntityRepository
          const slugs = (categories: ReadonlyArray<string>) =>
            Effect.map(repo.list(query(t, { categories })), (p) => slugsOf(p.items))
          assert.deepStrictEqual(yield* slugs(["lending"]), [`${t}-lending`])
          assert.deepStrictEqual(yield* slugs(["lending", "lending"]), [`${t}-lending`])
          assert.deepStrictEqual(yield* slugs(["dex", "lending"]), [`${t}-dex`, `${t}-lending`])
          assert.deepStrictEqual(yield* slugs(["bridge"]), [])
        }
      }))

    test("category values compare case-insensitively (clients lowercase them)", () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          [entity("chain", "base", { categories: ["l2"] })],
          query("chain", { categories: ["L2"] })
        )
        assert.deepStrictEqual(slugs, ["base"])
      }))

    test("chain filters by chain slug over chains and a token's chain", () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          [
            entity("token", "a", { chains: [{ slug: "base", name: "Base" }] }),
            entity("token", "b", { chains: [{ slug: "ethereum", name: "Ethereum" }] }),
            entity("token", "c", { chains: [], chain: { slug: "base", name: "Base" } })
          ],
          query("token", { chain: "base" })
        )
        assert.deepStrictEqual(slugs, ["a", "c"])
      }))

    test("chain applies to protocols, tokens, oracles, vaults and bridges; chains and organisations ignore it", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const types = ["protocol", "token", "oracle", "vault", "bridge", "chain", "organisation"] as const
        yield* repo.upsert(
          types.flatMap((t) => [
            entity(t, `${t}-base`, { chains: [{ slug: "base", name: "Base" }] }),
            entity(t, `${t}-eth`)
          ])
        )
        for (const t of types) {
          const slugs = slugsOf((yield* repo.list(query(t, { chain: "base" }))).items)
          const expected = t === "chain" || t === "organisation" ? [`${t}-base`, `${t}-eth`] : [`${t}-base`]
          assert.deepStrictEqual(slugs, expected, t)
        }
      }))

    test("curator_id applies to vaults only: vaults curated by that organisation", () =>
      Effect.gen(function* () {
        const org1 = uuid(0xa1, 9)
        const org2 = uuid(0xa2, 9)
        const slugs = yield* listed(
          [
            entity("vault", "v1", { curator_id: org1 }),
            entity("vault", "v2", { curator_id: org2 }),
            entity("vault", "v3"),
            entity("protocol", "p1")
          ],
          query("vault", { curator_id: org1.toUpperCase() })
        )
        assert.deepStrictEqual(slugs, ["v1"])
        const repo = yield* EntityRepository
        assert.deepStrictEqual(slugsOf((yield* repo.list(query("protocol", { curator_id: org1 }))).items), [
          "p1"
        ])
        assert.deepStrictEqual(
          slugsOf((yield* repo.list(query("vault", { curator_id: "not-a-uuid" }))).items),
          []
        )
      }))

    test("search matches name, slug or a token's symbol, case-insensitively, as a substring", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("token", "usd-coin", { symbol: "USDC", name: "USD Coin" }),
          entity("token", "tether", { symbol: "USDT", name: "Tether" }),
          entity("protocol", "aave-v3", { name: "Aave V3" }),
          entity("protocol", "lido", { name: "Lido Finance" }),
          entity("protocol", "odd-name", { name: "Under_Score 100% \\o/" })
        ])
        const search = (t: EntityType, s: string) =>
          Effect.map(repo.list(query(t, { search: s })), (p) => slugsOf(p.items))
        assert.deepStrictEqual(yield* search("token", "usdc"), ["usd-coin"])
        assert.deepStrictEqual(yield* search("token", "USD"), ["tether", "usd-coin"])
        assert.deepStrictEqual(yield* search("protocol", "AAVE"), ["aave-v3"])
        assert.deepStrictEqual(yield* search("protocol", "finance"), ["lido"])
        assert.deepStrictEqual(yield* search("protocol", "v3"), ["aave-v3"])
        assert.deepStrictEqual(yield* search("protocol", "r_s"), ["odd-name"])
        assert.deepStrictEqual(yield* search("protocol", "_"), ["odd-name"])
        assert.deepStrictEqual(yield* search("protocol", "0%"), ["odd-name"])
        assert.deepStrictEqual(yield* search("protocol", "%"), ["odd-name"])
        assert.deepStrictEqual(yield* search("protocol", "\\o"), ["odd-name"])
        assert.deepStrictEqual(yield* search("protocol", "a_v"), [])
        assert.deepStrictEqual(yield* search("protocol", "a%3"), [])
        assert.deepStrictEqual(yield* search("protocol", ""), ["aave-v3", "lido", "odd-name"])
      }))

    test("status matches exactly, for the types that take it; vaults and organisations ignore it", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("protocol", "live"),
          entity("protocol", "lido", { status: "draft" }),
          entity("vault", "vault-live"),
          entity("vault", "vault-draft", { status: "draft" })
        ])
        const status = (t: EntityType, s: string, flags = Admin) =>
          Effect.map(repo.list(query(t, { status: s, flags })), (p) => slugsOf(p.items))
        assert.deepStrictEqual(yield* status("protocol", "draft"), ["lido"])
        assert.deepStrictEqual(yield* status("protocol", "Draft"), [])
        assert.deepStrictEqual(yield* status("protocol", "published"), ["live"])
        assert.deepStrictEqual(yield* status("vault", "draft"), ["vault-draft", "vault-live"])
        assert.deepStrictEqual(yield* status("protocol", "draft", Public), [])
        assert.deepStrictEqual(yield* status("protocol", "published", Public), ["live"])
        assert.deepStrictEqual(yield* status("vault", "draft", Public), ["vault-live"])
      }))

    test("non-admins never see draft, scoring or approved entities in lists or on detail; admins do", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const types = ["protocol", "chain", "token", "oracle", "vault", "organisation", "bridge"] as const
        const unpublished = ["draft", "scoring", "approved"] as const
        yield* repo.upsert(
          types.flatMap((t) => [
            entity(t, `${t}-live`),
            ...unpublished.map((s) => entity(t, `${t}-${s}`, { status: s }))
          ])
        )
        for (const t of types) {
          const live = [`${t}-live`]
          for (const flags of [Public, { ...Public, include_inactive: true, include_frameworks: true }]) {
            const page = yield* repo.list(query(t, { flags }))
            assert.deepStrictEqual([slugsOf(page.items), page.total], [live, 1], t)
            for (const s of unpublished) {
              const byStatus = slugsOf((yield* repo.list(query(t, { flags, status: s }))).items)
              const bySearch = slugsOf((yield* repo.list(query(t, { flags, search: `${t}-${s}` }))).items)
              const takes = ListParameters[t]
              assert.deepStrictEqual(byStatus, takes.includes("status") ? [] : live, `${t} status=${s}`)
              assert.deepStrictEqual(bySearch, takes.includes("search") ? [] : live, `${t} search=${s}`)
            }
          }
          const admin = yield* repo.list(query(t, { flags: Admin }))
          assert.deepStrictEqual(slugsOf(admin.items), [
            `${t}-approved`,
            `${t}-draft`,
            `${t}-live`,
            `${t}-scoring`
          ])
          assert.strictEqual(admin.total, 4)
          for (const s of unpublished) {
            const found = yield* repo.findBySlug(t, `${t}-${s}`)
            assert.isTrue(Option.isSome(found), `${t} ${s}`)
            const record = Option.getOrThrow(found)
            assert.strictEqual(record.status, s)
            assert.isFalse(isDetailVisible(record, effectiveListFlags(Caller.anonymous("192.0.2.1"), {})))
            assert.isTrue(isDetailVisible(record, effectiveListFlags(Caller.admin("ops", "admin"), {})))
            assert.deepStrictEqual(yield* repo.findById(t, record.id), found)
          }
        }
      }))

    test("skip and limit page a stable order (slug, then id); total is the filtered count", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert(["e", "a", "d", "b", "c"].map((s) => entity("chain", s)))
        const page = yield* repo.list(query("chain", { skip: 1, limit: 2 }))
        assert.deepStrictEqual(slugsOf(page.items), ["b", "c"])
        assert.strictEqual(page.total, 5)
        const beyond = yield* repo.list(query("chain", { skip: 10, limit: 2 }))
        assert.deepStrictEqual(beyond, { items: [], total: 5 })
        const none = yield* repo.list(query("chain", { search: "zzz" }))
        assert.deepStrictEqual(none, { items: [], total: 0 })
      }))

    test('the order is bytewise by slug (COLLATE "C"), whatever the server\'s locale', () =>
      Effect.gen(function* () {
        const slugs = yield* listed(
          ["ab", "a1", "a-b", "b", "a"].map((s) => entity("protocol", s)),
          query("protocol")
        )
        assert.deepStrictEqual(slugs, ["a", "a-b", "a1", "ab", "b"])
      }))

    test("framework-tier vaults are listed only with the admin bypass include_frameworks", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("vault", "instance"),
          entity("vault", "framework", { is_framework: true })
        ])
        assert.deepStrictEqual(slugsOf((yield* repo.list(query("vault"))).items), ["instance"])
        const withFrameworks = yield* repo.list(
          query("vault", {
            flags: { include_inactive: false, include_frameworks: true, include_unpublished: false }
          })
        )
        assert.deepStrictEqual(slugsOf(withFrameworks.items), ["framework", "instance"])
        assert.strictEqual(withFrameworks.total, 2)
      }))

    test("lookups by id and by slug return hidden records too, of the asked type only", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const hidden = entity("protocol", "hidden", { is_private: true, is_active: false, status: "draft" })
        yield* repo.upsert([hidden])
        assert.deepStrictEqual(yield* repo.findById("protocol", hidden.record.id), Option.some(hidden.record))
        assert.deepStrictEqual(yield* repo.findBySlug("protocol", "hidden"), Option.some(hidden.record))
        assert.isTrue(Option.isNone(yield* repo.findById("oracle", hidden.record.id)))
        assert.isTrue(Option.isNone(yield* repo.findBySlug("oracle", "hidden")))
        assert.isTrue(Option.isNone(yield* repo.findById("protocol", uuid(0xdead, 9))))
        assert.isTrue(Option.isNone(yield* repo.findById("protocol", "hidden")))
        assert.isTrue(Option.isNone(yield* repo.findBySlug("protocol", "Hidden")))
      }))

    test("findMany: the records of one type with one of the ids (any case) or slugs, hidden ones too, each once", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const a = entity("protocol", "a")
        const b = entity("protocol", "b")
        const hidden = entity("protocol", "hidden", { is_private: true, is_active: false, status: "draft" })
        const other = entity("oracle", "c")
        yield* repo.upsert([a, b, hidden, other, entity("protocol", "unasked")])
        const slugs = (records: ReadonlyArray<{ readonly slug: string }>) => records.map((r) => r.slug).sort()
        const found = yield* repo.findMany("protocol", {
          ids: [a.record.id.toUpperCase(), hidden.record.id, other.record.id, uuid(0xdead, 9), "not-a-uuid"],
          slugs: ["b", "a", "c", "B", "nope"]
        })
        assert.deepStrictEqual(slugs(found), ["a", "b", "hidden"])
        // Each record reads back whole, as findById returns it.
        for (const r of found) assert.deepStrictEqual(Option.some(r), yield* repo.findById("protocol", r.id))
        assert.deepStrictEqual(yield* repo.findMany("protocol", { ids: [], slugs: [] }), [])
        assert.deepStrictEqual(slugs(yield* repo.findMany("oracle", { ids: [other.record.id], slugs: [] })), [
          "c"
        ])
        assert.deepStrictEqual(slugs(yield* repo.findMany("oracle", { ids: [], slugs: ["a", "hidden"] })), [])
      }))

    test("a record of every type reads back as it was written, with its own fields", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const org = uuid(0xb1, 9)
        const records = [
          entity("protocol", "aave", {
            categories: ["lending"],
            urls: { website: "https://aave.com" },
            external_ids: { defillama: "aave", coingecko_note: "no token listed" },
            description: "Lending market"
          }),
          entity("chain", "base", { chain_id: 8453, chains: [] }),
          entity("token", "usdc", { symbol: "USDC", contract_address: "0xa0b8", chains: [] }),
          entity("bridge", "wormhole", {
            signer_count: 19,
            signing_threshold: 13,
            has_message_attestation: true,
            pause_mechanism: "Guardian set can pause via governance VAA",
            validator_set_owner: {
              id: uuid(0xb2, 9),
              slug: "wormhole-foundation",
              name: "Wormhole Foundation"
            }
          }),
          entity("vault", "steakhouse-usdc", {
            curator_id: org,
            curator: { id: org, slug: "steakhouse", name: "Steakhouse" },
            is_framework: false
          }),
          entity("organisation", "steakhouse", { categories: ["curator", "risk"] }),
          entity("oracle", "chainlink", { categories: ["push"] })
        ]
        yield* repo.upsert(records)
        for (const e of records) {
          assert.deepStrictEqual(
            yield* repo.findById(e.entity_type, e.record.id),
            Option.some(e.record),
            e.entity_type
          )
        }
      }))

    test("published: published, public, active, non-framework entities of a type in list order, at most limit", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("vault", "c"),
          entity("vault", "a"),
          entity("vault", "b"),
          entity("vault", "draft", { status: "approved" }),
          entity("vault", "private", { is_private: true }),
          entity("vault", "inactive", { is_active: false }),
          entity("vault", "framework", { is_framework: true }),
          entity("protocol", "other-type")
        ])
        assert.deepStrictEqual(slugsOf(yield* repo.published("vault", 10)), ["a", "b", "c"])
        assert.deepStrictEqual(slugsOf(yield* repo.published("vault", 2)), ["a", "b"])
        assert.strictEqual(yield* repo.countPublished("vault"), 3)
        assert.strictEqual(yield* repo.countPublished("bridge"), 0)
      }))

    test("published after a (slug, id) position: keyset pages that together list every entity once", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          ...["e", "a", "c", "b", "d", "f", "g"].map((slug) => entity("vault", slug)),
          entity("vault", "cc", { is_private: true })
        ])
        const pages: string[][] = []
        let after: { slug: string; id: string } | undefined
        for (;;) {
          const page = yield* repo.published("vault", 2, after)
          if (page.length === 0) break
          pages.push(slugsOf(page))
          const last = page.at(-1)!
          after = { slug: last.slug, id: last.id }
        }
        assert.deepStrictEqual(pages, [["a", "b"], ["c", "d"], ["e", "f"], ["g"]])
        // the position is (slug, id): a slug alone, with the smallest id, starts at that slug
        const from = yield* repo.published("vault", 10, {
          slug: "e",
          id: "00000000-0000-0000-0000-000000000000"
        })
        assert.deepStrictEqual(slugsOf(from), ["e", "f", "g"])
      }))

    test("all: every entity of a type whatever its status or visibility", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("chain", "b", { status: "draft" }),
          entity("chain", "a", { is_private: true }),
          entity("chain", "c", { is_active: false }),
          entity("token", "t")
        ])
        assert.deepStrictEqual(slugsOf(yield* repo.all("chain")).sort(), ["a", "b", "c"])
      }))

    test("unreadable: the entities of a type the public cannot read (not published, private or inactive), in list order", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const draft = entity("chain", "c-draft", { status: "draft" })
        yield* repo.upsert([
          entity("chain", "a-public"),
          draft,
          entity("chain", "b-private", { is_private: true }),
          entity("chain", "d-inactive", { is_active: false }),
          entity("chain", "e-approved", { status: "approved" }),
          entity("organisation", "f-draft-org", { status: "draft" })
        ])
        const hidden = yield* repo.unreadable("chain")
        assert.deepStrictEqual(slugsOf(hidden), ["b-private", "c-draft", "d-inactive", "e-approved"])
        assert.deepStrictEqual(hidden[1], {
          id: draft.record.id,
          slug: "c-draft",
          status: "draft",
          is_private: false,
          is_active: true
        })
      }))

    test("findWithUnreadable: findById or findBySlug, with unreadable of each type asked, in that order", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const p = entity("protocol", "p-found")
        yield* repo.upsert([
          p,
          entity("protocol", "p-private", { is_private: true }),
          entity("chain", "a-public"),
          entity("chain", "b-draft", { status: "draft" }),
          entity("organisation", "o-inactive", { is_active: false })
        ])
        const chains = yield* repo.unreadable("chain")
        const organisations = yield* repo.unreadable("organisation")
        assert.deepStrictEqual(slugsOf(chains), ["b-draft"])
        assert.deepStrictEqual(yield* repo.findWithUnreadable("protocol", "slug", "p-found", ["chain"]), {
          value: Option.some(p.record),
          unreadable: [chains]
        })
        assert.deepStrictEqual(
          yield* repo.findWithUnreadable("protocol", "id", p.record.id.toUpperCase(), [
            "organisation",
            "chain"
          ]),
          {
            value: yield* repo.findById("protocol", p.record.id.toUpperCase()),
            unreadable: [organisations, chains]
          }
        )
        // Found whatever it shows (visibility is the reader's), and nothing found still reads the rest.
        const hiddenOne = yield* repo.findWithUnreadable("protocol", "slug", "p-private", [])
        assert.deepStrictEqual(hiddenOne.value, yield* repo.findBySlug("protocol", "p-private"))
        assert.deepStrictEqual(hiddenOne.unreadable, [])
        for (const [by, identifier] of [
          ["slug", "missing"],
          ["id", uuid(999, 8)],
          ["slug", p.record.id],
          ["id", "p-found"]
        ] as const)
          assert.deepStrictEqual(yield* repo.findWithUnreadable("chain", by, identifier, ["chain"]), {
            value: Option.none(),
            unreadable: [chains]
          })
      }))

    test("listWithUnreadable: list, with unreadable of each type asked, whatever the page holds", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        yield* repo.upsert([
          entity("protocol", "p-a"),
          entity("protocol", "p-b"),
          entity("protocol", "p-c"),
          entity("chain", "c-private", { is_private: true }),
          entity("chain", "d-draft", { status: "draft" }),
          entity("organisation", "o-draft", { status: "draft" })
        ])
        const chains = yield* repo.unreadable("chain")
        const organisations = yield* repo.unreadable("organisation")
        assert.strictEqual(chains.length, 2)
        for (const q of [
          query("protocol"),
          query("protocol", { limit: 1, skip: 1 }),
          query("protocol", { skip: 10 }),
          query("protocol", { search: "nothing-matches" })
        ])
          assert.deepStrictEqual(yield* repo.listWithUnreadable(q, ["chain", "organisation"]), {
            value: yield* repo.list(q),
            unreadable: [chains, organisations]
          })
        assert.deepStrictEqual(yield* repo.listWithUnreadable(query("protocol"), []), {
          value: yield* repo.list(query("protocol")),
          unreadable: []
        })
      }))

    test("setStatus moves only the status and updated_at of the record; an unknown id (or one of another type) is a StoreError", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const e = entity("protocol", "moving", { status: "approved" }, { security: 60, governance: 40 })
        yield* repo.upsert([e])
        yield* repo.setStatus("protocol", e.record.id, "published", T1)
        assert.deepStrictEqual(
          yield* repo.findById("protocol", e.record.id),
          Option.some({ ...e.record, status: "published", updated_at: T1 })
        )
        const error = yield* Effect.flip(repo.setStatus("protocol", uuid(999, 7), "draft", T1))
        assert.strictEqual(error._tag, "StoreError")
        const wrongType = yield* Effect.flip(repo.setStatus("chain", e.record.id, "draft", T1))
        assert.strictEqual(wrongType._tag, "StoreError")
      }))

    test("upsert replaces a record by id: a rename keeps the id, frees the old slug and takes the new one", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const before = entity("protocol", "old-name")
        yield* repo.upsert([before])
        const renamed = {
          ...before,
          record: { ...before.record, slug: "new-name", name: "New Name", updated_at: T1 }
        }
        yield* repo.upsert([renamed])
        assert.isTrue(Option.isNone(yield* repo.findBySlug("protocol", "old-name")))
        assert.deepStrictEqual(yield* repo.findBySlug("protocol", "new-name"), Option.some(renamed.record))
        assert.deepStrictEqual((yield* repo.list(query("protocol"))).total, 1)
      }))

    test("upsert is idempotent: the same input twice leaves the same records", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const input = [entity("protocol", "aave"), entity("chain", "base")]
        yield* repo.upsert(input)
        const first = yield* repo.all("protocol")
        yield* repo.upsert(input)
        assert.deepStrictEqual(yield* repo.all("protocol"), first)
        assert.strictEqual((yield* repo.list(query("protocol"))).total, 1)
      }))

    test("within one upsert the last record of an id wins", () =>
      Effect.gen(function* () {
        const repo = yield* EntityRepository
        const first = entity("oracle", "pyth")
        const second = { ...first, record: { ...first.record, name: "Pyth Network" } }
        yield* repo.upsert([first, second])
        assert.deepStrictEqual(yield* repo.findBySlug("oracle", "pyth"), Option.some(second.record))
      }))
  })
