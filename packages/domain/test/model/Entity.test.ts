import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  Bridge,
  Chain,
  EntityRecordSchemas,
  Oracle,
  Organisation,
  Protocol,
  Token,
  Vault
} from "../../src/model/Entity.ts"
import { EntityTypes } from "../../src/model/EntityType.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const failure = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isSuccess(result)) return assert.fail("expected the decode to fail")
  return result.failure.message
}

const ethereum = { slug: "ethereum", name: "Ethereum" }
const times = { created_at: "2025-03-01T09:00:00+00:00", updated_at: "2026-08-01T00:00:00Z" }
const common = {
  status: "published",
  chains: [
    ethereum,
    { id: "7b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b", slug: "arbitrum-one", name: "Arbitrum One" }
  ],
  urls: { website: "https://aave.com", docs: "https://docs.aave.com" },
  description: null,
  is_active: true,
  is_private: false,
  ...times
}

const aave = {
  id: "3f1c2a9e-8b7d-4c1e-9a2b-5d6e7f8a9b0c",
  name: "Aave V3",
  slug: "aave-v3",
  categories: ["lending"],
  external_ids: { defillama: "aave-v3", coingecko: "aave" },
  ...common
}

const usdc = {
  id: "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d",
  name: "USD Coin",
  symbol: "USDC",
  slug: "usdc",
  contract_address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  chain: ethereum,
  chains: [ethereum],
  status: "published",
  categories: ["stablecoin"],
  urls: { website: "https://www.circle.com/usdc" },
  external_ids: { coingecko: "usd-coin" },
  description: "Fiat-backed stablecoin issued by Circle",
  is_active: true,
  is_private: false,
  ...times
}

const wormholeLike = {
  ...common,
  id: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
  name: "Example Light-Client Bridge",
  slug: "example-light-client-bridge",
  categories: ["messaging", "light-client"],
  external_ids: { l2beat_note: "not tracked by l2beat" },
  signer_count: null,
  signing_threshold: null,
  has_message_attestation: true,
  pause_mechanism: "A 4-of-7 security council multisig can pause inbound messages.",
  validator_set_owner: {
    id: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
    slug: "example-labs",
    name: "Example Labs"
  }
}

const curatorRef = {
  id: "1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
  slug: "steakhouse-financial",
  name: "Steakhouse"
}
const vault = {
  ...common,
  id: "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
  name: "Steakhouse USDC",
  slug: "steakhouse-usdc",
  categories: ["lending-vault"],
  external_ids: {},
  curator_id: curatorRef.id,
  curator: curatorRef,
  is_framework: false
}

describe("Entity records", () => {
  it("an Aave-like protocol record round-trips", () => {
    roundTrip(Protocol, aave)
  })

  it("chain, oracle and organisation records round-trip; chain_id is an optional extra", () => {
    const chain = { ...aave, name: "Ethereum", slug: "ethereum", categories: ["l1", "evm"], chains: [] }
    roundTrip(Chain, chain)
    roundTrip(Chain, { ...chain, chain_id: 1 })
    roundTrip(Chain, { ...chain, chain_id: null })
    roundTrip(Oracle, { ...aave, name: "Chainlink", slug: "chainlink", categories: ["push-oracle"] })
    roundTrip(Organisation, {
      ...aave,
      name: "Steakhouse",
      slug: "steakhouse-financial",
      categories: ["curator"]
    })
  })

  it("a USDC-like stablecoin token record round-trips", () => {
    roundTrip(Token, usdc)
  })

  it("token record: each required field of the spec's table is required", () => {
    const required = [
      "id",
      "name",
      "symbol",
      "slug",
      "chain",
      "status",
      "is_active",
      "is_private",
      "created_at",
      "updated_at"
    ] as const
    for (const field of required) {
      const { [field]: _dropped, ...rest } = usdc
      assert.include(failure(Token, rest), "Missing key", field)
      assert.include(failure(Token, rest), `["${field}"]`, field)
    }
  })

  it("token record: each optional field of the spec's table may be absent", () => {
    const optional = [
      "contract_address",
      "chains",
      "categories",
      "urls",
      "external_ids",
      "description"
    ] as const
    for (const field of optional) {
      const { [field]: _dropped, ...rest } = usdc
      roundTrip(Token, rest)
    }
    const minimal = Object.fromEntries(
      Object.entries(usdc).filter(([k]) => !(optional as ReadonlyArray<string>).includes(k))
    )
    roundTrip(Token, minimal)
  })

  it("token record: contract_address and description are string or null; chain is a ChainBrief", () => {
    roundTrip(Token, { ...usdc, contract_address: null, description: null })
    failure(Token, { ...usdc, contract_address: 42 })
    failure(Token, { ...usdc, chain: "ethereum" })
    failure(Token, { ...usdc, chain: { slug: "ethereum" } })
  })

  it("status is one of draft, scoring, approved, published", () => {
    for (const status of ["draft", "scoring", "approved", "published"]) roundTrip(Token, { ...usdc, status })
    assert.include(failure(Token, { ...usdc, status: "archived" }), "status")
  })

  it("slug is kebab-case: lowercase a-z, 0-9 and single hyphens", () => {
    for (const slug of ["Aave-V3", "aave--v3", "aave_v3", "-aave", "aave-"]) {
      assert.include(failure(Protocol, { ...aave, slug }), "kebab-case slug", slug)
    }
    failure(Protocol, { ...aave, chains: [{ slug: "Ethereum", name: "Ethereum" }] })
  })

  it("categories are lowercase strings", () => {
    failure(Token, { ...usdc, categories: ["Stablecoin"] })
    failure(Token, { ...usdc, categories: [""] })
  })

  it("protocol and oracle categories are single-select: a record holds at most one category", () => {
    const two = ["lending", "dex"]
    assert.include(failure(Protocol, { ...aave, categories: two }), "at most one category")
    assert.include(failure(Oracle, { ...aave, categories: two }), "at most one category")
    roundTrip(Protocol, { ...aave, categories: [] })
    roundTrip(Chain, { ...aave, categories: two })
    roundTrip(Token, { ...usdc, categories: two })
    roundTrip(Bridge, { ...wormholeLike, categories: two })
  })

  it("a bridge with null signer fields (no fixed signing set) and a validator_set_owner round-trips", () => {
    roundTrip(Bridge, wormholeLike)
    roundTrip(Bridge, { ...wormholeLike, signer_count: 19, signing_threshold: 13, validator_set_owner: null })
    roundTrip(Bridge, { ...wormholeLike, pause_mechanism: null, has_message_attestation: false })
  })

  it("bridge: signing_threshold is never more than signer_count when both are present", () => {
    const message = failure(Bridge, { ...wormholeLike, signer_count: 5, signing_threshold: 6 })
    assert.include(message, "signing_threshold (6) must not exceed signer_count (5)")
    roundTrip(Bridge, { ...wormholeLike, signer_count: 5, signing_threshold: 5 })
    roundTrip(Bridge, { ...wormholeLike, signer_count: null, signing_threshold: 3 })
  })

  it("bridge: signer_count and signing_threshold are positive integers or null", () => {
    failure(Bridge, { ...wormholeLike, signer_count: 0 })
    failure(Bridge, { ...wormholeLike, signing_threshold: 2.5 })
    failure(Bridge, { ...wormholeLike, validator_set_owner: { slug: "example-labs", name: "Example Labs" } })
  })

  it("vault: a curator reference and the framework-tier flag round-trip", () => {
    roundTrip(Vault, vault)
    roundTrip(Vault, { ...vault, curator: null })
    roundTrip(Vault, { ...vault, curator_id: null, curator: null, is_framework: true })
  })

  it("vault: the embedded curator is the organisation curator_id names", () => {
    const otherId = "4f5a6b7c-8d9e-4f0a-8b1c-2d3e4f5a6b7c"
    assert.include(failure(Vault, { ...vault, curator_id: otherId }), "must equal curator_id")
    assert.include(failure(Vault, { ...vault, curator_id: null }), "curator_id must be set")
    failure(Vault, { ...vault, is_framework: undefined })
  })

  it("external_ids on a record keep unrecognised keys and reject a provider key beside its note", () => {
    const ids = { defillama: "aave-v3", "import:batch": "2026-07" }
    assert.deepStrictEqual(
      Schema.decodeUnknownSync(Protocol)({ ...aave, external_ids: ids }).external_ids,
      ids
    )
    failure(Protocol, { ...aave, external_ids: { defillama: "aave-v3", defillama_note: "none" } })
  })

  it("every entity type has a record schema", () => {
    assert.deepStrictEqual(Object.keys(EntityRecordSchemas).sort(), [...EntityTypes].sort())
    assert.strictEqual(EntityRecordSchemas.token, Token)
  })
})
