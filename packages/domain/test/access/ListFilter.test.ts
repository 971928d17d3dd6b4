import { assert, describe, it } from "@effect/vitest"
import {
  type EntityListQuery,
  type ListableRecord,
  matchesCategories,
  runListQuery
} from "../../src/access/ListFilter.ts"
import type { EntityType } from "../../src/model/EntityType.ts"

const rec = (slug: string, over: Partial<ListableRecord> = {}): ListableRecord => ({
  id: `id-${slug}`,
  slug,
  name: slug.toUpperCase(),
  status: "published",
  is_active: true,
  is_private: false,
  categories: [],
  chains: [],
  ...over
})

/** The list flags effectiveListFlags gives an admin: unpublished records included. */
const Admin = { include_inactive: false, include_frameworks: false, include_unpublished: true }

const query = (entity_type: EntityType, over: Partial<EntityListQuery> = {}): EntityListQuery => ({
  entity_type,
  categories: [],
  skip: 0,
  limit: 50,
  flags: { include_inactive: false, include_frameworks: false, include_unpublished: false },
  ...over
})

const slugs = (records: ReadonlyArray<ListableRecord>, q: EntityListQuery) =>
  runListQuery(records, q).items.map((r) => r.slug)

describe("ListFilter (spec part 4 list query parameters)", () => {
  it("category: for chains, tokens and bridges multiple values combine with AND semantics", () => {
    for (const t of ["chain", "token", "bridge"] as const) {
      assert.isTrue(matchesCategories(t, ["l2", "evm"], ["l2", "evm"]))
      assert.isFalse(matchesCategories(t, ["l2"], ["l2", "evm"]))
    }
  })

  it("category: for protocols and oracles it is single-select while repeated values are accepted", () => {
    for (const t of ["protocol", "oracle"] as const) {
      assert.isTrue(matchesCategories(t, ["lending"], ["lending"]))
      assert.isTrue(matchesCategories(t, ["lending"], ["lending", "lending"]))
      assert.isTrue(matchesCategories(t, ["lending"], ["dex", "lending"]))
      assert.isFalse(matchesCategories(t, ["lending"], ["dex"]))
    }
  })

  it("category values compare case-insensitively (clients lowercase them)", () => {
    assert.isTrue(matchesCategories("chain", ["L2"], ["l2"]))
  })

  it("chain filters by chain slug over chains and a token's chain", () => {
    const records = [
      rec("a", { chains: [{ slug: "base" }] }),
      rec("b", { chains: [{ slug: "ethereum" }] }),
      rec("c", { chain: { slug: "base" } })
    ]
    assert.deepStrictEqual(slugs(records, query("token", { chain: "base" })), ["a", "c"])
  })

  it("curator_id applies to vaults only: vaults curated by that organisation", () => {
    const org1 = "00000000-0000-4000-8000-0000000000a1"
    const records = [
      rec("v1", { curator_id: org1.toUpperCase() }),
      rec("v2", { curator_id: "00000000-0000-4000-8000-0000000000a2" }),
      rec("v3", { curator_id: null })
    ]
    assert.deepStrictEqual(slugs(records, query("vault", { curator_id: org1 })), ["v1"])
    assert.deepStrictEqual(slugs(records, query("protocol", { curator_id: org1 })), ["v1", "v2", "v3"])
  })

  it("search matches name, slug or symbol case-insensitively; status matches exactly", () => {
    const records = [rec("aave-v3"), rec("usd-coin", { symbol: "USDC" }), rec("lido", { status: "draft" })]
    assert.deepStrictEqual(slugs(records, query("token", { search: "usdc" })), ["usd-coin"])
    assert.deepStrictEqual(slugs(records, query("protocol", { search: "AAVE" })), ["aave-v3"])
    assert.deepStrictEqual(slugs(records, query("protocol", { status: "draft", flags: Admin })), ["lido"])
    assert.deepStrictEqual(slugs(records, query("protocol", { status: "Draft", flags: Admin })), [])
    assert.deepStrictEqual(slugs(records, query("protocol", { status: "published", flags: Admin })), [
      "aave-v3",
      "usd-coin"
    ])
    assert.deepStrictEqual(slugs(records, query("vault", { status: "draft", flags: Admin })), [
      "aave-v3",
      "lido",
      "usd-coin"
    ])
  })

  it("without the admin flags no draft, scoring or approved record is listed, whatever the filters ask", () => {
    const records = [
      rec("live"),
      rec("lido-draft", { status: "draft" }),
      rec("lido-scoring", { status: "scoring" }),
      rec("lido-approved", { status: "approved" })
    ]
    for (const status of ["draft", "scoring", "approved"]) {
      const page = runListQuery(records, query("protocol", { status }))
      assert.deepStrictEqual(page, { items: [], total: 0 }, status)
      assert.deepStrictEqual(slugs(records, query("protocol", { search: `lido-${status}` })), [], status)
    }
    assert.deepStrictEqual(slugs(records, query("protocol")), ["live"])
    assert.deepStrictEqual(slugs(records, query("protocol", { search: "lido" })), [])
    assert.deepStrictEqual(slugs(records, query("vault", { status: "draft" })), ["live"])
    assert.deepStrictEqual(slugs(records, query("protocol", { search: "lido", flags: Admin })), [
      "lido-approved",
      "lido-draft",
      "lido-scoring"
    ])
    assert.strictEqual(runListQuery(records, query("protocol", { flags: Admin })).total, 4)
  })

  it("skip and limit page a stable order; total is the filtered count", () => {
    const records = ["e", "a", "d", "b", "c"].map((s) => rec(s))
    const page = runListQuery(records, query("chain", { skip: 1, limit: 2 }))
    assert.deepStrictEqual(
      page.items.map((r) => r.slug),
      ["b", "c"]
    )
    assert.strictEqual(page.total, 5)
  })

  it("framework-tier vaults are listed only with the admin bypass include_frameworks", () => {
    const records = [rec("instance"), rec("framework", { is_framework: true })]
    assert.deepStrictEqual(slugs(records, query("vault")), ["instance"])
    assert.deepStrictEqual(
      slugs(
        records,
        query("vault", {
          flags: { include_inactive: false, include_frameworks: true, include_unpublished: false }
        })
      ),
      ["framework", "instance"]
    )
  })
})
