/**
 * Demo oracles, one category each (the category filter is single-select for
 * oracles). RedStone is a published record without a scorecard: protocols
 * that depend on it carry an unrated dependency. API3 is being scored.
 * Chainlink (slug chainlink, the oracle network as a whole) sits beside its
 * Data Feeds: the live service's examples name the oracle `chainlink`.
 * Tellor is approved but inactive; Chaos Labs Edge is a private draft.
 */
import type { OracleSpec } from "../DemoSpec.ts"

export const Oracles: ReadonlyArray<OracleSpec> = [
  {
    type: "oracle",
    name: "Chainlink Data Feeds",
    slug: "chainlink-data-feeds",
    categories: ["price-feeds"],
    chains: [
      "ethereum",
      "arbitrum-one",
      "op-mainnet",
      "base",
      "bnb-chain",
      "avalanche-c-chain",
      "polygon-pos"
    ],
    urls: { website: "https://chain.link", docs: "https://docs.chain.link/data-feeds" },
    external_ids: { defillama: "chainlink", coingecko: "chainlink" },
    about: "Push-based price feeds signed by decentralized oracle networks.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.86,
      versions: [
        {
          publish: { at: "2026-01-16T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { data_quality: 0.03 },
          publish: {
            at: "2026-05-05T10:00:00Z",
            reasoning: "Per-feed methodology pages published for all major feeds.",
            actor: "analyst:s.nakamura"
          }
        },
        {
          shift: { governance: -0.03 },
          publish: {
            at: "2026-09-22T10:00:00Z",
            reasoning:
              "Feed configuration changes made without the usual notice period; governance re-scored.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "oracle",
    name: "Chainlink",
    slug: "chainlink",
    categories: ["price-feeds"],
    chains: [
      "ethereum",
      "arbitrum-one",
      "op-mainnet",
      "base",
      "bnb-chain",
      "avalanche-c-chain",
      "polygon-pos",
      "solana"
    ],
    urls: { website: "https://chain.link", docs: "https://docs.chain.link" },
    external_ids: {
      coingecko: "chainlink",
      defillama_note:
        "DefiLlama tracks the feeds, rated on their own as chainlink-data-feeds (checked 2026-02-02).",
      coverage_tier: "core"
    },
    about:
      "The Chainlink oracle network as a whole: push-based Data Feeds, pull-based Data Streams and the " +
      "decentralized oracle networks that sign them. Its Data Feeds also have a record of their own " +
      "(chainlink-data-feeds).",
    created_at: "2026-02-02T09:00:00Z",
    rating: {
      base: 0.85,
      versions: [
        {
          publish: {
            at: "2026-02-24T10:00:00Z",
            reasoning: "Initial rating of the oracle network as a whole, beside the Data Feeds record.",
            actor: "analyst:s.nakamura"
          }
        },
        {
          shift: { decentralization: 0.02 },
          publish: {
            at: "2026-09-29T10:00:00Z",
            reasoning: "More independent node operators joined the networks behind the most-used feeds.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "oracle",
    name: "Pyth Network",
    slug: "pyth",
    categories: ["price-feeds"],
    chains: ["solana", "arbitrum-one", "base", "bnb-chain"],
    urls: { website: "https://www.pyth.network", docs: "https://docs.pyth.network" },
    external_ids: { defillama: "pyth-network", coingecko: "pyth-network" },
    about: "Pull-based price feeds from first-party publishers, aggregated on Pythnet.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.76,
      versions: [
        {
          publish: { at: "2026-01-16T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { decentralization: 0.03 },
          publish: {
            at: "2026-07-14T10:00:00Z",
            reasoning: "Publisher set grew and became more geographically distributed.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "oracle",
    name: "Chronicle Protocol",
    slug: "chronicle",
    categories: ["price-feeds"],
    chains: ["ethereum", "base", "arbitrum-one"],
    urls: { website: "https://chroniclelabs.org", docs: "https://docs.chroniclelabs.org" },
    external_ids: { defillama: "chronicle", coingecko_note: "No token (checked 2026-01-12)." },
    about: "Oracle network originating in the Maker ecosystem, with Schnorr-aggregated feeds.",
    created_at: "2025-10-08T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [
        {
          publish: { at: "2026-01-21T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { operational: 0.06 },
          publish: {
            at: "2026-06-18T10:00:00Z",
            reasoning: "Public status page and incident history added.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "oracle",
    name: "RedStone",
    slug: "redstone",
    categories: ["price-feeds"],
    chains: ["ethereum", "arbitrum-one", "base", "berachain"],
    urls: { website: "https://www.redstone.finance", docs: "https://docs.redstone.finance" },
    external_ids: { defillama: "redstone", coingecko: "redstone-oracles" },
    about: "Modular oracle with push and pull feeds. Published record, not yet rated: no scorecard exists.",
    created_at: "2026-02-20T09:00:00Z"
  },
  {
    type: "oracle",
    name: "UMA Optimistic Oracle",
    slug: "uma-optimistic-oracle",
    categories: ["optimistic"],
    chains: ["ethereum", "op-mainnet", "arbitrum-one", "base", "polygon-pos"],
    urls: { website: "https://uma.xyz", docs: "https://docs.uma.xyz" },
    external_ids: { defillama: "uma", coingecko: "uma" },
    about: "Optimistic oracle: assertions stand unless disputed, disputes are settled by token-holder vote.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [
        { publish: { at: "2026-02-12T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ],
      notApplicable: {
        "ORACLE-DQ-03":
          "An optimistic oracle has no deviation threshold or heartbeat: values are asserted on request."
      }
    }
  },
  {
    type: "oracle",
    name: "API3",
    slug: "api3",
    status: "scoring",
    categories: ["first-party"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://api3.org", docs: "https://docs.api3.org" },
    external_ids: { defillama: "api3", coingecko: "api3" },
    about: "First-party oracle feeds operated by data providers; scoring in progress.",
    created_at: "2026-07-01T09:00:00Z",
    rating: { base: 0.7, versions: [{}] }
  },
  {
    type: "oracle",
    name: "Tellor",
    slug: "tellor",
    status: "approved",
    is_active: false,
    categories: ["optimistic"],
    chains: ["ethereum", "polygon-pos"],
    urls: { website: "https://tellor.io", docs: "https://docs.tellor.io" },
    external_ids: { defillama: "tellor", coingecko: "tellor" },
    about:
      "Optimistic oracle with staked reporters. Approved, then set inactive before publication: no protocol " +
      "the service rates still reads it.",
    created_at: "2026-04-14T09:00:00Z",
    rating: {
      base: 0.62,
      versions: [{}],
      notApplicable: {
        "ORACLE-DQ-03":
          "Values are reported on request with a dispute window, not pushed on deviation or heartbeat."
      }
    }
  },
  {
    type: "oracle",
    name: "Chaos Labs Edge",
    slug: "chaos-labs-edge",
    status: "draft",
    is_private: true,
    categories: ["price-feeds"],
    chains: ["ethereum", "arbitrum-one"],
    urls: { website: "https://chaoslabs.xyz" },
    external_ids: {},
    about: "Risk-aware price feeds. Private draft: not listed and not served until it is reviewed.",
    created_at: "2026-10-26T09:00:00Z"
  }
]
