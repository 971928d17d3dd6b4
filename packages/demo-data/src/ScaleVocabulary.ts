/**
 * Word lists and category mixes for the scale generator: enough variety that
 * a benchmark dataset looks like a ratings catalogue (names, categories,
 * chain kinds) without pretending to be real entities.
 */
import type { EntityType } from "@ratings/domain/model/EntityType"

export const NameStems: ReadonlyArray<string> = [
  "Aster",
  "Nova",
  "Lumen",
  "Orbit",
  "Helix",
  "Vertex",
  "Quanta",
  "Zephyr",
  "Cobalt",
  "Ember",
  "Atlas",
  "Solace",
  "Tidal",
  "Kite",
  "Prism",
  "Nimbus",
  "Onyx",
  "Aurora",
  "Beacon",
  "Cinder",
  "Drift",
  "Echo",
  "Flux",
  "Granite",
  "Harbor",
  "Ion",
  "Juniper",
  "Krypton",
  "Lattice",
  "Meridian",
  "Nectar",
  "Obsidian",
  "Pioneer",
  "Quill",
  "Radiant",
  "Sable",
  "Tundra",
  "Umbra",
  "Vela",
  "Willow"
]

export const NameTails: ReadonlyArray<string> = [
  "",
  "fi",
  "x",
  "labs",
  "protocol",
  "dao",
  "core",
  "one",
  "prime",
  "verse"
]

export const TypeWords: { readonly [T in EntityType]: ReadonlyArray<string> } = {
  protocol: [
    "Lend",
    "Swap",
    "Finance",
    "Yield",
    "Perps",
    "Markets",
    "Exchange",
    "Credit",
    "Stake",
    "Options"
  ],
  chain: ["Chain", "Network", "Rollup", "L2", "Mainnet"],
  token: ["Dollar", "Token", "Coin", "Staked ETH", "Wrapped BTC"],
  oracle: ["Oracle", "Feeds", "Data", "Price Network"],
  vault: ["USDC Vault", "WETH Vault", "Prime Vault", "Yield Vault", "Restaking Vault"],
  organisation: ["Capital", "Risk", "Research", "Advisors", "Partners"],
  bridge: ["Bridge", "Portal", "Link", "Gateway", "Relay"]
}

/** Entity mix of a generated dataset: mostly protocols, like a real ratings catalogue. */
export const TypeShares: ReadonlyArray<readonly [EntityType, number]> = [
  ["chain", 0.02],
  ["oracle", 0.02],
  ["organisation", 0.03],
  ["token", 0.06],
  ["protocol", 0.8],
  ["vault", 0.05],
  ["bridge", 0.02]
]

export const ProtocolCategories: ReadonlyArray<string> = [
  "lending",
  "lending",
  "lending",
  "dex",
  "dex",
  "dex",
  "yield",
  "perps",
  "cdp",
  "liquid-staking",
  "restaking",
  "dex-aggregator",
  "options",
  "insurance",
  "rwa",
  "synthetic-dollar"
]

export const ChainKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["l1", "evm"],
  ["l1", "evm"],
  ["l2", "optimistic-rollup", "evm"],
  ["l2", "optimistic-rollup", "evm"],
  ["l2", "zk-rollup", "evm"],
  ["l1", "svm"],
  ["l1", "move"]
]

export const TokenKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["stablecoin", "fiat-backed"],
  ["stablecoin", "crypto-backed"],
  ["governance"],
  ["governance"],
  ["utility"],
  ["wrapped-asset"],
  ["lst"]
]

export const OracleKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["price-feeds"],
  ["price-feeds"],
  ["optimistic"],
  ["first-party"],
  ["randomness"]
]

export const VaultKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["lending"],
  ["lending", "stablecoin"],
  ["lending", "stablecoin"],
  ["yield"],
  ["lending", "lst"],
  ["restaking", "lrt"]
]

export const OrganisationKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["curator"],
  ["curator", "risk-manager"],
  ["risk-manager"],
  ["validator-set-operator"]
]

export const BridgeKinds: ReadonlyArray<ReadonlyArray<string>> = [
  ["messaging"],
  ["messaging", "lock-and-mint"],
  ["lock-and-mint"],
  ["liquidity-network"],
  ["liquidity-network", "messaging"],
  ["intent-based"],
  ["light-client", "messaging"]
]
