/**
 * Demo chains: L1s and L2s with EIP-155 ids where they have one. OP Mainnet
 * was renamed (slug optimism -> op-mainnet, id kept); Monad is a draft,
 * Berachain is being scored, Mantle is approved but unpublished, and Polygon
 * zkEVM is inactive (being sunset). Linea fails the censorship_resistance gate.
 * Plasma is a chain the quantum-readiness source has not assessed; Katana is
 * private (held back while its scoring runs).
 */
import type { ChainSpec } from "../DemoSpec.ts"

const l2ExitNote = "L2 exits and forced inclusion were checked against L2BEAT's stage assessment."

export const Chains: ReadonlyArray<ChainSpec> = [
  {
    type: "chain",
    name: "Ethereum",
    slug: "ethereum",
    chain_id: 1,
    categories: ["l1", "evm"],
    urls: { website: "https://ethereum.org", docs: "https://ethereum.org/en/developers/docs/" },
    external_ids: {
      defillama: "Ethereum",
      coingecko: "ethereum",
      chainlist: "1",
      l2beat_note:
        "Not an L2: L2BEAT lists rollups that settle on Ethereum, not Ethereum itself (checked 2026-01-08).",
      coverage_tier: "core"
    },
    about:
      "Proof-of-stake L1 and the settlement layer of most rated L2s. Rated before the service launched; that history was migrated.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.88,
      bias: { decentralization: 0.05, operational: 0.05, ecosystem: 0.06 },
      firstVersion: 3,
      versions: [
        {
          publish: {
            at: "2026-01-12T10:00:00Z",
            reasoning:
              "First rating on the service, carrying over the 2025 review; earlier versions were migrated.",
            actor: "analyst:a.okafor"
          }
        },
        {
          shift: { technology: 0.04 },
          publish: {
            at: "2026-05-20T14:30:00Z",
            reasoning: "Client diversity improved after the spring upgrade; technology domain re-scored.",
            actor: "analyst:a.okafor"
          }
        },
        {
          shift: { operational: 0.02 },
          publish: {
            at: "2026-09-15T09:15:00Z",
            reasoning: "Network upgrade shipped without downtime; operational evidence refreshed.",
            actor: "committee:ratings"
          }
        }
      ]
    }
  },
  {
    type: "chain",
    name: "Arbitrum One",
    slug: "arbitrum-one",
    chain_id: 42161,
    categories: ["l2", "optimistic-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://arbitrum.io", docs: "https://docs.arbitrum.io" },
    external_ids: { defillama: "Arbitrum", l2beat: "arbitrum", coingecko: "arbitrum", chainlist: "42161" },
    about: `Optimistic rollup settling on Ethereum, with permissionless fraud proofs. ${l2ExitNote}`,
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.74,
      bias: { decentralization: -0.08, ecosystem: 0.08 },
      versions: [
        {
          publish: {
            at: "2026-01-14T11:00:00Z",
            reasoning: "Initial rating.",
            actor: "analyst:j.lindqvist"
          }
        },
        {
          shift: { security: 0.05, governance: 0.03 },
          publish: {
            at: "2026-06-02T10:00:00Z",
            reasoning:
              "Permissionless validation re-verified on mainnet; security and governance re-scored upward.",
            actor: "analyst:j.lindqvist"
          }
        },
        { shift: { decentralization: 0.03 } }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    key: "optimism",
    name: "OP Mainnet",
    slug: "op-mainnet",
    chain_id: 10,
    categories: ["l2", "optimistic-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://www.optimism.io", docs: "https://docs.optimism.io" },
    external_ids: {
      defillama: "OP Mainnet",
      l2beat: "op-mainnet",
      chainlist: "10",
      previous_slug: "optimism",
      renamed_at: "2026-03-30"
    },
    about:
      "Optimistic rollup of the OP Stack. Renamed from Optimism: its slug changed from optimism to op-mainnet; " +
      `the id and external_ids did not change. ${l2ExitNote}`,
    created_at: "2025-10-01T09:00:00Z",
    updated_at: "2026-04-22T09:30:00Z",
    rating: {
      base: 0.72,
      bias: { decentralization: -0.08 },
      versions: [
        {
          publish: {
            at: "2026-01-14T11:30:00Z",
            reasoning: "Initial rating (as Optimism).",
            actor: "analyst:j.lindqvist"
          }
        },
        {
          shift: { governance: 0.05 },
          publish: {
            at: "2026-04-22T09:30:00Z",
            reasoning: "Re-rated after the rename to OP Mainnet: the upgrade exit window was lengthened.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Base",
    slug: "base",
    chain_id: 8453,
    categories: ["l2", "optimistic-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://base.org", docs: "https://docs.base.org" },
    external_ids: {
      defillama: "Base",
      l2beat: "base",
      chainlist: "8453",
      coingecko_note: "No native token: Base has no token of its own (checked 2026-01-10)."
    },
    about: `OP Stack rollup operated by a single sequencer. ${l2ExitNote}`,
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.66,
      bias: { decentralization: -0.14, ecosystem: 0.1 },
      versions: [
        {
          publish: {
            at: "2026-01-15T10:00:00Z",
            reasoning: "Initial rating; the single sequencer weighs on decentralization.",
            actor: "analyst:j.lindqvist"
          }
        },
        {
          shift: { governance: 0.04 },
          publish: {
            at: "2026-07-08T13:00:00Z",
            reasoning: "Security council membership broadened; governance re-scored.",
            actor: "analyst:j.lindqvist"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "ZKsync Era",
    slug: "zksync-era",
    chain_id: 324,
    categories: ["l2", "zk-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://zksync.io", docs: "https://docs.zksync.io" },
    external_ids: { defillama: "ZKsync Era", l2beat: "zksync-era", chainlist: "324" },
    about: `Validity rollup with a permissioned sequencer. ${l2ExitNote}`,
    created_at: "2025-10-06T09:00:00Z",
    rating: {
      base: 0.68,
      bias: { decentralization: -0.1 },
      versions: [
        {
          publish: { at: "2026-02-03T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" }
        },
        {
          shift: { operational: -0.05 },
          publish: {
            at: "2026-08-19T16:00:00Z",
            reasoning:
              "Block production paused for several hours in July; liveness evidence re-scored downward.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Linea",
    slug: "linea",
    chain_id: 59144,
    categories: ["l2", "zk-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://linea.build", docs: "https://docs.linea.build" },
    external_ids: { defillama: "Linea", l2beat: "linea", chainlist: "59144" },
    about: `Validity rollup without forced inclusion at the time of rating: it fails the censorship-resistance gate. ${l2ExitNote}`,
    created_at: "2025-10-06T09:00:00Z",
    rating: {
      base: 0.62,
      versions: [
        {
          publish: {
            at: "2026-02-05T10:00:00Z",
            reasoning: "Initial rating; no forced-inclusion path, so the censorship-resistance gate fails.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      fixed: { "CHAIN-DEC-03": 0, "CHAIN-DEC-04": 0, "CHAIN-SEC-06": 1 },
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Scroll",
    slug: "scroll",
    chain_id: 534352,
    categories: ["l2", "zk-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://scroll.io", docs: "https://docs.scroll.io" },
    external_ids: { defillama: "Scroll", l2beat: "scroll", chainlist: "534352" },
    about: `Validity rollup with an enforced-transaction queue. ${l2ExitNote}`,
    created_at: "2025-10-06T09:00:00Z",
    rating: {
      base: 0.69,
      versions: [
        { publish: { at: "2026-02-05T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } },
        {
          shift: { security: 0.03 },
          publish: {
            at: "2026-06-24T10:00:00Z",
            reasoning: "Second prover audit published; security re-scored.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Starknet",
    slug: "starknet",
    chain_id: null,
    categories: ["l2", "zk-rollup"],
    chains: ["ethereum"],
    urls: { website: "https://www.starknet.io", docs: "https://docs.starknet.io" },
    external_ids: {
      defillama: "Starknet",
      l2beat: "starknet",
      chainlist_note: "Not EVM: no EIP-155 chain id."
    },
    about: `Validity rollup with its own virtual machine (Cairo); it has no EIP-155 chain id. ${l2ExitNote}`,
    created_at: "2025-10-20T09:00:00Z",
    rating: {
      base: 0.66,
      versions: [
        { publish: { at: "2026-03-03T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } },
        { shift: { decentralization: 0.05 } }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Polygon PoS",
    slug: "polygon-pos",
    chain_id: 137,
    categories: ["l1", "evm", "commit-chain"],
    urls: { website: "https://polygon.technology", docs: "https://docs.polygon.technology" },
    external_ids: { defillama: "Polygon", coingecko: "polygon-ecosystem-token", chainlist: "137" },
    about: "Proof-of-stake commit chain that checkpoints to Ethereum; rated as an L1 for its own consensus.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.64,
      versions: [
        {
          publish: { at: "2026-01-22T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        },
        {
          shift: { operational: -0.04 },
          publish: {
            at: "2026-05-12T10:00:00Z",
            reasoning: "Finality delays during the spring incident; operational re-scored downward.",
            actor: "analyst:j.lindqvist"
          }
        }
      ]
    }
  },
  {
    type: "chain",
    name: "BNB Chain",
    slug: "bnb-chain",
    chain_id: 56,
    categories: ["l1", "evm"],
    urls: { website: "https://www.bnbchain.org", docs: "https://docs.bnbchain.org" },
    external_ids: { defillama: "BSC", coingecko: "binancecoin", chainlist: "56" },
    about: "Proof-of-staked-authority L1 with a small validator set.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.6,
      bias: { decentralization: -0.22, ecosystem: 0.12 },
      versions: [
        {
          publish: {
            at: "2026-01-19T10:00:00Z",
            reasoning: "Initial rating; the small validator set caps decentralization.",
            actor: "analyst:a.okafor"
          }
        }
      ]
    }
  },
  {
    type: "chain",
    name: "Avalanche C-Chain",
    slug: "avalanche-c-chain",
    chain_id: 43114,
    categories: ["l1", "evm"],
    urls: { website: "https://www.avax.network", docs: "https://build.avax.network/docs" },
    external_ids: { defillama: "Avalanche", coingecko: "avalanche-2", chainlist: "43114" },
    about: "EVM chain of the Avalanche primary network, with Snowman consensus.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        { publish: { at: "2026-01-21T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } },
        {
          shift: { ecosystem: -0.04 },
          publish: {
            at: "2026-07-29T10:00:00Z",
            reasoning: "Value secured fell over the year; ecosystem re-scored.",
            actor: "analyst:a.okafor"
          }
        }
      ]
    }
  },
  {
    type: "chain",
    name: "Solana",
    slug: "solana",
    chain_id: null,
    categories: ["l1", "svm"],
    urls: { website: "https://solana.com", docs: "https://solana.com/docs" },
    external_ids: {
      defillama: "Solana",
      coingecko: "solana",
      l2beat_note: "Not an L2 (checked 2026-01-08).",
      chainlist_note: "Not EVM: no EIP-155 chain id."
    },
    about: "High-throughput proof-of-stake L1; no EIP-155 chain id.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.71,
      bias: { operational: -0.08, ecosystem: 0.1 },
      versions: [
        { publish: { at: "2026-01-20T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } },
        {
          shift: { decentralization: 0.06 },
          publish: {
            at: "2026-06-30T10:00:00Z",
            reasoning: "A second independent validator client now produces a material share of blocks.",
            actor: "analyst:a.okafor"
          }
        }
      ]
    }
  },
  {
    type: "chain",
    name: "Gnosis Chain",
    slug: "gnosis",
    chain_id: 100,
    categories: ["l1", "evm"],
    urls: { website: "https://www.gnosis.io", docs: "https://docs.gnosischain.com" },
    external_ids: { defillama: "xDai", coingecko: "gnosis", chainlist: "100" },
    about: "Proof-of-stake L1 run on Ethereum's consensus client software.",
    created_at: "2025-10-13T09:00:00Z",
    rating: {
      base: 0.7,
      bias: { ecosystem: -0.12 },
      versions: [
        { publish: { at: "2026-02-10T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } }
      ]
    }
  },
  {
    type: "chain",
    name: "Polygon zkEVM",
    slug: "polygon-zkevm",
    chain_id: 1101,
    categories: ["l2", "zk-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://polygon.technology/polygon-zkevm" },
    external_ids: { defillama: "Polygon zkEVM", l2beat: "polygonzkevm", chainlist: "1101" },
    about: "Validity rollup being sunset by its operator; coverage ended, so the record is inactive.",
    is_active: false,
    created_at: "2025-10-06T09:00:00Z",
    updated_at: "2026-03-31T09:00:00Z",
    rating: {
      base: 0.56,
      versions: [
        {
          publish: {
            at: "2026-02-12T10:00:00Z",
            reasoning: "Final rating before coverage ended with the announced sunset.",
            actor: "analyst:r.mehta"
          }
        }
      ],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Mantle",
    slug: "mantle",
    chain_id: 5000,
    status: "approved",
    categories: ["l2", "optimistic-rollup", "evm"],
    chains: ["ethereum"],
    urls: { website: "https://www.mantle.xyz", docs: "https://docs.mantle.xyz" },
    external_ids: { defillama: "Mantle", l2beat: "mantle", chainlist: "5000" },
    about: "OP Stack rollup using an external data-availability layer. Approved, awaiting publication.",
    created_at: "2026-05-04T09:00:00Z",
    rating: {
      base: 0.58,
      versions: [{}],
      dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }]
    }
  },
  {
    type: "chain",
    name: "Berachain",
    slug: "berachain",
    chain_id: 80094,
    status: "scoring",
    categories: ["l1", "evm"],
    urls: { website: "https://www.berachain.com", docs: "https://docs.berachain.com" },
    external_ids: { defillama: "Berachain", chainlist: "80094", coingecko: "berachain-bera" },
    about: "Proof-of-liquidity L1; scoring in progress, not yet rated.",
    created_at: "2026-06-15T09:00:00Z",
    rating: { base: 0.6, versions: [{}], unknown: ["CHAIN-OPS-03", "CHAIN-SEC-02"] }
  },
  {
    type: "chain",
    name: "Monad",
    slug: "monad",
    chain_id: 143,
    status: "draft",
    categories: ["l1", "evm"],
    urls: { website: "https://www.monad.xyz", docs: "https://docs.monad.xyz" },
    external_ids: { defillama: "Monad", chainlist: "143" },
    about: "Parallel-execution EVM L1. Draft record: not yet scored or published.",
    created_at: "2026-09-01T09:00:00Z",
    rating: { base: 0.62, versions: [{}] }
  },
  {
    type: "chain",
    name: "Plasma",
    slug: "plasma",
    chain_id: 9745,
    categories: ["l1", "evm"],
    urls: { website: "https://www.plasma.to", docs: "https://docs.plasma.to" },
    external_ids: { defillama: "Plasma", chainlist: "9745" },
    about:
      "Stablecoin-focused EVM L1. The quantum-readiness source has not assessed it, so its quantum " +
      "readiness is unavailable.",
    created_at: "2026-10-06T09:00:00Z",
    rating: {
      base: 0.52,
      versions: [
        { publish: { at: "2026-10-29T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } }
      ]
    }
  },
  {
    type: "chain",
    name: "Katana",
    slug: "katana",
    chain_id: 747474,
    status: "scoring",
    is_private: true,
    categories: ["l2", "evm"],
    urls: { website: "https://katana.network" },
    external_ids: { defillama: "Katana", chainlist: "747474" },
    about: "DeFi-focused L2. Private while its scoring runs: hidden from lists, 404 on lookup.",
    created_at: "2026-09-22T09:00:00Z",
    rating: { base: 0.55, versions: [{}], dependencies: [{ type: "chain", slug: "ethereum", exposure: 0.4 }] }
  }
]
