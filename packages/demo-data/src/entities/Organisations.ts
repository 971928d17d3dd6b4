/**
 * Demo organisations: vault curators and risk managers, and the operators of
 * bridge validator sets, both unpublished (spec: an owner does not resolve
 * under /organisations). Wormhole Guardian Network is a private draft, so its
 * bridge serves validator_set_owner null; Axelar Validator Set, being scored,
 * is public, so the Axelar bridge names it. Re7 Labs has no client
 * engagements (a question ruled out); Chaos Labs is approved but inactive.
 */
import type { OrganisationSpec } from "../DemoSpec.ts"

export const Organisations: ReadonlyArray<OrganisationSpec> = [
  {
    type: "organisation",
    name: "Gauntlet",
    slug: "gauntlet",
    categories: ["curator", "risk-manager"],
    chains: ["ethereum", "base", "arbitrum-one"],
    urls: { website: "https://www.gauntlet.xyz", docs: "https://docs.gauntlet.xyz" },
    external_ids: { defillama: "gauntlet", coingecko_note: "No token (checked 2026-01-30)." },
    about: "Risk manager and vault curator.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.84,
      versions: [
        { publish: { at: "2026-02-02T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { transparency: 0.03 },
          publish: {
            at: "2026-06-10T10:00:00Z",
            reasoning: "Monthly curator reports now cover every managed vault.",
            actor: "analyst:k.adeyemi"
          }
        }
      ]
    }
  },
  {
    type: "organisation",
    name: "Steakhouse Financial",
    slug: "steakhouse-financial",
    categories: ["curator"],
    chains: ["ethereum", "base"],
    urls: { website: "https://www.steakhouse.financial" },
    external_ids: { defillama: "steakhouse-financial" },
    about: "Financial advisory firm curating lending and restaking vaults.",
    created_at: "2025-11-10T09:00:00Z",
    rating: {
      base: 0.82,
      versions: [
        { publish: { at: "2026-02-02T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { operational: 0.06 },
          publish: {
            at: "2026-06-10T11:00:00Z",
            reasoning: "Signer procedures documented and rehearsed.",
            actor: "analyst:k.adeyemi"
          }
        }
      ]
    }
  },
  {
    type: "organisation",
    name: "Re7 Labs",
    slug: "re7-labs",
    categories: ["curator"],
    chains: ["ethereum"],
    urls: { website: "https://re7.capital" },
    external_ids: { defillama: "re7-labs" },
    about: "Research firm curating lending vaults.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.72,
      versions: [
        { publish: { at: "2026-02-09T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } }
      ],
      notApplicable: {
        "ORG-TRK-05":
          "Re7 curates permissionless vaults it deploys itself; it holds no client or DAO engagements."
      }
    }
  },
  {
    type: "organisation",
    name: "MEV Capital",
    slug: "mev-capital",
    categories: ["curator"],
    chains: ["ethereum"],
    urls: { website: "https://mevcapital.com" },
    external_ids: { defillama: "mev-capital", crm_account: "ACC-0147" },
    about: "Curator of higher-yield lending vaults.",
    created_at: "2025-11-17T09:00:00Z",
    rating: {
      base: 0.68,
      versions: [
        { publish: { at: "2026-02-09T11:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } },
        {
          shift: { track_record: -0.12 },
          publish: {
            at: "2026-08-27T10:00:00Z",
            reasoning:
              "A managed vault took a loss on a depegged collateral; track record re-scored downward.",
            actor: "committee:ratings"
          }
        }
      ]
    }
  },
  {
    type: "organisation",
    name: "Block Analitica",
    slug: "block-analitica",
    categories: ["curator", "risk-manager"],
    chains: ["ethereum"],
    urls: { website: "https://blockanalitica.com" },
    external_ids: { defillama: "block-analitica" },
    about: "Risk analytics firm and vault curator.",
    created_at: "2025-11-24T09:00:00Z",
    rating: {
      base: 0.78,
      versions: [
        { publish: { at: "2026-02-16T10:00:00Z", reasoning: "Initial rating.", actor: "analyst:k.adeyemi" } }
      ]
    }
  },
  {
    type: "organisation",
    name: "LlamaRisk",
    slug: "llamarisk",
    status: "scoring",
    categories: ["risk-manager"],
    urls: { website: "https://www.llamarisk.com" },
    external_ids: {},
    about: "Risk research collective; scoring in progress.",
    created_at: "2026-08-03T09:00:00Z",
    rating: { base: 0.76, versions: [{}] }
  },
  {
    type: "organisation",
    name: "Wormhole Guardian Network",
    slug: "wormhole-guardian-network",
    status: "draft",
    is_private: true,
    categories: ["validator-set-operator"],
    urls: { docs: "https://wormhole.com/docs/protocol/infrastructure/guardians/" },
    external_ids: {
      defillama_note: "Not listed: the guardian set is not a DeFi protocol (checked 2026-03-02)."
    },
    about:
      "The 19 guardians that sign Wormhole messages. Private draft: referenced as the Wormhole bridge's " +
      "validator set owner before it is published.",
    created_at: "2026-03-02T09:00:00Z",
    rating: { base: 0.74, versions: [{}], unknown: ["ORG-GOV-03", "ORG-TRN-05"] }
  },
  {
    type: "organisation",
    name: "Chaos Labs",
    slug: "chaos-labs",
    status: "approved",
    is_active: false,
    categories: ["risk-manager"],
    chains: ["ethereum", "arbitrum-one"],
    urls: { website: "https://chaoslabs.xyz" },
    external_ids: { defillama_note: "Not listed: a risk manager, not a protocol (checked 2026-05-11)." },
    about:
      "Risk manager for lending protocols. Approved, then set inactive: it no longer manages risk for a " +
      "protocol the service rates.",
    created_at: "2026-05-11T09:00:00Z",
    rating: {
      base: 0.8,
      versions: [{}],
      notApplicable: {
        "ORG-TRK-04": "It manages no assets of its own: it advises the protocols that hold them."
      }
    }
  },
  {
    type: "organisation",
    name: "Axelar Validator Set",
    slug: "axelar-validator-set",
    status: "scoring",
    categories: ["validator-set-operator"],
    urls: { docs: "https://docs.axelar.dev/validator/setup/overview" },
    external_ids: {},
    about:
      "The proof-of-stake validators that sign Axelar's cross-chain messages. Being scored: the Axelar bridge " +
      "names it as its validator set owner, yet it does not resolve under /organisations until it is published.",
    created_at: "2026-07-14T09:00:00Z",
    rating: {
      base: 0.7,
      versions: [{}],
      notApplicable: { "ORG-TRK-04": "A validator set manages no assets under management." }
    }
  }
]
