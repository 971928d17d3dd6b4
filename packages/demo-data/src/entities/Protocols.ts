/**
 * Demo protocols, one category each (single-select for protocols). They show
 * dependency drag (Aerodrome on Base, Venus on BNB Chain), unrated
 * dependencies (Euler V2 on RedStone, Dolomite on Berachain), Aave V4 beside
 * Aave V3 (the live service's example protocol), a rename (Sky,
 * formerly MakerDAO), history that predates the service, a domain ruled out
 * entirely (Liquity V2 has no governance), per-entity weights (Ethena), and
 * private, inactive, approved, scoring and draft records.
 */
import type { ProtocolSpec } from "../DemoSpec.ts"

const immutableCore = "The core contracts are immutable: there is no upgrade path to time-lock."

export const Protocols: ReadonlyArray<ProtocolSpec> = [
  {
    type: "protocol",
    name: "Aave V3",
    slug: "aave-v3",
    categories: ["lending"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet", "avalanche-c-chain", "polygon-pos"],
    urls: {
      website: "https://aave.com",
      docs: "https://aave.com/docs",
      github: "https://github.com/aave-dao"
    },
    external_ids: { defillama: "aave-v3", coingecko: "aave", coverage_tier: "core" },
    about:
      "Multi-chain overcollateralised lending market. Rated before the service launched; history migrated.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.86,
      bias: { economic: 0.03 },
      firstVersion: 3,
      versions: [
        {
          publish: {
            at: "2026-02-09T10:00:00Z",
            reasoning: "First rating on the service; the 2024-2025 ratings were migrated as history.",
            actor: "analyst:l.ortega"
          }
        },
        {
          shift: { security: 0.03 },
          publish: {
            at: "2026-05-26T10:00:00Z",
            reasoning: "Audits of the latest release closed with all findings fixed and re-reviewed.",
            actor: "analyst:l.ortega"
          }
        },
        {
          shift: { dependencies: -0.04 },
          publish: {
            at: "2026-10-06T10:00:00Z",
            reasoning: "New deployments accept bridged collateral whose bridges were not assessed.",
            actor: "committee:ratings"
          }
        }
      ],
      dependencies: [
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.6 },
        { type: "chain", slug: "ethereum", exposure: 0.5 },
        { type: "chain", slug: "arbitrum-one", exposure: 0.15 },
        { type: "chain", slug: "base", exposure: 0.1 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Aave V4",
    slug: "aave-v4",
    categories: ["lending"],
    chains: ["ethereum"],
    urls: {
      website: "https://aave.com",
      docs: "https://aave.com/docs",
      github: "https://github.com/aave-dao"
    },
    external_ids: {
      coingecko: "aave",
      defillama_note: "Not yet listed separately (checked 2026-03-16).",
      coverage_tier: "core"
    },
    about:
      "Hub-and-spoke lending: one liquidity hub per network, with spokes holding the markets and their risk " +
      "settings. The successor of Aave V3, which is rated on its own.",
    created_at: "2026-03-16T09:00:00Z",
    rating: {
      base: 0.84,
      bias: { technology: 0.02 },
      versions: [
        {
          publish: {
            at: "2026-04-21T10:00:00Z",
            reasoning: "Initial rating of the new architecture at launch, with conservative supply caps.",
            actor: "analyst:l.ortega"
          }
        },
        {
          shift: { security: 0.03, economic: 0.02 },
          publish: {
            at: "2026-09-08T10:00:00Z",
            reasoning:
              "Audit-contest findings fixed and re-reviewed; caps raised after months without incident.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      dependencies: [
        { type: "oracle", slug: "chainlink", exposure: 0.6 },
        { type: "chain", slug: "ethereum", exposure: 0.8 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Compound V3",
    slug: "compound-v3",
    categories: ["lending"],
    chains: ["ethereum", "arbitrum-one", "base", "polygon-pos"],
    urls: { website: "https://compound.finance", docs: "https://docs.compound.finance" },
    external_ids: { defillama: "compound-v3", coingecko: "compound-governance-token" },
    about: "Single-borrowable-asset lending markets (Comet).",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-02-11T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { governance: -0.08 },
          publish: {
            at: "2026-07-21T10:00:00Z",
            reasoning:
              "A single delegate bloc passed contested treasury proposals; governance re-scored downward.",
            actor: "committee:ratings"
          }
        }
      ],
      dependencies: [
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.6 },
        { type: "chain", slug: "ethereum", exposure: 0.6 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Morpho Blue",
    slug: "morpho-blue",
    categories: ["lending"],
    chains: ["ethereum", "base"],
    urls: { website: "https://morpho.org", docs: "https://docs.morpho.org" },
    external_ids: { defillama: "morpho-blue", coingecko: "morpho" },
    about: "Immutable, permissionless isolated lending markets; vaults built on it are rated separately.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.85,
      versions: [
        { publish: { at: "2026-02-16T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { economic: -0.03 },
          publish: {
            at: "2026-06-23T10:00:00Z",
            reasoning: "Permissionless markets with thin collateral grew; economic domain re-scored.",
            actor: "analyst:l.ortega"
          }
        },
        { shift: { transparency: 0.03 } }
      ],
      fixed: { "PROT-SEC-07": 4 },
      notApplicable: { "PROT-GOV-04": immutableCore, "PROT-SEC-08": "Immutable markets have no pause." },
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 0.7 },
        { type: "chain", slug: "base", exposure: 0.3 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.5 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Spark",
    slug: "spark",
    categories: ["lending"],
    chains: ["ethereum", "base"],
    urls: { website: "https://spark.fi", docs: "https://docs.spark.fi" },
    external_ids: { defillama: "sparklend", coingecko: "spark-2" },
    about: "Lending market and liquidity layer of the Sky ecosystem.",
    created_at: "2025-10-08T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-02-18T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { transparency: 0.04 },
          publish: {
            at: "2026-06-04T10:00:00Z",
            reasoning: "Risk-parameter changes now published with rationale before execution.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 0.9 },
        { type: "oracle", slug: "chronicle", exposure: 0.6 }
      ]
    }
  },
  {
    type: "protocol",
    key: "makerdao",
    name: "Sky",
    slug: "sky",
    categories: ["cdp"],
    chains: ["ethereum"],
    urls: { website: "https://sky.money", docs: "https://developers.sky.money" },
    external_ids: {
      defillama: "sky",
      coingecko: "sky",
      previous_slug: "makerdao",
      previous_name: "MakerDAO"
    },
    about:
      "Collateralised stablecoin protocol issuing USDS and DAI. Formerly MakerDAO: the slug changed from " +
      "makerdao to sky; the id and external_ids did not change, and its history predates the service.",
    created_at: "2025-10-01T09:00:00Z",
    updated_at: "2026-02-18T12:00:00Z",
    rating: {
      base: 0.79,
      firstVersion: 3,
      versions: [
        {
          publish: {
            at: "2026-02-18T12:00:00Z",
            reasoning:
              "First rating under the Sky name (slug makerdao -> sky); earlier ratings were as MakerDAO.",
            actor: "analyst:l.ortega"
          }
        },
        {
          shift: { governance: 0.03, economic: -0.02 },
          publish: {
            at: "2026-08-04T10:00:00Z",
            reasoning: "Governance timelock lengthened; exposure to real-world-asset collateral grew.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 1 },
        { type: "oracle", slug: "chronicle", exposure: 0.7 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Uniswap V3",
    slug: "uniswap-v3",
    categories: ["dex"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet", "polygon-pos", "bnb-chain"],
    urls: { website: "https://uniswap.org", docs: "https://docs.uniswap.org" },
    external_ids: { defillama: "uniswap-v3", coingecko: "uniswap" },
    about: "Concentrated-liquidity automated market maker with immutable pool contracts.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.87,
      firstVersion: 2,
      versions: [
        {
          publish: {
            at: "2026-02-20T10:00:00Z",
            reasoning: "First rating on the service; the 2025 rating was migrated as history.",
            actor: "analyst:j.lindqvist"
          }
        },
        {
          shift: { governance: 0.03 },
          publish: {
            at: "2026-07-01T10:00:00Z",
            reasoning: "Fee-switch governance executed through the timelock as proposed.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      fixed: { "PROT-SEC-07": 4 },
      notApplicable: {
        "PROT-ECON-01": "An AMM lends nothing, so it cannot accrue bad debt.",
        "PROT-ECON-02": "An AMM has no liquidations.",
        "PROT-ECON-07": "An AMM has no borrow caps."
      },
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.6 }]
    }
  },
  {
    type: "protocol",
    name: "Curve DEX",
    slug: "curve-dex",
    categories: ["dex"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://curve.finance", docs: "https://docs.curve.finance" },
    external_ids: { defillama: "curve-dex", coingecko: "curve-dao-token" },
    about: "Stable-swap and crypto-swap automated market maker.",
    created_at: "2025-10-08T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [
        {
          publish: { at: "2026-02-23T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        },
        {
          shift: { technology: 0.05 },
          publish: {
            at: "2026-07-06T10:00:00Z",
            reasoning: "Compiler-version findings closed in the new pool factory.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      notApplicable: { "PROT-ECON-02": "An AMM has no liquidations." },
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.8 }]
    }
  },
  {
    type: "protocol",
    name: "Balancer V2",
    slug: "balancer-v2",
    categories: ["dex"],
    chains: ["ethereum", "arbitrum-one", "base", "gnosis"],
    urls: { website: "https://balancer.fi", docs: "https://docs.balancer.fi" },
    external_ids: { defillama: "balancer-v2", coingecko: "balancer" },
    about:
      "Weighted and composable-stable pool AMM; rated after the November 2025 exploit of some of its pools.",
    created_at: "2025-10-08T09:00:00Z",
    rating: {
      base: 0.64,
      versions: [
        {
          publish: {
            at: "2026-01-28T10:00:00Z",
            reasoning:
              "Initial rating, after the 2025 pool exploit; security reflects the unrecovered losses.",
            actor: "committee:ratings"
          }
        },
        {
          shift: { security: 0.05, operational: 0.05 },
          publish: {
            at: "2026-06-15T10:00:00Z",
            reasoning: "Post-mortem published and affected pool types deprecated.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      fixed: { "PROT-SEC-05": 0 },
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.7 }]
    }
  },
  {
    type: "protocol",
    name: "Aerodrome",
    slug: "aerodrome",
    categories: ["dex"],
    chains: ["base"],
    urls: { website: "https://aerodrome.finance", docs: "https://aerodrome.finance/docs" },
    external_ids: { defillama: "aerodrome", coingecko: "aerodrome-finance" },
    about: "Vote-escrow AMM deployed only on Base; its rating is dragged by its full exposure to Base.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.81,
      versions: [
        {
          publish: {
            at: "2026-03-02T10:00:00Z",
            reasoning: "Initial rating; the headline is held back by Base, its only chain.",
            actor: "analyst:j.lindqvist"
          }
        },
        {
          shift: { security: 0.03 },
          publish: {
            at: "2026-07-15T10:00:00Z",
            reasoning: "Invariant fuzzing added to CI; intrinsic score up, headline still capped by Base.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      notApplicable: { "PROT-ECON-02": "An AMM has no liquidations." },
      dependencies: [{ type: "chain", slug: "base", exposure: 1 }]
    }
  },
  {
    type: "protocol",
    name: "Pendle",
    slug: "pendle",
    categories: ["yield"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://www.pendle.finance", docs: "https://docs.pendle.finance" },
    external_ids: { defillama: "pendle", coingecko: "pendle" },
    about: "Yield tokenisation: principal and yield tokens with an AMM for trading them.",
    created_at: "2025-10-20T09:00:00Z",
    rating: {
      base: 0.77,
      versions: [
        { publish: { at: "2026-03-04T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } },
        {
          shift: { dependencies: -0.05 },
          publish: {
            at: "2026-08-12T10:00:00Z",
            reasoning: "Markets on newer yield sources raised integration exposure; dependencies re-scored.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 0.6 },
        { type: "chain", slug: "arbitrum-one", exposure: 0.3 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Lido",
    slug: "lido",
    categories: ["liquid-staking"],
    chains: ["ethereum"],
    urls: { website: "https://lido.fi", docs: "https://docs.lido.fi" },
    external_ids: { defillama: "lido", coingecko: "lido-dao" },
    about: "Liquid staking for Ether (stETH). Rated before the service launched; history migrated.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.84,
      firstVersion: 2,
      versions: [
        {
          publish: {
            at: "2026-02-24T10:00:00Z",
            reasoning: "First rating on the service; the 2025 rating was migrated as history.",
            actor: "analyst:r.mehta"
          }
        },
        {
          shift: { technology: -0.06 },
          publish: {
            at: "2026-06-16T10:00:00Z",
            reasoning:
              "New staking-vault contracts went live: less time in production, technology re-scored.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 1 }]
    }
  },
  {
    type: "protocol",
    name: "EigenLayer",
    slug: "eigenlayer",
    categories: ["restaking"],
    chains: ["ethereum"],
    urls: { website: "https://www.eigenlayer.xyz", docs: "https://docs.eigenlayer.xyz" },
    external_ids: { defillama: "eigenlayer", coingecko: "eigenlayer" },
    about: "Restaking protocol: staked Ether secures additional services (AVSs) under slashing conditions.",
    created_at: "2025-10-20T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        { publish: { at: "2026-03-09T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } },
        {
          shift: { economic: -0.03, transparency: 0.03 },
          publish: {
            at: "2026-08-25T10:00:00Z",
            reasoning: "Slashing enabled for more services; economic risk up, disclosures improved.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 1 }]
    }
  },
  {
    type: "protocol",
    name: "GMX V2",
    slug: "gmx-v2",
    categories: ["perps"],
    chains: ["arbitrum-one", "avalanche-c-chain"],
    urls: { website: "https://gmx.io", docs: "https://docs.gmx.io" },
    external_ids: { defillama: "gmx-v2", coingecko: "gmx" },
    about: "Perpetuals exchange with isolated GM liquidity pools and low-latency oracle prices.",
    created_at: "2025-10-20T09:00:00Z",
    rating: {
      base: 0.74,
      versions: [
        {
          publish: { at: "2026-03-11T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        },
        {
          shift: { security: 0.02 },
          publish: {
            at: "2026-08-05T10:00:00Z",
            reasoning: "Bug bounty cap raised to match value locked.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "arbitrum-one", exposure: 0.8 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.7 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Ethena",
    slug: "ethena",
    categories: ["synthetic-dollar"],
    chains: ["ethereum"],
    urls: { website: "https://ethena.fi", docs: "https://docs.ethena.fi" },
    external_ids: { defillama: "ethena", coingecko: "ethena" },
    about: "Delta-hedged synthetic dollar. Scored on its own domain weights: economic risk weighs more.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.7,
      domainWeights: {
        security: 20,
        technology: 10,
        governance: 10,
        economic: 25,
        operational: 10,
        transparency: 15,
        dependencies: 10
      },
      versions: [
        { publish: { at: "2026-03-16T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { economic: -0.05 },
          publish: {
            at: "2026-09-01T10:00:00Z",
            reasoning: "Funding rates turned negative for weeks; reserve-fund coverage re-scored downward.",
            actor: "committee:ratings"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.8 }]
    }
  },
  {
    type: "protocol",
    name: "Kamino",
    slug: "kamino",
    categories: ["lending"],
    chains: ["solana"],
    urls: { website: "https://kamino.com", docs: "https://docs.kamino.finance" },
    external_ids: { defillama: "kamino-lend", coingecko: "kamino" },
    about: "Lending and liquidity vaults on Solana.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.79,
      versions: [
        { publish: { at: "2026-03-18T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } },
        {
          shift: { security: 0.02 },
          publish: {
            at: "2026-07-22T10:00:00Z",
            reasoning: "Formal verification of the lending program's core invariants published.",
            actor: "analyst:a.okafor"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "solana", exposure: 1 },
        { type: "oracle", slug: "pyth", exposure: 0.7 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Jupiter",
    slug: "jupiter",
    categories: ["dex-aggregator"],
    chains: ["solana"],
    urls: { website: "https://jup.ag", docs: "https://dev.jup.ag" },
    external_ids: { defillama: "jupiter-aggregator", coingecko: "jupiter-exchange-solana" },
    about: "Swap aggregator and perpetuals venue on Solana.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.76,
      versions: [
        { publish: { at: "2026-03-19T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } }
      ],
      notApplicable: { "PROT-ECON-01": "An aggregator holds no loans and cannot accrue bad debt." },
      dependencies: [
        { type: "chain", slug: "solana", exposure: 1 },
        { type: "oracle", slug: "pyth", exposure: 0.3 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Euler V2",
    slug: "euler-v2",
    categories: ["lending"],
    chains: ["ethereum", "base"],
    urls: { website: "https://www.euler.finance", docs: "https://docs.euler.finance" },
    external_ids: { defillama: "euler-v2", coingecko: "euler" },
    about: "Modular lending vaults (EVK). Depends in part on RedStone, which is not yet rated.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-03-23T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { technology: 0.03 },
          publish: {
            at: "2026-07-28T10:00:00Z",
            reasoning: "Codebase passed 12 months in production without material change.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 0.8 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.5 },
        { type: "oracle", slug: "redstone", exposure: 0.3 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Venus",
    slug: "venus",
    categories: ["lending"],
    chains: ["bnb-chain"],
    urls: { website: "https://venus.io", docs: "https://docs-v4.venus.io" },
    external_ids: { defillama: "venus-core-pool", coingecko: "venus" },
    about: "Lending market on BNB Chain; its headline is dragged by BNB Chain.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.74,
      versions: [
        { publish: { at: "2026-03-25T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } },
        {
          shift: { operational: 0.03 },
          publish: {
            at: "2026-08-10T10:00:00Z",
            reasoning: "Liquidator set opened to independent operators.",
            actor: "analyst:a.okafor"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "bnb-chain", exposure: 1 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.5 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Dolomite",
    slug: "dolomite",
    categories: ["lending"],
    chains: ["arbitrum-one", "berachain"],
    urls: { website: "https://dolomite.io", docs: "https://docs.dolomite.io" },
    external_ids: { defillama: "dolomite", coingecko: "dolomite" },
    about: "Margin and lending protocol; half of its exposure is on Berachain, which is not yet rated.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        {
          publish: {
            at: "2026-04-01T10:00:00Z",
            reasoning: "Initial rating; Berachain exposure is flagged as an unrated dependency.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      dependencies: [
        { type: "chain", slug: "berachain", exposure: 0.5 },
        { type: "chain", slug: "arbitrum-one", exposure: 0.5 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.4 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Liquity V2",
    slug: "liquity-v2",
    categories: ["cdp"],
    chains: ["ethereum"],
    urls: { website: "https://www.liquity.org", docs: "https://docs.liquity.org" },
    external_ids: {
      defillama: "liquity-v2",
      coingecko_note: "BOLD is rated as a token separately; no protocol token id."
    },
    about: "Immutable CDP protocol issuing BOLD, with user-set interest rates and no governance over funds.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        {
          publish: {
            at: "2026-04-06T10:00:00Z",
            reasoning:
              "Initial rating. Governance is ruled out entirely: the weights renormalise without it.",
            actor: "analyst:l.ortega"
          }
        },
        {
          shift: { economic: 0.03 },
          publish: {
            at: "2026-09-08T10:00:00Z",
            reasoning: "Stability pool depth held through the August drawdown.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      fixed: { "PROT-SEC-07": 4 },
      notApplicable: { governance: "Immutable contracts: there is no governance over parameters or funds." },
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 1 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.6 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Maple Finance",
    slug: "maple",
    categories: ["private-credit"],
    chains: ["ethereum"],
    urls: { website: "https://maple.finance", docs: "https://docs.maple.finance" },
    external_ids: { defillama: "maple", coingecko: "syrup" },
    about: "Institutional credit pools with off-chain underwriting.",
    created_at: "2025-12-08T09:00:00Z",
    rating: {
      base: 0.72,
      bias: { transparency: -0.05 },
      versions: [
        { publish: { at: "2026-04-07T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } }
      ],
      unknown: ["PROT-ECON-05", "PROT-TRN-07"],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 1 }]
    }
  },
  {
    type: "protocol",
    name: "Radiant Capital",
    slug: "radiant-capital",
    categories: ["lending"],
    chains: ["arbitrum-one", "bnb-chain"],
    urls: { website: "https://radiant.capital" },
    external_ids: { defillama: "radiant-v2", coingecko: "radiant-capital" },
    about:
      "Cross-chain lending market whose multisig was compromised in October 2024. Coverage ended; the record is " +
      "inactive and its history, which predates the service, is kept.",
    is_active: false,
    created_at: "2025-10-01T09:00:00Z",
    updated_at: "2026-01-30T10:00:00Z",
    rating: {
      base: 0.42,
      firstVersion: 3,
      versions: [
        {
          publish: {
            at: "2026-01-30T10:00:00Z",
            reasoning: "Final rating before coverage was discontinued; the record is kept as inactive.",
            actor: "committee:ratings"
          }
        }
      ],
      fixed: { "PROT-SEC-05": 0, "PROT-SEC-06": 0 },
      dependencies: [
        { type: "chain", slug: "arbitrum-one", exposure: 0.6 },
        { type: "chain", slug: "bnb-chain", exposure: 0.4 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Project Halcyon",
    slug: "project-halcyon",
    is_private: true,
    categories: ["lending"],
    chains: ["ethereum"],
    urls: {},
    external_ids: {
      defillama_note: "Not listed: pre-launch (checked 2026-04-10).",
      engagement: "private-prelaunch-review"
    },
    about:
      "Fictional codename of a pre-launch lending protocol rated privately for its team; hidden from lists.",
    created_at: "2026-04-01T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [
        {
          publish: {
            at: "2026-04-14T10:00:00Z",
            reasoning: "Private pre-launch rating for the team.",
            actor: "analyst:l.ortega"
          }
        }
      ],
      unknown: ["PROT-OPS-02", "PROT-ECON-10"],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 1 }]
    }
  },
  {
    type: "protocol",
    name: "Fluid",
    slug: "fluid",
    status: "approved",
    categories: ["lending"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://fluid.io", docs: "https://docs.fluid.instadapp.io" },
    external_ids: { defillama: "fluid-lending", coingecko: "instadapp" },
    about: "Lending and DEX liquidity layer. Approved, awaiting publication.",
    created_at: "2026-08-17T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [{}, { shift: { security: 0.02 } }],
      dependencies: [
        { type: "chain", slug: "ethereum", exposure: 0.8 },
        { type: "oracle", slug: "chainlink-data-feeds", exposure: 0.5 }
      ]
    }
  },
  {
    type: "protocol",
    name: "Resolv",
    slug: "resolv",
    status: "scoring",
    categories: ["synthetic-dollar"],
    chains: ["ethereum", "base"],
    urls: { website: "https://resolv.xyz", docs: "https://docs.resolv.xyz" },
    external_ids: { defillama: "resolv" },
    about: "Delta-neutral stablecoin protocol; scoring in progress, not yet rated.",
    created_at: "2026-09-07T09:00:00Z",
    rating: { base: 0.66, versions: [{}], unknown: ["PROT-ECON-10"] }
  },
  {
    type: "protocol",
    name: "Superform",
    slug: "superform",
    status: "draft",
    categories: ["yield"],
    chains: ["ethereum", "base", "arbitrum-one"],
    urls: { website: "https://www.superform.xyz" },
    external_ids: {},
    about: "Cross-chain yield marketplace. Draft record.",
    created_at: "2026-10-12T09:00:00Z",
    rating: { base: 0.65, versions: [{}] }
  }
]
