/**
 * Demo bridges with their public security fields. Across, IBC and Hyperlane
 * have no fixed signing set, so their signer fields are null by design.
 * Both validator-set owners are unpublished organisations: Axelar's is public,
 * so its bridge names it, Wormhole's is private, so the public sees null.
 * Categories cover all five of the core's bridge categories. Hyperlane is a
 * published record without scorecards; Multichain is inactive, with history
 * from before the service. Chainlink CCIP is approved but unpublished,
 * LayerZero is being scored, and deBridge is a private draft.
 */
import type { BridgeSpec } from "../DemoSpec.ts"

export const Bridges: ReadonlyArray<BridgeSpec> = [
  {
    type: "bridge",
    name: "Wormhole",
    slug: "wormhole",
    categories: ["messaging", "lock-and-mint"],
    chains: ["ethereum", "solana", "arbitrum-one", "base", "bnb-chain", "avalanche-c-chain"],
    urls: { website: "https://wormhole.com", docs: "https://wormhole.com/docs" },
    external_ids: { defillama: "portal", l2beat: "wormhole" },
    signer_count: 19,
    signing_threshold: 13,
    has_message_attestation: true,
    pause_mechanism:
      "Guardian-signed governance messages can pause the token bridge; the Governor caps outflows per chain per day.",
    validator_set_owner: "wormhole-guardian-network",
    about: "Generic messaging and token bridge secured by 19 guardians with a 13-of-19 threshold.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.76,
      versions: [
        {
          publish: { at: "2026-03-05T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { message_verification: 0.08 },
          publish: {
            at: "2026-08-18T10:00:00Z",
            reasoning: "Per-application verification settings rolled out on all routes.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "bridge",
    name: "Across",
    slug: "across",
    categories: ["intent-based"],
    chains: ["ethereum", "arbitrum-one", "op-mainnet", "base", "linea", "zksync-era"],
    urls: { website: "https://across.to", docs: "https://docs.across.to" },
    external_ids: { defillama: "across", l2beat: "across" },
    signer_count: null,
    signing_threshold: null,
    has_message_attestation: false,
    pause_mechanism:
      "The HubPool owner (a multisig) can pause deposits and root-bundle proposals; settlement relies on UMA's optimistic oracle.",
    validator_set_owner: null,
    about:
      "Intent-based bridge: relayers fill transfers and are repaid after an optimistic challenge window. " +
      "There is no fixed signing set, so its signer fields are null by design.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.75,
      versions: [
        {
          publish: { at: "2026-03-06T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { solver_network: 0.04 },
          publish: {
            at: "2026-07-20T10:00:00Z",
            reasoning: "Relayer set opened further and relayer concentration is now published.",
            actor: "analyst:s.nakamura"
          }
        }
      ],
      dependencies: [{ type: "oracle", slug: "uma-optimistic-oracle", exposure: 0.6 }]
    }
  },
  {
    type: "bridge",
    name: "Axelar",
    slug: "axelar",
    categories: ["messaging", "lock-and-mint"],
    chains: ["ethereum", "arbitrum-one", "base", "polygon-pos", "avalanche-c-chain", "bnb-chain"],
    urls: { website: "https://www.axelar.network", docs: "https://docs.axelar.dev" },
    external_ids: { defillama: "axelar", coingecko: "axelar" },
    signer_count: 75,
    signing_threshold: 50,
    has_message_attestation: true,
    pause_mechanism: "Gateway operators can freeze a chain's gateway through an emergency governance vote.",
    validator_set_owner: "axelar-validator-set",
    about: "Proof-of-stake network relaying cross-chain messages and wrapped assets.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [
        { publish: { at: "2026-03-12T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ]
    }
  },
  {
    type: "bridge",
    name: "Circle CCTP",
    slug: "circle-cctp",
    categories: ["messaging"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet", "solana", "avalanche-c-chain", "polygon-pos"],
    urls: {
      website: "https://www.circle.com/cross-chain-transfer-protocol",
      docs: "https://developers.circle.com"
    },
    external_ids: { defillama: "circle-cctp" },
    signer_count: 1,
    signing_threshold: 1,
    has_message_attestation: true,
    pause_mechanism: "Circle's pauser role can halt burns and mints per domain.",
    validator_set_owner: null,
    about: "Burn-and-mint transfer of USDC attested by Circle's attestation service.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.74,
      bias: { validator_set: -0.25 },
      versions: [
        {
          publish: { at: "2026-03-13T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { operational: 0.05 },
          publish: {
            at: "2026-07-27T10:00:00Z",
            reasoning: "Fast-transfer path added with its own monitoring and limits.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "bridge",
    name: "Stargate",
    slug: "stargate",
    categories: ["liquidity-network", "messaging"],
    chains: [
      "ethereum",
      "arbitrum-one",
      "base",
      "op-mainnet",
      "bnb-chain",
      "avalanche-c-chain",
      "polygon-pos"
    ],
    urls: { website: "https://stargate.finance", docs: "https://docs.stargate.finance" },
    external_ids: { defillama: "stargate", coingecko: "stargate-finance" },
    signer_count: 2,
    signing_threshold: 2,
    has_message_attestation: true,
    pause_mechanism: "The Stargate multisig can pause pools per chain; LayerZero endpoints cannot be paused.",
    validator_set_owner: null,
    about: "Liquidity-pool bridge on LayerZero; messages need both of two required verifier networks.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.73,
      versions: [
        {
          publish: { at: "2026-03-20T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { liquidity: -0.08 },
          publish: {
            at: "2026-08-24T10:00:00Z",
            reasoning: "Pool depth on smaller chains fell below the 99th-percentile transfer size.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "bridge",
    name: "Polygon PoS Bridge",
    slug: "polygon-pos-bridge",
    categories: ["lock-and-mint"],
    chains: ["ethereum", "polygon-pos"],
    urls: { website: "https://portal.polygon.technology", docs: "https://docs.polygon.technology" },
    external_ids: { defillama: "polygon-bridge-&-staking", l2beat: "polygonpos" },
    signer_count: 105,
    signing_threshold: 70,
    has_message_attestation: true,
    pause_mechanism: "A Polygon multisig can pause the root chain manager and predicates.",
    validator_set_owner: null,
    about: "Canonical bridge between Ethereum and Polygon PoS, secured by two thirds of the validator set.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.68,
      versions: [
        {
          publish: { at: "2026-03-26T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        }
      ],
      dependencies: [{ type: "chain", slug: "polygon-pos", exposure: 0.8 }]
    }
  },
  {
    type: "bridge",
    name: "IBC",
    slug: "ibc",
    categories: ["light-client", "messaging"],
    chains: [],
    urls: { website: "https://ibcprotocol.dev", docs: "https://ibc.cosmos.network" },
    external_ids: { defillama_note: "Not tracked as a single bridge (checked 2026-03-02).", standard: "ICS" },
    signer_count: null,
    signing_threshold: null,
    has_message_attestation: false,
    pause_mechanism:
      "No bridge-wide pause: each chain's governance can freeze a light client or close a channel.",
    validator_set_owner: null,
    about:
      "Inter-Blockchain Communication: light clients verify the counterparty chain's consensus. There is no " +
      "fixed signing set, so its signer fields are null by design.",
    created_at: "2025-12-01T09:00:00Z",
    rating: {
      base: 0.82,
      versions: [
        {
          publish: { at: "2026-04-03T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        }
      ]
    }
  },
  {
    type: "bridge",
    name: "Hyperlane",
    slug: "hyperlane",
    categories: ["messaging"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet", "bnb-chain"],
    urls: { website: "https://hyperlane.xyz", docs: "https://docs.hyperlane.xyz" },
    external_ids: { defillama: "hyperlane", coingecko: "hyperlane" },
    signer_count: null,
    signing_threshold: null,
    has_message_attestation: true,
    pause_mechanism: "Each application's security module decides; some deployments include a pausable hook.",
    validator_set_owner: null,
    about:
      "Permissionless messaging with application-chosen security modules. Published record without " +
      "scorecards: its questions list all 62 bridge questions with null scores.",
    created_at: "2026-05-18T09:00:00Z"
  },
  {
    type: "bridge",
    name: "Multichain",
    slug: "multichain",
    categories: ["lock-and-mint", "liquidity-network"],
    chains: ["ethereum", "bnb-chain", "avalanche-c-chain", "polygon-pos"],
    urls: {},
    external_ids: { defillama: "multichain", formerly: "Anyswap" },
    signer_count: 3,
    signing_threshold: 2,
    has_message_attestation: false,
    pause_mechanism: "Operated by MPC nodes under a single operator; ceased operating in July 2023.",
    validator_set_owner: null,
    about:
      "MPC bridge that ceased operating in July 2023. Inactive record; its ratings predate the service and are " +
      "kept as history.",
    is_active: false,
    created_at: "2025-10-01T09:00:00Z"
  },
  {
    type: "bridge",
    name: "Chainlink CCIP",
    slug: "chainlink-ccip",
    status: "approved",
    categories: ["messaging", "lock-and-mint"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet", "avalanche-c-chain"],
    urls: { website: "https://chain.link/cross-chain", docs: "https://docs.chain.link/ccip" },
    external_ids: { defillama: "chainlink-ccip" },
    signer_count: 16,
    signing_threshold: 11,
    has_message_attestation: true,
    pause_mechanism:
      "An independent Risk Management Network can curse a lane, halting it; rate limits cap value per lane.",
    validator_set_owner: null,
    about:
      "Cross-chain messaging and token transfers with a separate risk-management network. Approved, awaiting publication.",
    created_at: "2026-08-24T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [{}],
      dependencies: [{ type: "oracle", slug: "chainlink", exposure: 0.3 }]
    }
  },
  {
    type: "bridge",
    name: "LayerZero",
    slug: "layerzero",
    status: "scoring",
    categories: ["messaging"],
    chains: ["ethereum", "arbitrum-one", "base", "bnb-chain", "solana"],
    urls: { website: "https://layerzero.network", docs: "https://docs.layerzero.network" },
    external_ids: { defillama: "layerzero", coingecko: "layerzero" },
    signer_count: null,
    signing_threshold: null,
    has_message_attestation: true,
    pause_mechanism:
      "Each application configures its verifier networks and executor; pausing is up to the application's owner.",
    validator_set_owner: null,
    about:
      "Messaging protocol where each application chooses its verifier networks, so there is no fixed signing " +
      "set. Scoring in progress.",
    created_at: "2026-09-08T09:00:00Z",
    rating: { base: 0.7, versions: [{}], unknown: ["BRG-MSG-04"] }
  },
  {
    type: "bridge",
    name: "deBridge",
    slug: "debridge",
    status: "draft",
    is_private: true,
    categories: ["intent-based"],
    chains: ["ethereum", "arbitrum-one", "solana"],
    urls: { website: "https://debridge.finance" },
    external_ids: { defillama: "debridge" },
    signer_count: 12,
    signing_threshold: 8,
    has_message_attestation: true,
    pause_mechanism: "The deBridge governance multisig can pause the gate contracts on each chain.",
    validator_set_owner: null,
    about: "Intent-based transfers settled over a validator-signed messaging layer. Private draft.",
    created_at: "2026-10-12T09:00:00Z"
  }
]
