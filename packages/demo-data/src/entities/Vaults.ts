/**
 * Demo vaults with their curators. LST and LRT vaults (categories lst, lrt)
 * are scored on the extra staking domain. The Yearn V3 framework is the
 * framework-tier vault (is_framework), hidden from lists unless an admin asks.
 * Gauntlet USDC Frontier is approved but unpublished, MEV Capital USDT was
 * wound down while being scored (inactive), Steakhouse EURC is a private draft.
 */
import type { VaultSpec } from "../DemoSpec.ts"

export const Vaults: ReadonlyArray<VaultSpec> = [
  {
    type: "vault",
    name: "Steakhouse USDC",
    slug: "steakhouse-usdc",
    curator: "steakhouse-financial",
    categories: ["lending", "stablecoin"],
    chains: ["ethereum"],
    urls: { website: "https://app.morpho.org", docs: "https://docs.morpho.org" },
    external_ids: { defillama: "morpho-blue", vault_address: "0xBEEF01735c132Ada46AA9aA4c54623cAA92A64CB" },
    about: "USDC lending vault on Morpho Blue, curated by Steakhouse Financial.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.82,
      versions: [
        { publish: { at: "2026-04-02T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { strategy: 0.02 },
          publish: {
            at: "2026-08-11T10:00:00Z",
            reasoning: "Per-market allocation caps lowered to 35 percent.",
            actor: "analyst:k.adeyemi"
          }
        }
      ],
      dependencies: [{ type: "protocol", slug: "morpho-blue", exposure: 1 }]
    }
  },
  {
    type: "vault",
    name: "Gauntlet WETH Prime",
    slug: "gauntlet-weth-prime",
    curator: "gauntlet",
    categories: ["lending"],
    chains: ["ethereum"],
    urls: { website: "https://app.morpho.org" },
    external_ids: { vault_address_note: "Address withheld in the demo data." },
    about: "WETH lending vault on Morpho Blue, curated by Gauntlet.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-04-02T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { liquidity: -0.03 },
          publish: {
            at: "2026-08-11T11:00:00Z",
            reasoning: "Withdrawals queued for hours during the July utilisation spike.",
            actor: "analyst:k.adeyemi"
          }
        }
      ],
      dependencies: [{ type: "protocol", slug: "morpho-blue", exposure: 1 }]
    }
  },
  {
    type: "vault",
    name: "MEV Capital USDC",
    slug: "mev-capital-usdc",
    curator: "mev-capital",
    categories: ["lending", "stablecoin"],
    chains: ["ethereum"],
    urls: { website: "https://app.morpho.org" },
    external_ids: {},
    about: "Higher-yield USDC vault on Morpho Blue, curated by MEV Capital.",
    created_at: "2025-12-08T09:00:00Z",
    rating: {
      base: 0.68,
      versions: [
        { publish: { at: "2026-04-09T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { strategy: -0.08, curator: -0.06 },
          publish: {
            at: "2026-08-27T11:00:00Z",
            reasoning: "Loss on a depegged collateral market; strategy and curator re-scored downward.",
            actor: "committee:ratings"
          }
        }
      ],
      dependencies: [{ type: "protocol", slug: "morpho-blue", exposure: 1 }]
    }
  },
  {
    type: "vault",
    name: "Block Analitica USDC",
    slug: "block-analitica-usdc",
    curator: "block-analitica",
    categories: ["lending", "stablecoin"],
    chains: ["ethereum"],
    urls: { website: "https://app.morpho.org" },
    external_ids: {},
    about: "Conservative USDC vault on Morpho Blue, curated by Block Analitica.",
    created_at: "2025-12-08T09:00:00Z",
    rating: {
      base: 0.79,
      versions: [
        { publish: { at: "2026-04-09T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } }
      ],
      dependencies: [{ type: "protocol", slug: "morpho-blue", exposure: 1 }]
    }
  },
  {
    type: "vault",
    name: "Re7 wstETH",
    slug: "re7-wsteth",
    curator: "re7-labs",
    categories: ["lending", "lst"],
    chains: ["ethereum"],
    urls: { website: "https://app.euler.finance" },
    external_ids: { defillama: "euler-v2" },
    about: "wstETH lending vault on Euler V2, curated by Re7 Labs; an LST vault, scored on staking too.",
    created_at: "2025-12-15T09:00:00Z",
    rating: {
      base: 0.74,
      versions: [
        { publish: { at: "2026-04-13T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { staking: 0.03 },
          publish: {
            at: "2026-09-09T10:00:00Z",
            reasoning: "Per-operator validator performance now published by the LST issuer.",
            actor: "analyst:k.adeyemi"
          }
        }
      ],
      dependencies: [
        { type: "protocol", slug: "euler-v2", exposure: 1 },
        { type: "protocol", slug: "lido", exposure: 0.5 }
      ]
    }
  },
  {
    type: "vault",
    name: "Steakhouse Resteaking Vault",
    slug: "steakhouse-resteaking",
    curator: "steakhouse-financial",
    categories: ["restaking", "lrt"],
    chains: ["ethereum"],
    urls: { website: "https://app.mellow.finance" },
    external_ids: { defillama: "mellow-lrt" },
    about: "Liquid restaking vault built on Mellow, curated by Steakhouse Financial; an LRT vault.",
    created_at: "2025-12-15T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        { publish: { at: "2026-04-15T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { staking: -0.08 },
          publish: {
            at: "2026-09-09T11:00:00Z",
            reasoning: "Stake delegated to more AVSs, some with unreviewed slashing conditions.",
            actor: "analyst:k.adeyemi"
          }
        }
      ],
      dependencies: [
        { type: "protocol", slug: "eigenlayer", exposure: 0.6 },
        { type: "protocol", slug: "lido", exposure: 0.5 }
      ]
    }
  },
  {
    type: "vault",
    name: "ether.fi Liquid ETH",
    slug: "etherfi-liquid-eth",
    curator: null,
    categories: ["lrt", "yield"],
    chains: ["ethereum"],
    urls: { website: "https://www.ether.fi" },
    external_ids: { defillama: "ether.fi-liquid" },
    about: "Strategy vault over liquid restaking tokens, managed by its issuer (no third-party curator).",
    created_at: "2026-01-05T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [
        { publish: { at: "2026-04-20T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } }
      ],
      notApplicable: { curator: "No third-party curator: the issuer manages the vault itself." },
      dependencies: [{ type: "protocol", slug: "eigenlayer", exposure: 0.5 }]
    }
  },
  {
    type: "vault",
    name: "Yearn V3 Vault Framework",
    slug: "yearn-v3-framework",
    curator: null,
    is_framework: true,
    categories: ["framework"],
    chains: ["ethereum", "arbitrum-one", "base", "polygon-pos"],
    urls: { website: "https://yearn.fi", docs: "https://docs.yearn.fi" },
    external_ids: { defillama: "yearn-finance" },
    about: "Framework-tier vault: the ERC-4626 template that Yearn V3 instances are built on.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-03-24T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } }
      ],
      notApplicable: {
        "VAULT-STR-05": "A framework has no yield of its own.",
        "VAULT-LIQ-04": "A framework issues no shares."
      }
    }
  },
  {
    type: "vault",
    name: "Gauntlet USDC Frontier",
    slug: "gauntlet-usdc-frontier",
    status: "approved",
    curator: "gauntlet",
    categories: ["lending", "stablecoin"],
    chains: ["base"],
    urls: { website: "https://app.morpho.org" },
    external_ids: { vault_address_note: "Address withheld in the demo data." },
    about:
      "Higher-yield USDC lending vault on Morpho Blue, curated by Gauntlet. Approved, awaiting publication.",
    created_at: "2026-08-31T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [{}],
      dependencies: [{ type: "protocol", slug: "morpho-blue", exposure: 1 }]
    }
  },
  {
    type: "vault",
    name: "MEV Capital USDT",
    slug: "mev-capital-usdt",
    status: "scoring",
    is_active: false,
    curator: "mev-capital",
    categories: ["lending", "stablecoin"],
    chains: ["ethereum"],
    urls: { website: "https://app.euler.finance" },
    external_ids: { defillama: "euler-v2" },
    about: "USDT lending vault on Euler V2, curated by MEV Capital. Wound down while being scored: inactive.",
    created_at: "2026-06-22T09:00:00Z",
    rating: { base: 0.6, versions: [{}], dependencies: [{ type: "protocol", slug: "euler-v2", exposure: 1 }] }
  },
  {
    type: "vault",
    name: "Steakhouse EURC",
    slug: "steakhouse-eurc",
    status: "draft",
    is_private: true,
    curator: "steakhouse-financial",
    categories: ["lending", "stablecoin"],
    chains: ["base"],
    urls: { website: "https://app.morpho.org" },
    external_ids: {},
    about: "EURC lending vault on Morpho Blue, curated by Steakhouse Financial. Private draft.",
    created_at: "2026-10-20T09:00:00Z"
  }
]
