/**
 * Oracle rubric of the demo dataset: 32 questions over the five oracle domains.
 */
import type { TypeRubric } from "./RubricRows.ts"

export const OracleRubric: TypeRubric = {
  entity_type: "oracle",
  prefix: "ORACLE",
  domains: [
    {
      domain: "security",
      code: "SEC",
      rows: [
        [
          3,
          "Are the on-chain oracle contracts (aggregators, proxies, verifiers) audited and verified?",
          "Not audited",
          "Audited, not all verified on explorers",
          "Audited and verified on every chain"
        ],
        [
          3,
          "Who can change feed configuration or the reporter set, and under what controls?",
          "A single key",
          "A multisig without timelock",
          "A multisig or governance behind a timelock"
        ],
        [
          2,
          "Are reports signed and verified on-chain against a known key set?",
          "Unsigned reports",
          "Signed, verified off-chain",
          "Signed and verified on-chain"
        ],
        [
          2,
          "Has a feed ever published a wrong or manipulated price that caused user losses?",
          "Yes, recently",
          "Yes, over two years ago, with remediation",
          "Never"
        ],
        [
          2,
          "Are node operators' signing keys protected by HSMs or secure enclaves?",
          "Unknown",
          "Some operators",
          "All operators, by requirement"
        ],
        [
          1,
          "Is there a bug bounty covering on-chain and off-chain components?",
          "None",
          "On-chain only",
          "Both"
        ],
        [1, "Are upgrades to feed proxies subject to a timelock?", "No", "For some feeds", "For every feed"]
      ]
    },
    {
      domain: "data_quality",
      code: "DQ",
      rows: [
        [
          3,
          "How many independent data sources does each major feed aggregate?",
          "One source",
          "Two or three sources",
          "Four or more independent sources"
        ],
        [
          3,
          "How are outliers and manipulated venues filtered?",
          "No filtering",
          "Static filters",
          "Volume-weighted medians with outlier rejection and venue scoring"
        ],
        [
          2,
          "Are the deviation threshold and heartbeat of major feeds appropriate to the asset?",
          "Loose thresholds for volatile assets",
          "Reasonable thresholds, long heartbeats",
          "Tight thresholds and short heartbeats for every major feed"
        ],
        [
          2,
          "Is each feed's methodology published, including venue selection?",
          "Not published",
          "Generic methodology only",
          "Per-feed methodology"
        ],
        [
          2,
          "How did feeds track reference prices during past market dislocations?",
          "Large deviations",
          "Short deviations",
          "Tracked closely"
        ],
        [
          1,
          "Are thinly traded assets flagged or given wider safety margins?",
          "No distinction",
          "Flagged in docs",
          "Flagged on-chain with risk tiers"
        ],
        [
          1,
          "Are feed deprecations announced in advance?",
          "Without notice",
          "Short notice",
          "At least 30 days' notice"
        ],
        [
          1,
          "Is historical feed data available for audit?",
          "Not available",
          "Partly available",
          "Fully available"
        ]
      ]
    },
    {
      domain: "decentralization",
      code: "DEC",
      rows: [
        [
          3,
          "How many independent node operators sign each feed, and what threshold is required?",
          "A single signer",
          "Fewer than 7 signers or a low threshold",
          "At least 7 independent signers with a two-thirds threshold"
        ],
        [
          2,
          "Are node operators publicly identified and geographically distributed?",
          "Anonymous",
          "Identified, concentrated",
          "Identified and distributed"
        ],
        [2, "Can a single party change the operator set?", "Yes", "Yes, with notice", "No"],
        [
          1,
          "Is participation as a node operator permissionless?",
          "Closed",
          "By application",
          "Permissionless"
        ],
        [
          1,
          "Do operators run independent infrastructure (no shared cloud account or RPC provider)?",
          "Shared infrastructure",
          "Partly independent",
          "Independent"
        ],
        [1, "Are operators bonded or slashable for bad reports?", "No", "Bonded, not slashable", "Slashable"]
      ]
    },
    {
      domain: "operational",
      code: "OPS",
      rows: [
        [
          3,
          "What was feed uptime over the last 90 days on the major chains?",
          "Below 99 percent",
          "Between 99 and 99.9 percent",
          "Above 99.9 percent"
        ],
        [
          2,
          "Have feeds gone stale for longer than their heartbeat in the last 12 months?",
          "Several times",
          "Once",
          "Never"
        ],
        [
          2,
          "Is there round-the-clock monitoring with a public status page and incident reports?",
          "No",
          "Monitoring without public reporting",
          "Yes"
        ],
        [
          1,
          "Are feeds deployed to new chains only after a review?",
          "No review",
          "Informal review",
          "Documented review"
        ],
        [
          1,
          "Is gas funding for push feeds secured against depletion?",
          "Manual top-ups",
          "Alerts before depletion",
          "Automatic funding with alerts"
        ],
        [
          1,
          "Are integration guidelines for consumers (staleness checks, circuit breakers) published?",
          "None",
          "Basic guidelines",
          "Detailed guidelines with examples"
        ]
      ]
    },
    {
      domain: "governance",
      code: "GOV",
      rows: [
        [
          2,
          "Is the governance of the oracle network documented?",
          "Undocumented",
          "Partly documented",
          "Fully documented"
        ],
        [
          2,
          "Is there a process for disputing or correcting a wrong value?",
          "None",
          "Informal",
          "Formal dispute process"
        ],
        [
          1,
          "Are node-operator fees and incentives transparent?",
          "Opaque",
          "Partly disclosed",
          "Fully disclosed"
        ],
        [1, "Is the entity operating the network identified?", "Unknown", "Partly", "Yes"],
        [1, "Are changes to feed parameters published with notice?", "Never", "Sometimes", "Always"]
      ]
    }
  ]
}
