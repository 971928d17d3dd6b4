/**
 * The demo dataset's entity each type's routes use as their example in the
 * OpenAPI document: its slug, its id (stable: the demo's ids are derived from
 * names), the id of its latest published scorecard, and list filters it
 * matches. A test resolves every documented GET path with these values on a
 * server with the demo imported, so they stay true to the demo.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"

export interface ExampleEntity {
  readonly slug: string
  readonly id: string
  readonly scorecard_id: string
  readonly category: string
  readonly chain: string
}

export const ExampleEntities: { readonly [T in EntityType]: ExampleEntity } = {
  protocol: {
    slug: "aave-v4",
    id: "74553fb2-24bd-577d-a367-2a06801cd549",
    scorecard_id: "21f51c48-31b7-5aa0-b6c2-638399da5667",
    category: "lending",
    chain: "ethereum"
  },
  chain: {
    slug: "ethereum",
    id: "fab0af4a-662d-503b-b910-f6f61fcea6c3",
    scorecard_id: "0d5ddafb-7f75-5e2e-973b-e03f4357acd3",
    category: "l1",
    chain: "ethereum"
  },
  token: {
    slug: "usdc",
    id: "8124ceac-e91f-5812-b093-d79f95b4de0e",
    scorecard_id: "819227e3-c30b-5d12-a99f-ad12613d1fbc",
    category: "stablecoin",
    chain: "ethereum"
  },
  oracle: {
    slug: "chainlink",
    id: "0ede5b57-576b-5c79-a0a0-5b830cdfd85e",
    scorecard_id: "c102d04f-7a33-5ad8-99ef-710f9b13bd93",
    category: "price-feeds",
    chain: "ethereum"
  },
  vault: {
    slug: "gauntlet-weth-prime",
    id: "978e35ff-f9ee-59a0-9ddd-f39c71b6e0e1",
    scorecard_id: "22de2a23-5bfa-5f59-9d35-1f3afde7c331",
    category: "lending",
    chain: "ethereum"
  },
  organisation: {
    slug: "gauntlet",
    id: "0ae901b0-aa92-5388-a40d-b2dd3da3f2f7",
    scorecard_id: "04f27031-3329-5007-b6a0-6baa9ccd1e93",
    category: "curator",
    chain: "ethereum"
  },
  bridge: {
    slug: "across",
    id: "0cc14e61-a60b-59db-a07f-61e5967651db",
    scorecard_id: "5e7f1a01-4106-54de-b3d2-59a4f44746cc",
    category: "intent-based",
    chain: "ethereum"
  }
}
