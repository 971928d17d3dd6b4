/**
 * A SAMPLE quantum-readiness snapshot in the upstream (LayerQu) row format.
 * The figures are made up for the demo and are not LayerQu's data. Rows match
 * every service chain but Plasma and Katana, which the source has not assessed
 * (drafts, unrated and inactive ones included; some only by name, as OP
 * Mainnet and BNB Chain do), many rows match no service chain,
 * one row has no reading at all, one omits the danger flag, and a few rows are
 * malformed so that the snapshot's rows_skipped is non-zero.
 */

export const QuantumAsOf = "2026-11-02T06:00:00Z"

/** slug, name, profile, qri (null when not assessed), stage, hybrid, danger, ci. */
type Row = readonly [
  string,
  string,
  string,
  number | null,
  number | null,
  string,
  boolean | null,
  number | null
]

const BandLabels = [
  "Exposed",
  "Acknowledged",
  "Researching",
  "Planning",
  "Migrating",
  "Hybrid",
  "Quantum-safe"
]

/** Bands split 0-100 into seven equal steps: a QRI of 25 is band 2, as the source shows for Ethereum. */
export const bandOf = (qri: number): number => Math.min(7, Math.floor(qri / (100 / 7)) + 1)

const rows: ReadonlyArray<Row> = [
  // Service chains (matched by slug or, for some, only by name).
  ["ethereum", "Ethereum", "L1", 25, 2, "FAIL", false, 5],
  ["arbitrum", "Arbitrum One", "L2", 18, 1, "FAIL", false, 6],
  ["optimism", "OP Mainnet", "L2", 17, 1, "FAIL", false, 6],
  ["base", "Base", "L2", 16, 1, "FAIL", false, 6],
  ["zksync", "ZKsync Era", "L2", 22, 2, "FAIL", false, 7],
  ["linea", "Linea", "L2", 15, 1, "FAIL", false, 7],
  ["scroll", "Scroll", "L2", 19, 1, "FAIL", false, 7],
  ["starknet", "Starknet", "L2", 34, 2, "PARTIAL", false, 8],
  ["polygon", "Polygon PoS", "L1", 21, 1, "FAIL", false, 6],
  ["bsc", "BNB Chain", "L1", 12, 1, "FAIL", true, 6],
  ["avalanche", "Avalanche C-Chain", "L1", 20, 1, "FAIL", false, 7],
  ["solana", "Solana", "L1", 27, 2, "PARTIAL", false, 6],
  ["gnosis", "Gnosis Chain", "L1", 23, 1, "FAIL", false, 8],
  ["polygon-zkevm", "Polygon zkEVM", "L2", 14, 1, "FAIL", false, 9],
  ["mantle", "Mantle", "L2", 13, 1, "FAIL", false, 9],
  ["berachain", "Berachain", "L1", 11, 0, "FAIL", false, 10],
  ["monad", "Monad", "L1", 10, 0, "FAIL", false, 12],
  // Chains the service does not hold.
  ["bitcoin", "Bitcoin", "L1", 21, 1, "FAIL", true, 5],
  ["cardano", "Cardano", "L1", 38, 2, "PARTIAL", false, 7],
  ["polkadot", "Polkadot", "L0", 36, 2, "FAIL", false, 7],
  ["near", "NEAR Protocol", "L1", 30, 2, "FAIL", false, 8],
  ["cosmos-hub", "Cosmos Hub", "L1", 26, 2, "FAIL", false, 8],
  ["tron", "TRON", "L1", 9, 0, "FAIL", true, 9],
  ["xrp-ledger", "XRP Ledger", "L1", 33, 2, "PARTIAL", false, 7],
  ["stellar", "Stellar", "L1", 29, 2, "FAIL", false, 8],
  ["algorand", "Algorand", "L1", 64, 4, "PASS", false, 6],
  ["tezos", "Tezos", "L1", 31, 2, "FAIL", false, 8],
  ["hedera", "Hedera", "L1", 28, 2, "FAIL", false, 8],
  ["litecoin", "Litecoin", "L1", 14, 0, "FAIL", true, 9],
  ["dogecoin", "Dogecoin", "L1", 8, 0, "FAIL", true, 10],
  ["bitcoin-cash", "Bitcoin Cash", "L1", 10, 0, "FAIL", true, 10],
  ["monero", "Monero", "L1", 24, 1, "FAIL", false, 9],
  ["zcash", "Zcash", "L1", 35, 2, "PARTIAL", false, 8],
  ["ethereum-classic", "Ethereum Classic", "L1", 7, 0, "FAIL", true, 11],
  ["kaspa", "Kaspa", "L1", 16, 1, "FAIL", false, 10],
  ["internet-computer", "Internet Computer", "L1", 40, 3, "PARTIAL", false, 8],
  ["filecoin", "Filecoin", "L1", 19, 1, "FAIL", false, 9],
  ["ton", "TON", "L1", 17, 1, "FAIL", false, 9],
  ["sui", "Sui", "L1", 44, 3, "PARTIAL", false, 7],
  ["aptos", "Aptos", "L1", 46, 3, "PARTIAL", false, 7],
  ["sei", "Sei", "L1", 15, 1, "FAIL", false, 10],
  ["injective", "Injective", "L1", 18, 1, "FAIL", false, 10],
  ["celestia", "Celestia", "DA", 27, 2, "FAIL", false, 9],
  ["osmosis", "Osmosis", "L1", 22, 1, "FAIL", false, 9],
  ["kava", "Kava", "L1", 12, 0, "FAIL", false, 11],
  ["cronos", "Cronos", "L1", 11, 0, "FAIL", false, 11],
  ["celo", "Celo", "L2", 20, 1, "FAIL", false, 9],
  ["moonbeam", "Moonbeam", "L1", 19, 1, "FAIL", false, 10],
  ["kaia", "Kaia", "L1", 13, 0, "FAIL", false, 11],
  ["iota", "IOTA", "L1", 41, 3, "PARTIAL", false, 8],
  ["vechain", "VeChain", "L1", 14, 0, "FAIL", false, 11],
  ["multiversx", "MultiversX", "L1", 21, 1, "FAIL", false, 10],
  ["flow", "Flow", "L1", 23, 1, "FAIL", false, 10],
  ["hyperliquid", "Hyperliquid L1", "L1", 12, 1, "FAIL", false, 10],
  ["fantom", "Fantom Opera", "L1", 9, 0, "FAIL", true, 12],
  ["sonic", "Sonic", "L1", 14, 1, "FAIL", false, 11],
  ["blast", "Blast", "L2", 11, 0, "FAIL", false, 11],
  ["mode", "Mode", "L2", 12, 0, "FAIL", false, 11],
  ["zora", "Zora", "L2", 12, 0, "FAIL", false, 11],
  ["manta-pacific", "Manta Pacific", "L2", 10, 0, "FAIL", false, 12],
  ["metis", "Metis Andromeda", "L2", 11, 0, "FAIL", false, 12],
  ["taiko", "Taiko Alethia", "L2", 17, 1, "FAIL", false, 10],
  ["fraxtal", "Fraxtal", "L2", 13, 0, "FAIL", false, 11],
  ["unichain", "Unichain", "L2", 16, 1, "FAIL", false, 10],
  ["ink", "Ink", "L2", 14, 1, "FAIL", false, 11],
  ["world-chain", "World Chain", "L2", 15, 1, "FAIL", false, 11],
  ["soneium", "Soneium", "L2", 13, 0, "FAIL", false, 12],
  ["ronin", "Ronin", "L1", 10, 0, "FAIL", true, 12],
  ["immutable-zkevm", "Immutable zkEVM", "L2", 15, 1, "FAIL", false, 11],
  ["arbitrum-nova", "Arbitrum Nova", "L2", 14, 1, "FAIL", false, 11],
  ["opbnb", "opBNB", "L2", 9, 0, "FAIL", false, 12],
  ["rootstock", "Rootstock", "L2", 18, 1, "FAIL", true, 10],
  ["stacks", "Stacks", "L2", 20, 1, "FAIL", false, 10],
  ["flare", "Flare", "L1", 16, 1, "FAIL", false, 11],
  ["qrl", "QRL", "L1", 93, 5, "PASS", false, 4],
  ["abstract", "Abstract", "L2", null, null, "UNKNOWN", null, null]
]

const toUpstream = ([slug, name, profile, qri, stage, hybrid, danger, ci]: Row): Record<string, unknown> =>
  qri === null
    ? {
        slug,
        name,
        profile,
        qri: null,
        band: null,
        band_label: null,
        stage: null,
        hybrid,
        danger: null,
        ci: null
      }
    : {
        slug,
        name,
        profile,
        qri,
        band: bandOf(qri),
        band_label: BandLabels[bandOf(qri) - 1]!,
        stage,
        hybrid,
        danger,
        ci
      }

/** Rows the upstream got wrong; each must be skipped and counted, not cost the table. */
export const MalformedQuantumRows: ReadonlyArray<unknown> = [
  { slug: "mystery-chain", name: "Mystery Chain", profile: "L1", qri: 48, band: 9, stage: 3, hybrid: "FAIL" },
  { name: "Nameless Rollup", profile: "L2", qri: 12, band: 1, stage: 0, hybrid: "FAIL" },
  { slug: "typo-chain", name: "Typo Chain", profile: "L1", qri: "high", band: 4, stage: 2, hybrid: "FAIL" },
  null
]

export const QuantumSampleRows: ReadonlyArray<unknown> = [
  ...rows.map(toUpstream),
  // The source stopped publishing `danger` for some rows: absent, it reads as null, and the row stays.
  {
    slug: "berachain-bartio",
    name: "Berachain bArtio (testnet)",
    profile: "L1",
    qri: 9,
    band: 1,
    band_label: "Exposed",
    stage: 0,
    hybrid: "FAIL",
    ci: 14
  },
  ...MalformedQuantumRows
]
