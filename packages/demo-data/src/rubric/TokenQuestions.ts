/**
 * Token rubric of the demo dataset: 42 questions over the six token domains
 * and peg_stability, the extra domain of stablecoins (spec part 1 rule 7).
 */
import type { TypeRubric } from "./RubricRows.ts"

export const TokenRubric: TypeRubric = {
  entity_type: "token",
  prefix: "TOKEN",
  domains: [
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          3,
          "Is the token contract audited, and is the audited version the one deployed?",
          "Not audited",
          "Audited, but the deployed version differs",
          "Audited, and the deployed bytecode matches the audited version"
        ],
        [
          3,
          "Can an admin mint arbitrary supply, and under what controls?",
          "A single key can mint without limit",
          "A multisig can mint, without rate limits",
          "No discretionary mint, or mint bounded by backing and rate limits"
        ],
        [
          2,
          "Is the token contract upgradeable, and behind what timelock?",
          "Upgradeable immediately by a single key",
          "Upgradeable by a multisig with a short timelock",
          "Immutable, or upgradeable only behind a long timelock"
        ],
        [
          2,
          "Can an admin freeze, blacklist or seize balances?",
          "Yes, by a single key, without published policy",
          "Yes, under a published policy",
          "No"
        ],
        [
          2,
          "Are bridged representations of the token canonical and secured by audited bridges?",
          "Many unofficial bridged versions in use",
          "Official bridges with weak security",
          "Native issuance on each chain, or audited canonical bridges"
        ],
        [
          1,
          "Does the token follow the standard interface without fee-on-transfer or rebasing surprises?",
          "Non-standard behaviour, undocumented",
          "Non-standard behaviour, documented",
          "Standard behaviour"
        ],
        [
          1,
          "Has the token contract ever been exploited or minted without authorisation?",
          "Yes, without remediation",
          "Yes, remediated",
          "Never"
        ]
      ]
    },
    {
      domain: "economic",
      code: "ECON",
      rows: [
        [
          3,
          "Is the supply schedule fixed and public, including insider unlocks?",
          "No public schedule",
          "Public but changeable at will",
          "Public, and changeable only by governance"
        ],
        [
          2,
          "What share of supply do the top 10 holders control, excluding contracts and exchanges?",
          "Over 60 percent",
          "Between 30 and 60 percent",
          "Under 30 percent"
        ],
        [
          2,
          "Is value accrual to holders explicit (fees, buybacks, staking yield) and sustained?",
          "None",
          "Explicit but small or intermittent",
          "Explicit and sustained"
        ],
        [
          2,
          "Do insider unlocks in the next 12 months exceed 10 percent of circulating supply?",
          "Over 25 percent",
          "Between 10 and 25 percent",
          "Under 10 percent"
        ],
        [
          2,
          "Where the token is used as lending collateral, are its parameters conservative?",
          "High loan-to-value on thin liquidity",
          "Moderate parameters",
          "Conservative parameters with caps"
        ],
        [
          1,
          "Is inflation from emissions offset by real demand?",
          "High inflation, little demand",
          "Partly offset",
          "Fully offset, or no inflation"
        ],
        [
          1,
          "Has the market value fallen more than 80 percent from its peak within 12 months?",
          "Yes",
          "Between 50 and 80 percent",
          "Less than 50 percent"
        ]
      ]
    },
    {
      domain: "liquidity",
      code: "LIQ",
      rows: [
        [
          3,
          "What sell size moves the price by 2 percent on the deepest on-chain venue?",
          "Under USD 100k",
          "Between USD 100k and USD 5M",
          "Over USD 5M"
        ],
        [
          2,
          "Is liquidity spread across several venues and chains?",
          "One venue",
          "A few venues on one chain",
          "Many venues on several chains"
        ],
        [
          2,
          "Is on-chain liquidity owned by the protocol or rented through incentives?",
          "Fully rented",
          "Partly owned",
          "Mostly organic or protocol-owned"
        ],
        [
          2,
          "Is the token listed on at least two major centralised exchanges?",
          "No listing",
          "One major listing",
          "Two or more major listings"
        ],
        [
          1,
          "Is daily volume consistently above 1 percent of market capitalisation?",
          "Rarely",
          "Sometimes",
          "Consistently"
        ],
        [1, "Did liquidity hold up in past market stress?", "It vanished", "It thinned but held", "It held"]
      ]
    },
    {
      domain: "governance",
      code: "GOV",
      rows: [
        [
          2,
          "Who controls the admin roles of the token contract?",
          "A single key",
          "A multisig of the issuer",
          "Public governance or no admin roles"
        ],
        [
          2,
          "Are changes to token parameters subject to public governance and a timelock?",
          "No",
          "One of the two",
          "Both"
        ],
        [
          2,
          "Is the issuer's or DAO's decision process documented?",
          "Undocumented",
          "Partly documented",
          "Fully documented"
        ],
        [
          1,
          "Is delegation available and used by independent delegates?",
          "No delegation",
          "Delegation with few delegates",
          "Active independent delegates"
        ],
        [
          1,
          "Are conflicts between the issuer and holders disclosed?",
          "Not disclosed",
          "Partly disclosed",
          "Disclosed"
        ],
        [
          1,
          "Is there a plan for a compromise of the admin keys?",
          "No plan",
          "Informal plan",
          "Documented, rehearsed plan"
        ]
      ]
    },
    {
      domain: "transparency",
      code: "TRN",
      rows: [
        [
          2,
          "Are the contract addresses on every chain published by the issuer?",
          "Not published",
          "Published for some chains",
          "Published for every chain"
        ],
        [
          2,
          "Is circulating supply reported and reconcilable on-chain?",
          "Not reported",
          "Reported, not reconcilable",
          "Reported and reconcilable"
        ],
        [
          1,
          "Are the issuer's legal entity and jurisdiction public?",
          "Unknown",
          "Entity known, jurisdiction unclear",
          "Both public"
        ],
        [
          2,
          "Is any backing attested by an independent firm?",
          "Claimed backing without attestation",
          "Attested irregularly",
          "Attested regularly, or no backing is claimed"
        ],
        [
          1,
          "Are material events (large mints and burns, admin changes) announced?",
          "Never",
          "Sometimes",
          "Always"
        ]
      ]
    },
    {
      domain: "compliance",
      code: "CMP",
      rows: [
        [
          2,
          "Is the issuer licensed or registered where it serves users?",
          "Unlicensed where licences are required",
          "Licensed in some jurisdictions",
          "Licensed wherever required"
        ],
        [
          2,
          "Is the token's regulatory classification addressed in a public legal opinion?",
          "Not addressed",
          "Addressed informally",
          "Public legal opinion"
        ],
        [
          1,
          "Does the issuer screen mints and redemptions against sanctions lists?",
          "No screening",
          "Partial screening",
          "Full screening"
        ],
        [
          1,
          "Has the issuer faced enforcement action in the last 36 months?",
          "Yes, unresolved",
          "Yes, resolved",
          "No"
        ],
        [
          1,
          "Is there a documented process for court-ordered freezes?",
          "No process",
          "Ad hoc",
          "Documented process"
        ],
        [
          1,
          "Are travel-rule and KYC requirements applied to primary issuance?",
          "Not applied",
          "Partly applied",
          "Applied"
        ]
      ]
    },
    {
      domain: "peg_stability",
      code: "PEG",
      rows: [
        [
          3,
          "What backs the stablecoin, and what share of backing is cash or short-dated government debt?",
          "Unbacked or backed by volatile assets",
          "Mixed backing with less than 80 percent cash and bills",
          "At least 80 percent cash and short-dated government debt"
        ],
        [
          3,
          "How far and for how long has the price deviated from the peg in the last 12 months?",
          "More than 3 percent for over a day",
          "Between 0.5 and 3 percent, briefly",
          "Within 0.5 percent throughout"
        ],
        [
          2,
          "Can any holder redeem at par, and how quickly?",
          "No direct redemption",
          "Redemption for whitelisted holders only, within days",
          "Redemption at par within one business day"
        ],
        [
          2,
          "Are reserves attested monthly and audited annually by an independent firm?",
          "Neither",
          "Attested, not audited",
          "Attested monthly and audited annually"
        ],
        [
          2,
          "Could the issuer meet redemptions of 20 percent of supply within one week?",
          "No",
          "Partly",
          "Yes, from liquid reserves"
        ],
        [
          1,
          "Are reserve custodians diversified across institutions?",
          "A single custodian",
          "Two custodians",
          "Several custodians"
        ]
      ]
    }
  ]
}
