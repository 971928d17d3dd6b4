/**
 * Demo tokens, following the spec's token record field by field. Stablecoins
 * (category stablecoin) are scored on the extra peg_stability domain. Ether
 * is native (contract_address null); Jito Staked SOL is a draft carrying only
 * the required fields; EURC is being scored. Staked USDe is approved but
 * private; Fantom (migrated to Sonic) is an inactive draft.
 */
import type { TokenSpec } from "../DemoSpec.ts"

const stableChains = [
  "ethereum",
  "arbitrum-one",
  "base",
  "op-mainnet",
  "solana",
  "avalanche-c-chain",
  "polygon-pos"
]

export const Tokens: ReadonlyArray<TokenSpec> = [
  {
    type: "token",
    name: "USD Coin",
    symbol: "USDC",
    slug: "usdc",
    home: "ethereum",
    contract_address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    categories: ["stablecoin", "fiat-backed"],
    chains: stableChains,
    urls: { website: "https://www.circle.com/usdc", transparency: "https://www.circle.com/transparency" },
    external_ids: { coingecko: "usd-coin", defillama: "usd-coin" },
    about: "Fiat-backed stablecoin issued by Circle, natively on many chains.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.86,
      bias: { peg_stability: 0.06 },
      versions: [
        {
          publish: { at: "2026-02-04T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { compliance: 0.03 },
          publish: {
            at: "2026-06-09T10:00:00Z",
            reasoning: "Additional licences obtained; compliance re-scored.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "Tether USD",
    symbol: "USDT",
    slug: "usdt",
    home: "ethereum",
    contract_address: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
    categories: ["stablecoin", "fiat-backed"],
    chains: ["ethereum", "arbitrum-one", "solana", "avalanche-c-chain", "polygon-pos", "bnb-chain"],
    urls: { website: "https://tether.to", transparency: "https://tether.to/en/transparency/" },
    external_ids: { coingecko: "tether", defillama: "tether" },
    about: "The largest fiat-backed stablecoin by supply; reserves are attested, not audited.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.72,
      bias: { transparency: -0.15, compliance: -0.12, liquidity: 0.15 },
      versions: [
        {
          publish: { at: "2026-02-04T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { peg_stability: 0.06 },
          publish: {
            at: "2026-07-02T10:00:00Z",
            reasoning: "Share of cash and bills in reserves rose in the latest attestations.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "USDS",
    symbol: "USDS",
    slug: "usds",
    home: "ethereum",
    contract_address: "0xdC035D45d973E3EC169d2276DDab16f1e407384F",
    categories: ["stablecoin", "crypto-backed"],
    chains: ["ethereum", "base", "arbitrum-one", "solana"],
    urls: { website: "https://sky.money" },
    external_ids: { coingecko: "usds", defillama: "usds" },
    about: "Stablecoin of the Sky protocol, upgradeable from DAI.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [
        { publish: { at: "2026-02-25T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ]
    }
  },
  {
    type: "token",
    name: "Dai",
    symbol: "DAI",
    slug: "dai",
    home: "ethereum",
    contract_address: "0x6B175474E89094C44Da98b954EedeAC495271d0F",
    categories: ["stablecoin", "crypto-backed"],
    chains: ["ethereum", "arbitrum-one", "op-mainnet", "polygon-pos", "gnosis"],
    urls: { website: "https://sky.money" },
    external_ids: { coingecko: "dai", defillama: "dai" },
    about: "The original Maker stablecoin, still issued alongside USDS.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.77,
      versions: [
        {
          publish: { at: "2026-02-25T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" }
        },
        {
          shift: { liquidity: -0.05 },
          publish: {
            at: "2026-08-20T10:00:00Z",
            reasoning: "Liquidity migrated from DAI to USDS; liquidity re-scored downward.",
            actor: "analyst:s.nakamura"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "GHO",
    symbol: "GHO",
    slug: "gho",
    home: "ethereum",
    contract_address: "0x40D16FC0246aD3160Ccc09B8D0D3A2cD28aE6C2f",
    categories: ["stablecoin", "crypto-backed"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://aave.com/gho" },
    external_ids: { coingecko: "gho", defillama: "gho" },
    about: "Decentralised stablecoin minted against Aave collateral.",
    created_at: "2025-10-15T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        { publish: { at: "2026-03-10T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ]
    }
  },
  {
    type: "token",
    name: "Ethena USDe",
    symbol: "USDe",
    slug: "usde",
    home: "ethereum",
    contract_address: "0x4c9EDD5852cd905f086C759E8383e09bff1E68B3",
    categories: ["stablecoin", "synthetic"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://ethena.fi", docs: "https://docs.ethena.fi" },
    external_ids: { coingecko: "ethena-usde", defillama: "ethena-usde" },
    about: "Synthetic dollar backed by hedged crypto positions, not by cash.",
    created_at: "2025-11-03T09:00:00Z",
    rating: {
      base: 0.68,
      bias: { peg_stability: -0.1 },
      versions: [
        { publish: { at: "2026-03-17T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { peg_stability: -0.05 },
          publish: {
            at: "2026-09-02T10:00:00Z",
            reasoning:
              "A brief discount on secondary markets during negative funding; peg stability re-scored.",
            actor: "committee:ratings"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "PayPal USD",
    symbol: "PYUSD",
    slug: "pyusd",
    home: "ethereum",
    contract_address: "0x6c3ea9036406852006290770BEdFcAbA0e23A0e8",
    categories: ["stablecoin", "fiat-backed"],
    chains: ["ethereum", "solana"],
    urls: { website: "https://www.paypal.com/pyusd" },
    external_ids: { coingecko: "paypal-usd", defillama: "paypal-usd" },
    about: "Fiat-backed stablecoin issued by Paxos for PayPal.",
    created_at: "2025-11-24T09:00:00Z",
    rating: {
      base: 0.78,
      bias: { liquidity: -0.12 },
      versions: [
        { publish: { at: "2026-04-08T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ]
    }
  },
  {
    type: "token",
    name: "EURC",
    symbol: "EURC",
    slug: "eurc",
    status: "scoring",
    home: "ethereum",
    contract_address: "0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c",
    categories: ["stablecoin", "fiat-backed"],
    chains: ["ethereum", "base", "solana", "avalanche-c-chain"],
    urls: { website: "https://www.circle.com/eurc" },
    external_ids: { coingecko: "euro-coin" },
    about: "Euro stablecoin issued by Circle; scoring in progress.",
    created_at: "2026-09-14T09:00:00Z",
    rating: { base: 0.8, versions: [{}] }
  },
  {
    type: "token",
    name: "Ether",
    symbol: "ETH",
    slug: "eth",
    home: "ethereum",
    contract_address: null,
    categories: ["native", "gas-token"],
    chains: ["ethereum"],
    urls: { website: "https://ethereum.org/en/eth/" },
    external_ids: { coingecko: "ethereum" },
    about: "Native asset of Ethereum: it has no contract address.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.9,
      versions: [
        { publish: { at: "2026-01-13T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } }
      ],
      notApplicable: {
        "TOKEN-SEC-01": "A native asset has no token contract to audit.",
        "TOKEN-SEC-02": "Issuance is set by the protocol, with no admin mint.",
        "TOKEN-SEC-03": "A native asset has no token contract to upgrade.",
        "TOKEN-CMP-01": "There is no issuer to license.",
        "TOKEN-CMP-03": "There is no issuer to screen mints.",
        "TOKEN-CMP-06": "There is no primary issuance."
      }
    }
  },
  {
    type: "token",
    name: "Wrapped Bitcoin",
    symbol: "WBTC",
    slug: "wbtc",
    home: "ethereum",
    contract_address: "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599",
    categories: ["wrapped-asset"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://wbtc.network" },
    external_ids: { coingecko: "wrapped-bitcoin", defillama: "wrapped-bitcoin" },
    about: "Custodial wrapped Bitcoin on Ethereum.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.68,
      bias: { governance: -0.1 },
      versions: [
        { publish: { at: "2026-02-26T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:a.okafor" } },
        {
          shift: { transparency: 0.04 },
          publish: {
            at: "2026-06-29T10:00:00Z",
            reasoning: "Custodian proof-of-reserves published on a fixed schedule.",
            actor: "analyst:a.okafor"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "Lido Staked Ether",
    symbol: "stETH",
    slug: "steth",
    home: "ethereum",
    contract_address: "0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84",
    categories: ["lst"],
    chains: ["ethereum"],
    urls: { website: "https://lido.fi", docs: "https://docs.lido.fi" },
    external_ids: { coingecko: "staked-ether", defillama: "lido" },
    about: "Rebasing liquid-staking token of Lido (not a stablecoin, so no peg domain).",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.82,
      versions: [
        { publish: { at: "2026-02-27T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:r.mehta" } }
      ],
      fixed: { "TOKEN-SEC-06": 2 }
    }
  },
  {
    type: "token",
    name: "Chainlink",
    symbol: "LINK",
    slug: "link",
    home: "ethereum",
    contract_address: "0x514910771AF9Ca656af840dff83E8264EcF986CA",
    categories: ["utility"],
    chains: ["ethereum", "arbitrum-one", "base", "polygon-pos"],
    urls: { website: "https://chain.link" },
    external_ids: { coingecko: "chainlink" },
    about: "Token paying for and staking on Chainlink services.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [
        { publish: { at: "2026-03-05T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:s.nakamura" } }
      ]
    }
  },
  {
    type: "token",
    name: "Aave",
    symbol: "AAVE",
    slug: "aave",
    home: "ethereum",
    contract_address: "0x7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9",
    categories: ["governance"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://aave.com" },
    external_ids: { coingecko: "aave" },
    about: "Governance token of the Aave DAO.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [
        { publish: { at: "2026-03-05T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:l.ortega" } },
        {
          shift: { economic: 0.04 },
          publish: {
            at: "2026-07-16T10:00:00Z",
            reasoning: "Buybacks funded from protocol revenue became a standing programme.",
            actor: "analyst:l.ortega"
          }
        }
      ]
    }
  },
  {
    type: "token",
    name: "Uniswap",
    symbol: "UNI",
    slug: "uni",
    home: "ethereum",
    contract_address: "0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984",
    categories: ["governance"],
    chains: ["ethereum", "arbitrum-one", "base", "op-mainnet"],
    urls: { website: "https://uniswap.org" },
    external_ids: { coingecko: "uniswap" },
    about: "Governance token of the Uniswap DAO.",
    created_at: "2025-10-01T09:00:00Z",
    rating: {
      base: 0.76,
      versions: [
        {
          publish: { at: "2026-03-06T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:j.lindqvist" }
        }
      ]
    }
  },
  {
    type: "token",
    name: "Jito Staked SOL",
    symbol: "JitoSOL",
    slug: "jitosol",
    status: "draft",
    home: "solana",
    minimal: true,
    categories: [],
    about: "",
    created_at: "2026-10-19T09:00:00Z",
    rating: { base: 0.74, versions: [{}] }
  },
  {
    type: "token",
    name: "Staked USDe",
    symbol: "sUSDe",
    slug: "susde",
    status: "approved",
    is_private: true,
    home: "ethereum",
    contract_address: "0x9D39A5DE30e57443BfF2A8307A4256c8797A3497",
    categories: ["yield-bearing", "synthetic"],
    chains: ["ethereum", "arbitrum-one", "base"],
    urls: { website: "https://ethena.fi", docs: "https://docs.ethena.fi" },
    external_ids: { coingecko: "ethena-staked-usde" },
    about:
      "Staked USDe, accruing the protocol's yield. Approved; private until the issuer has seen the findings.",
    created_at: "2026-09-29T09:00:00Z",
    rating: { base: 0.64, versions: [{}], dependencies: [{ type: "token", slug: "usde", exposure: 1 }] }
  },
  {
    type: "token",
    name: "Fantom",
    symbol: "FTM",
    slug: "ftm",
    status: "draft",
    is_active: false,
    home: "ethereum",
    contract_address: "0x4E15361FD6b4BB609Fa63C81A2be19d873717870",
    categories: ["governance"],
    chains: ["ethereum"],
    urls: { website: "https://www.soniclabs.com" },
    external_ids: { coingecko: "fantom", coingecko_note_successor: "sonic-3" },
    about:
      "Fantom's token, migrated to Sonic (S). Inactive draft: the record was retired before it was scored.",
    created_at: "2026-01-12T09:00:00Z"
  }
]
