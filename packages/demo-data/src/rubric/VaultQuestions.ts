/**
 * Vault rubric of the demo dataset: 40 questions over the five vault domains
 * and staking, the extra domain of LST/LRT vaults (spec part 1 rule 7).
 */
import type { TypeRubric } from "./RubricRows.ts"

export const VaultRubric: TypeRubric = {
  entity_type: "vault",
  prefix: "VAULT",
  domains: [
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          3,
          "Are the vault contracts and the framework they are built on audited?",
          "Not audited",
          "Framework audited, vault-specific code not",
          "Framework and vault-specific code audited"
        ],
        [
          3,
          "Can the curator or owner move deposits to arbitrary addresses?",
          "Yes",
          "Only to whitelisted markets, whitelist changeable at once",
          "Only to whitelisted markets behind a timelock"
        ],
        [
          2,
          "Are allocation changes subject to a timelock depositors can observe?",
          "No timelock",
          "Under 24 hours",
          "24 hours or more"
        ],
        [
          2,
          "Is there a guardian that can veto curator actions?",
          "No guardian",
          "A guardian controlled by the curator",
          "An independent guardian"
        ],
        [
          2,
          "Are the owner and curator roles held by multisigs with independent signers?",
          "Single keys",
          "Multisigs of one organisation",
          "Multisigs with independent signers"
        ],
        [
          1,
          "Is the share price protected against donation and inflation attacks?",
          "Unprotected",
          "Partly protected",
          "Protected (virtual shares or a seeded deposit)"
        ],
        [
          1,
          "Has the vault or its framework been exploited?",
          "Yes, with losses",
          "Yes, without losses",
          "Never"
        ],
        [
          1,
          "Are the underlying markets' contracts immutable or timelocked?",
          "Upgradeable at once",
          "Timelocked",
          "Immutable"
        ]
      ]
    },
    {
      domain: "strategy",
      code: "STR",
      rows: [
        [
          3,
          "Is the strategy documented, including which markets and assets it may allocate to?",
          "Undocumented",
          "Described in general terms",
          "Documented with an explicit list of permitted markets"
        ],
        [
          3,
          "What share of deposits can go to a single market or collateral type?",
          "No limit",
          "Up to 75 percent",
          "At most 40 percent"
        ],
        [
          2,
          "Are the collateral assets of underlying markets liquid and robustly priced?",
          "Illiquid or poorly priced collateral",
          "Mixed",
          "Liquid collateral with robust oracles"
        ],
        [
          2,
          "Is leverage or looping used, and is it bounded?",
          "Unbounded leverage",
          "Bounded leverage",
          "No leverage"
        ],
        [
          2,
          "How has net yield compared with the stated benchmark over six months?",
          "Far below, or not reported",
          "Close to the benchmark",
          "At or above the benchmark with lower risk"
        ],
        [1, "Are markets with bad-debt exposure excluded or capped?", "No", "Capped", "Excluded"],
        [
          1,
          "Is rebalancing governed by documented rules rather than discretion?",
          "Fully discretionary",
          "Partly rule-based",
          "Rule-based"
        ],
        [
          1,
          "Does the yield rely on incentives that may end?",
          "Mostly incentives",
          "Partly incentives",
          "Organic yield"
        ]
      ]
    },
    {
      domain: "curator",
      code: "CUR",
      rows: [
        [
          3,
          "Does the curator have a track record of managing vaults without losses?",
          "Losses in managed vaults",
          "Short record without losses",
          "Long record without losses"
        ],
        [
          2,
          "Does the curator publish a risk framework for selecting markets?",
          "No",
          "General principles only",
          "A detailed framework"
        ],
        [
          2,
          "Are the curator's team and legal entity public?",
          "Anonymous",
          "Entity public, team anonymous",
          "Both public"
        ],
        [
          1,
          "Does the curator manage conflicts of interest (own tokens, paid listings)?",
          "Undisclosed conflicts",
          "Disclosed conflicts",
          "No material conflicts, with a policy"
        ],
        [
          1,
          "Has the curator responded to market stress within hours, with evidence?",
          "Slow or no response",
          "Response within a day",
          "Response within hours, documented"
        ],
        [
          1,
          "Is the curator's fee structure disclosed and aligned with depositors?",
          "Undisclosed",
          "Disclosed",
          "Disclosed and performance-aligned"
        ]
      ]
    },
    {
      domain: "liquidity",
      code: "LIQ",
      rows: [
        [
          3,
          "What share of deposits can be withdrawn immediately under normal conditions?",
          "Under 20 percent",
          "Between 20 and 60 percent",
          "Over 60 percent"
        ],
        [
          2,
          "Did withdrawals stay available during past utilisation spikes?",
          "Blocked for days",
          "Delayed for hours",
          "Stayed available"
        ],
        [
          2,
          "Are withdrawal queues or delays documented?",
          "Undocumented",
          "Partly documented",
          "Documented with expected times"
        ],
        [
          1,
          "Is the vault share token liquid on secondary markets?",
          "No market",
          "Thin market",
          "Liquid market"
        ],
        [
          1,
          "Are there deposit caps that limit concentration?",
          "No caps",
          "Loose caps",
          "Caps reviewed regularly"
        ],
        [
          1,
          "Does a single depositor hold more than 25 percent of the vault?",
          "Yes, over 50 percent",
          "Between 25 and 50 percent",
          "No"
        ]
      ]
    },
    {
      domain: "transparency",
      code: "TRN",
      rows: [
        [
          2,
          "Are current allocations visible on-chain and in the interface?",
          "Hidden",
          "On-chain only",
          "On-chain and in the interface"
        ],
        [2, "Are curator actions announced with their rationale?", "Never", "Sometimes", "Always"],
        [
          1,
          "Is performance reported with a stated methodology?",
          "Not reported",
          "Reported without methodology",
          "Reported with methodology"
        ],
        [
          1,
          "Are risks specific to the vault disclosed to depositors?",
          "No",
          "Generic disclosure",
          "Vault-specific disclosure"
        ],
        [1, "Are fee changes announced before they take effect?", "No", "Sometimes", "Always"],
        [1, "Is the list of permitted markets published and kept current?", "No", "Outdated", "Current"]
      ]
    },
    {
      domain: "staking",
      code: "STK",
      rows: [
        [
          3,
          "How are validators selected, and how concentrated is stake among node operators?",
          "One operator",
          "A few operators, curated",
          "Many operators under a published selection process"
        ],
        [
          3,
          "What is the slashing exposure, and is it insured or socialised transparently?",
          "Unbounded and uninsured",
          "Bounded, socialised",
          "Bounded, with a cover fund or insurance"
        ],
        [
          2,
          "How long do withdrawals take in normal and stressed conditions?",
          "Weeks, unpredictable",
          "Days",
          "Hours, or instant through deep liquidity"
        ],
        [
          2,
          "For restaking: to how many AVSs is stake delegated, and are their slashing conditions reviewed?",
          "Many AVSs, unreviewed",
          "Some AVSs, partly reviewed",
          "Few AVSs, all reviewed"
        ],
        [
          1,
          "Is the exchange-rate oracle of the LST or LRT robust against manipulation?",
          "Market price only",
          "Exchange rate, updated rarely",
          "Exchange rate with bounds and frequent updates"
        ],
        [
          1,
          "Is validator performance (uptime, missed attestations) published?",
          "No",
          "Aggregated",
          "Per operator"
        ]
      ]
    }
  ]
}
